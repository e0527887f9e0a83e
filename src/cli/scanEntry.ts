/**
 * The `scan` command's own bundle (dist/cli-scan.js): the scanner and the file walk, nothing else, so
 * `session-knowledge scan` does not load the stores, zod and lowdb it never uses. Reviews ("reviewed — not a
 * threat") need the review store: the full CLI bundle is loaded for them only when a scanned workspace has a
 * `.knowledge/reviews.json`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { scannedWorkspaceRoots } from './roots';
import type { ScanHooks, ScanIo } from './scanFiles';
import { runScanWithWorkspaces } from './scanCommand';

export async function runScanCommand(args: string[], io: ScanIo): Promise<number> {
  return runScanWithWorkspaces(args, io, async (expanded, options): Promise<ScanHooks> => {
    if (!scannedWorkspaceRoots(expanded, io.cwd).some((r) => existsSync(join(r, '.knowledge', 'reviews.json')))) return {};
    const main = createRequire(__filename)('./cli-main.js') as typeof import('./cliMain');
    return main.reviewsFor(expanded, io.cwd, options);
  });
}
