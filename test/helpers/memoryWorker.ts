/**
 * A separate process that remembers entries, for memory's multi-process tests (another VS Code window).
 * usage: node --import tsx memoryWorker.ts <workspace> <storage> <scope> <tag> <count>
 * Adds `<tag>-<i>` entries one remember at a time (human writes, approved), printing `ack <tag>-<i>` once each
 * has returned (an acknowledged write), then "done".
 */
import { MemoryService } from '../../src/server/core/memory/memoryService';
import type { MemoryScope } from '../../src/shared/memorySchemas';

async function main(): Promise<void> {
  const [workspace, storage, scope, tag, countText] = process.argv.slice(2);
  if (!workspace || !storage || !scope || !tag) throw new Error('usage: memoryWorker <workspace> <storage> <scope> <tag> <count>');
  const memory = new MemoryService({ workspaceFolder: workspace, globalStoragePath: storage, scan: () => [], reviews: null });
  await memory.configure({ on: true, caps: { session: 10_000, project: 10_000, personal: 10_000 }, supersedeThreshold: 1 });
  const count = Number(countText);
  for (let i = 0; i < count; i++) {
    await memory.remember({ scope: scope as MemoryScope, type: 'fact', title: `${tag}-${i}`, body: `written by ${tag}, number ${i}`, source: 'human', ...(scope === 'session' ? { sessionKey: tag } : {}) });
    process.stdout.write(`ack ${tag}-${i}\n`);
  }
  process.stdout.write('done\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
