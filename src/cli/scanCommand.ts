/**
 * `scan` with its workspaces: expands `--workspace DIR|FILE.code-workspace` (and positional `.code-workspace` files)
 * into each folder's `.knowledge/`, loads reviews through `reviews`, and labels each finding with its folder. Shared
 * by the full CLI and the scan command's own bundle (`reviews` is how each loads the review store).
 */
import { WorkspaceArgError } from './codeWorkspace';
import { expandScanArgs, folderLabel } from './roots';
import { runScan, type ScanHooks, type ScanIo } from './scanFiles';

/** The flag that obeys the repository's `.knowledge/reviews.json` (see the scan help). */
export const ACCEPT_REPOSITORY_REVIEWS = '--accept-repository-reviews';

export interface ReviewOptions {
  /** `--accept-repository-reviews`: the repository's reviews count too, not only this person's own. */
  acceptRepository: boolean;
}

export async function runScanWithWorkspaces(allArgs: readonly string[], io: ScanIo, reviews: (expanded: string[], options: ReviewOptions) => Promise<ScanHooks>): Promise<number> {
  // The flag is ours (before a `--`); everything else goes to the scanner.
  const end = allArgs.indexOf('--');
  const head = end < 0 ? allArgs : allArgs.slice(0, end);
  const acceptRepository = head.includes(ACCEPT_REPOSITORY_REVIEWS);
  const args = acceptRepository ? [...head.filter((a) => a !== ACCEPT_REPOSITORY_REVIEWS), ...(end < 0 ? [] : allArgs.slice(end))] : allArgs;
  let expanded: ReturnType<typeof expandScanArgs>;
  try {
    expanded = expandScanArgs(args, io.cwd);
  } catch (err) {
    if (!(err instanceof WorkspaceArgError)) throw err;
    io.stderr(`scan: ${err.message}\n`);
    return 2;
  }
  for (const note of expanded.notes) io.stderr(`scan: ${note}\n`);
  const hooks: ScanHooks = { ...(await reviews(expanded.args, { acceptRepository })) };
  const folders = expanded.folders;
  if (folders && folders.length > 1) hooks.folderOf = (path) => folderLabel(folders, path);
  return runScan(expanded.args, io, hooks);
}
