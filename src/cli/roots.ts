/** Which workspaces a `scan` command reads: shared by the full CLI and the scan command's own bundle. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

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
