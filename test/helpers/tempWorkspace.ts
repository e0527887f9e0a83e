/** A temp workspace with `.knowledge/notes` and `.knowledge/plans`, plus a global-storage path beside it. */
import './isolatedState';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function tempWorkspace(prefix: string, files: Record<string, string> = {}): { workspace: string; storage: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.knowledge/notes'), { recursive: true });
  mkdirSync(join(workspace, '.knowledge/plans'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, rel)), { recursive: true });
    writeFileSync(join(workspace, rel), text);
  }
  return { workspace, storage: join(root, 'global') };
}
