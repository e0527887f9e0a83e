/** Which workspaces a command reads (`--workspace`, else the nearest `.knowledge/`): shared by every CLI bundle. */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { WorkspaceFolderRoot } from '../shared/schemas';
import { assignFolderNames, folderOfPath } from '../server/core/workspaceFolders';
import { WorkspaceArgError, isWorkspaceFile, workspaceFoldersOf, type WorkspaceFolderArg } from './codeWorkspace';
import { CliUsageError } from './cliArgs';
import type { ScanArgs } from './scanFiles';

/** The nearest folder (cwd or an ancestor) that holds `.knowledge/`. */
export function findWorkspaceRoot(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.knowledge'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The workspace roots of the paths a `scan` command was given (the current folder's when none, or --jsonl). */
export function scannedWorkspaceRoots(args: Pick<ScanArgs, 'paths' | 'jsonl'>, cwd: string): string[] {
  const targets = args.paths.length > 0 && args.jsonl === undefined ? args.paths : ['.'];
  const roots = new Set<string>();
  for (const t of targets) {
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
export function expandScanArgs(args: ScanArgs, cwd: string): { args: ScanArgs; folders?: WorkspaceFolderRoot[]; notes: string[] } {
  const given = [...args.workspaces, ...args.paths.filter((p) => isWorkspaceFile(p))];
  const paths = args.paths.filter((p) => !isWorkspaceFile(p));
  if (given.length === 0) return { args, notes: [] };
  const { folders, notes } = workspaceFoldersOf(given, cwd);
  const named = assignFolderNames(folders);
  // Folders without .knowledge/ have nothing to scan: they are left out, not an error.
  const dirs = named.map((f) => join(f.path, '.knowledge')).filter((d) => existsSync(d));
  if (dirs.length === 0) notes.push('no workspace folder has a .knowledge/ folder: nothing to scan');
  return { args: { ...args, paths: [...paths, ...dirs], workspaces: [] }, folders: named, notes };
}

/** The name of the workspace folder that holds `abs` (the innermost), for findings' labels. */
export function folderLabel(folders: readonly WorkspaceFolderRoot[], abs: string): string | undefined {
  return folderOfPath(folders, abs)?.folder.name;
}

/**
 * The folders a command works on: every `--workspace` value (a folder, or a `.code-workspace` file's folders), in
 * order; without one, the nearest folder holding `.knowledge/`, else cwd. What a workspace file left out is told on
 * stderr. A value that names no folder is a usage error of `command`.
 */
export function workspaceFoldersArg(command: string, values: readonly string[], cwd: string, stderr: (s: string) => void, quiet = false): WorkspaceFolderArg[] {
  if (values.length === 0) {
    const dir = findWorkspaceRoot(cwd) ?? resolve(cwd);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliUsageError(command, `--workspace ${dir} is not a folder`);
    return [{ path: dir }];
  }
  try {
    const { folders, notes, refusedNames } = workspaceFoldersOf(values, cwd);
    // `quiet` (the hook): only a refused folder name is said, the person must learn why a folder is named otherwise.
    for (const note of quiet ? refusedNames : notes) stderr(`session-knowledge: ${note}\n`);
    if (folders.length === 0) throw new CliUsageError(command, `${values.join(', ')} names no folder on this disk`);
    return folders;
  } catch (err) {
    if (err instanceof WorkspaceArgError) throw new CliUsageError(command, err.message);
    throw err;
  }
}

/** `--workspace DIR|FILE.code-workspace`, repeatable: the option every workspace command takes. */
export const WORKSPACE_OPTION = { workspace: { type: 'string', multiple: true } } as const;
