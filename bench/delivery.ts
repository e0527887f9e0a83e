/**
 * Delivery benchmark: compile the knowledge block and its signature for 50 pinned files of 10 KB and a
 * 10k-entry memory index, p50 and p95, beside the baseline of re-reading and re-hashing everything from
 * disk in the same run. Target (issue 14): with nothing changed, p50 at most 0.2x the re-read baseline.
 */
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, promises as fs } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockMemo, PinnedFileReader, compileBlock, loadPinned, type MemoryIndexEntry } from '../src/server/core/delivery/knowledgeBlock';
import { defaultScan, sharedScanner } from '../src/server/core/threat/judgement';
import { MemoryService, memoryPaths } from '../src/server/core/memory/memoryService';
import { serializeEntry } from '../src/server/core/memory/memoryEntry';
import { makeEntries } from './memory';
import { fmt, printTable, timeRuns } from './harness';

export async function runDeliveryBench(): Promise<void> {
  const ws = mkdtempSync(join(tmpdir(), 'sk-bench-delivery-'));
  try {
    mkdirSync(join(ws, '.knowledge/notes'), { recursive: true });
    const pins: string[] = [];
    const paragraph = 'The payment service retries idempotent calls three times with jittered backoff; see docs/retries.md. ';
    for (let i = 0; i < 50; i++) {
      const id = `.knowledge/notes/note-${i}.md`;
      writeFileSync(join(ws, id), `# Note ${i}\n\n${paragraph.repeat(Math.ceil(10_240 / paragraph.length))}`.slice(0, 10_240));
      pins.push(id);
    }
    const memory: MemoryIndexEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
      id: `m${i}`,
      revision: createHash('sha256').update(`entry ${i}`).digest('hex'),
      line: `[fact] Service ${i} listens on port ${3000 + (i % 1000)}`,
    }));
    const reader = new PinnedFileReader(ws);
    const judge = (_id: string, text: string, revision: string) => defaultScan(text, revision); // as the server does (KnowledgeCore.judge)
    const budget = 200_000;
    await loadPinned(reader, pins, judge); // warm the stat cache and the scanner cache, as a running server is

    // Ours, as the session service does it: the pins through the stat-keyed reader, the block memoised by the
    // revisions of its inputs (the memory index is the same array while nothing it depends on changed).
    const memo = new BlockMemo();
    const ours = await timeRuns(50, async () => memo.compile(await loadPinned(reader, pins, judge), memory, budget));
    // The same with a real memory service over a 10k-entry project file: the layered index memoised too
    // (a stat of each scope file, then one comparison).
    const storage = join(ws, '.global');
    writeFileSync(memoryPaths(ws, storage).project!, `${makeEntries(10_000).map(serializeEntry).join('\n')}\n`);
    const service = new MemoryService({ workspaceFolder: ws, globalStoragePath: storage, scan: (t) => sharedScanner.scan(t), reviews: null });
    await service.configure({ on: true, caps: { session: 100_000, project: 100_000, personal: 100_000 } });
    await service.indexFor('s1');
    const memo2 = new BlockMemo();
    const withService = await timeRuns(50, async () => memo2.compile(await loadPinned(reader, pins, judge), await service.indexFor('s1'), budget));
    const uncached = await timeRuns(50, async () => compileBlock(await loadPinned(reader, pins, judge), memory, budget));
    const baseline = await timeRuns(50, async () => {
      // Re-read and re-hash everything from disk, no caches, then build the same text.
      const parts: string[] = [];
      const h = createHash('sha256');
      for (const id of pins) {
        const text = await fs.readFile(join(ws, id), 'utf8');
        h.update(createHash('sha256').update(text).digest('hex'));
        parts.push(text);
      }
      for (const m of memory) {
        h.update(m.id + m.revision);
        parts.push(m.line);
      }
      return { text: parts.join('\n'), sig: h.digest('hex') };
    });
    const changed = await timeRuns(20, async () => {
      // One pinned note edited between sends: re-read and re-hashed, the rest from cache.
      writeFileSync(join(ws, pins[0]!), `# Note 0\n\n${Date.now()} ${paragraph.repeat(80)}`.slice(0, 10_240));
      return memo.compile(await loadPinned(reader, pins, judge), memory, budget);
    });
    printTable(
      'Delivery: block + signature, 50 pinned files of 10 KB + 10k memory-index entries (ms; baseline = re-read and re-hash everything, same run)',
      ['case', 'p50', 'p95', 'baseline p50', 'baseline p95', 'ratio p50', 'target ratio'],
      [
        ['nothing changed (memoised block)', fmt(ours.p50), fmt(ours.p95), fmt(baseline.p50), fmt(baseline.p95), (ours.p50 / baseline.p50).toFixed(3), '<= 0.2'],
        ['nothing changed, index from a real 10k memory service', fmt(withService.p50), fmt(withService.p95), fmt(baseline.p50), fmt(baseline.p95), (withService.p50 / baseline.p50).toFixed(3), '<= 0.2'],
        ['nothing changed, block compiled every time (before)', fmt(uncached.p50), fmt(uncached.p95), fmt(baseline.p50), fmt(baseline.p95), (uncached.p50 / baseline.p50).toFixed(2), '–'],
        ['one pinned note edited', fmt(changed.p50), fmt(changed.p95), fmt(baseline.p50), fmt(baseline.p95), (changed.p50 / baseline.p50).toFixed(2), '–'],
      ],
    );
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

if (require.main === module) void runDeliveryBench();
