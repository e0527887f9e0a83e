/** Which workspaces a `scan` command reads: shared by the full CLI and the scan command's own bundle. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { WorkspaceFolderRoot } from '../shared/schemas';
import { assignFolderNames, folderOfPath } from '../server/core/workspaceFolders';
import { WorkspaceArgError, isWorkspaceFile, workspaceFoldersOf } from './codeWorkspace';

/** The nearest folder (cwd or an ancestor) that holds `.knowledge/`. */
export function findWorkspaceRoot(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.knowledge'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The workspace roots of the paths a `scan` command was given (the current folder's when none, or --jsonl). */
export function scannedWorkspaceRoots(args: readonly string[], cwd: string): string[] {
  const targets = args.filter((a) => !a.startsWith('-') || a === '-');
  const roots = new Set<string>();
  for (const t of targets.length > 0 && !args.includes('--jsonl') ? targets : ['.']) {
    const root = findWorkspaceRoot(resolve(cwd, t));
    if (root) roots.add(root);
  }
  return [...roots];
}

/**
 * A `scan` command's arguments with its workspaces expanded: each `--workspace DIR|FILE.code-workspace` (repeatable)
 * and each positional `FILE.code-workspace` becomes the `.knowledge/` folder of every workspace folder it names.
 * `folders` (named as VS Code names them, see `assignFolderNames`) is set when a workspace was given, so findings
 * can say which folder they belong to; `notes` says what a workspace file left out.
 */
export function expandScanArgs(args: readonly string[], cwd: string): { args: string[]; folders?: WorkspaceFolderRoot[]; notes: string[] } {
  const out: string[] = [];
  const given: string[] = [];
  let rest = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (rest) out.push(a);
    else if (a === '--') {
      rest = true;
      out.push(a);
    } else if (a === '--workspace') {
      const v = args[++i];
      if (v === undefined) throw new WorkspaceArgError('--workspace needs a folder or a .code-workspace file');
      given.push(v);
    } else if (a.startsWith('--workspace=')) given.push(a.slice('--workspace='.length));
    else if (!a.startsWith('-') && isWorkspaceFile(a)) given.push(a);
    else out.push(a);
  }
  if (given.length === 0) return { args: out, notes: [] };
  const { folders, notes } = workspaceFoldersOf(given, cwd);
  const named = assignFolderNames(folders);
  // Folders without .knowledge/ have nothing to scan: they are left out, not an error.
  const dirs = named.map((f) => join(f.path, '.knowledge')).filter((d) => existsSync(d));
  if (dirs.length === 0) notes.push('no workspace folder has a .knowledge/ folder: nothing to scan');
  const at = out.indexOf('--');
  if (at >= 0) out.splice(at, 0, ...dirs);
  else out.push(...dirs);
  return { args: out, folders: named, notes };
}

/** The name of the workspace folder that holds `abs` (the innermost), for findings' labels. */
export function folderLabel(folders: readonly WorkspaceFolderRoot[], abs: string): string | undefined {
  return folderOfPath(folders, abs)?.folder.name;
}
