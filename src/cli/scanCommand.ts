/**
 * `scan` with its workspaces: expands `--workspace DIR|FILE.code-workspace` (and positional `.code-workspace` files)
 * into each folder's `.knowledge/`, loads reviews through `reviews`, and labels each finding with its folder. Shared
 * by the full CLI and the scan command's own bundle (`reviews` is how each loads the review store).
 */
import { WorkspaceArgError } from './codeWorkspace';
import { expandScanArgs, folderLabel } from './roots';
import { runScan, type ScanHooks, type ScanIo } from './scan';

export async function runScanWithWorkspaces(args: readonly string[], io: ScanIo, reviews: (expanded: string[]) => Promise<ScanHooks>): Promise<number> {
  let expanded: ReturnType<typeof expandScanArgs>;
  try {
    expanded = expandScanArgs(args, io.cwd);
  } catch (err) {
    if (!(err instanceof WorkspaceArgError)) throw err;
    io.stderr(`scan: ${err.message}\n`);
    return 2;
  }
  for (const note of expanded.notes) io.stderr(`scan: ${note}\n`);
  const hooks: ScanHooks = { ...(await reviews(expanded.args)) };
  const folders = expanded.folders;
  if (folders && folders.length > 1) hooks.folderOf = (path) => folderLabel(folders, path);
  return runScan(expanded.args, io, hooks);
}
