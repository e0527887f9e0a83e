/**
 * `scan` with its workspaces: expands `--workspace DIR|FILE.code-workspace` (and positional `.code-workspace` files)
 * into each folder's `.knowledge/`, loads reviews through `reviews`, and labels each finding with its folder. Shared
 * by the full CLI and the scan command's own bundle (`reviews` is how each loads the review store).
 */
import { WorkspaceArgError } from './codeWorkspace';
import { CliUsageError, USAGE_EXIT, usageErrorText } from './cliArgs';
import { expandScanArgs, folderLabel } from './roots';
import { parseScanArgs, runScan, type ScanArgs, type ScanHooks, type ScanIo } from './scanFiles';

export interface ReviewOptions {
  /** `--accept-repository-reviews`: the repository's reviews count too, not only this person's own. */
  acceptRepository: boolean;
}

export async function runScanWithWorkspaces(allArgs: readonly string[], io: ScanIo, reviews: (expanded: ScanArgs, options: ReviewOptions) => Promise<ScanHooks>): Promise<number> {
  let expanded: ReturnType<typeof expandScanArgs>;
  try {
    const parsed = parseScanArgs(allArgs);
    if (parsed.help) return runScan(parsed, io);
    expanded = expandScanArgs(parsed, io.cwd);
  } catch (err) {
    if (!(err instanceof WorkspaceArgError || err instanceof CliUsageError)) throw err;
    io.stderr(usageErrorText(err instanceof CliUsageError ? err : new CliUsageError('scan', err.message)));
    return USAGE_EXIT;
  }
  for (const note of expanded.notes) io.stderr(`scan: ${note}\n`);
  const hooks: ScanHooks = { ...(await reviews(expanded.args, { acceptRepository: expanded.args.acceptRepository })) };
  const folders = expanded.folders;
  if (folders && folders.length > 1) hooks.folderOf = (path) => folderLabel(folders, path);
  return runScan(expanded.args, io, hooks);
}
