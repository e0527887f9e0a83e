/**
 * Multi-root bench: what folders cost the core. A workspace of one folder with `.knowledge/` (the baseline) beside
 * the same folder plus three folders without `.knowledge/` (what they cost: nothing but two failed directory reads
 * each), and beside four folders that each have `.knowledge/` (the same notes split four ways). Per layout: a cold
 * load (a new core: index every folder, load reviews, judge every item), listing the items, and compiling a block of
 * eight pins. Runnable alone: `node --import tsx bench/multiRoot.ts`.
 */
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnowledgeCore } from '../src/server/core/knowledgeCore';
import { fmt, printTable, timeRuns } from './harness';

const NOTES = Number(process.env.BENCH_MULTIROOT_NOTES ?? 200);
const RUNS = Number(process.env.BENCH_MULTIROOT_RUNS ?? 30);

function note(i: number): string {
  return `# Note ${i}\n\n${'Conventions for the build, the tests and the release of this package. '.repeat(20)}\n`;
}

/** Folders under one root: `withKnowledge` of them share NOTES notes; `bare` have no .knowledge/. */
function layout(withKnowledge: number, bare: number): { folders: { name: string; path: string }[]; storage: string; pins: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'sk-bench-multi-'));
  const folders: { name: string; path: string }[] = [];
  for (let f = 0; f < withKnowledge + bare; f++) {
    const path = join(root, `f${f}`);
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'index.js'), '');
    folders.push({ name: `f${f}`, path });
  }
  for (let i = 0; i < NOTES; i++) {
    const folder = folders[i % withKnowledge]!;
    mkdirSync(join(folder.path, '.knowledge/notes'), { recursive: true });
    writeFileSync(join(folder.path, `.knowledge/notes/n${i}.md`), note(i));
  }
  const multi = folders.length > 1;
  const pins = Array.from({ length: 8 }, (_, i) => `${multi ? `${folders[i % withKnowledge]!.name}/` : ''}.knowledge/notes/n${i}.md`);
  return { folders, storage: join(root, 'global'), pins };
}

export async function runMultiRootBench(): Promise<void> {
  const rows: (string | number)[][] = [];
  const layouts: [string, number, number][] = [
    ['1 folder with .knowledge/ (baseline)', 1, 0],
    ['+ 3 folders without .knowledge/', 1, 3],
    ['4 folders, each with .knowledge/', 4, 0],
  ];
  for (const [label, withKnowledge, bare] of layouts) {
    const l = layout(withKnowledge, bare);
    const open = () =>
      new KnowledgeCore({ workspaceFolder: l.folders[0]!.path, ...(l.folders.length > 1 ? { workspaceFolders: l.folders } : {}), globalStoragePath: l.storage });
    const load = await timeRuns(RUNS, async () => open().load());
    const core = open();
    await core.load();
    const list = await timeRuns(RUNS * 10, () => core.listItems());
    const compile = await timeRuns(RUNS * 10, () => core.sessionService.compile(l.pins));
    rows.push([label, core.listItems().length, fmt(load.p50), fmt(load.p95), fmt(list.p50), fmt(compile.p50)]);
  }
  printTable(`Multi-root: ${NOTES} notes, ${RUNS} cold loads each (ms)`, ['layout', 'items', 'load p50', 'load p95', 'list p50', 'compile 8 pins p50'], rows);
  await memoryRows(layouts);
}

const ENTRIES = Number(process.env.BENCH_MULTIROOT_ENTRIES ?? 2000);

/** One approved project entry (a line of memory.jsonl). */
function entryLine(i: number): string {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  return JSON.stringify({ id: `mem_${i}`, scope: 'project', type: 'fact', title: `Convention ${i} of the build`, body: `Entry ${i}: the build of package ${i % 97} runs with flag ${i % 13}.`, tags: [], importance: i % 3 === 0 ? 'high' : 'medium', confidence: 1, provenance: { sourceKind: 'human', identity: 'bench', at }, trust: { state: 'approved', approvedBy: 'bench', approvedAt: at }, createdAt: at, updatedAt: at, wrongFlags: [] });
}

/**
 * Project memory per folder: ENTRIES project entries in one folder's memory.jsonl (the baseline), the same beside three
 * folders without .knowledge/, and split four ways. Per layout: the first load with memory on (every file read, every
 * entry judged), a recall, and the block's memory index (memoised: a repeat costs a stat per file).
 */
async function memoryRows(layouts: [string, number, number][]): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const [label, withKnowledge, bare] of layouts) {
    const l = layout(withKnowledge, bare);
    for (let i = 0; i < ENTRIES; i++) {
      const folder = l.folders[i % withKnowledge]!;
      mkdirSync(join(folder.path, '.knowledge'), { recursive: true });
      appendFileSync(join(folder.path, '.knowledge', 'memory.jsonl'), `${entryLine(i)}\n`);
    }
    const open = async () => {
      const core = new KnowledgeCore({ workspaceFolder: l.folders[0]!.path, ...(l.folders.length > 1 ? { workspaceFolders: l.folders } : {}), globalStoragePath: l.storage, memoryEnabled: true });
      await core.load();
      await core.memory!.configure({ on: true });
      return core;
    };
    const load = await timeRuns(Math.max(3, Math.floor(RUNS / 5)), async () => {
      const core = await open();
      await core.memory!.warmUp();
    });
    const core = await open();
    await core.memory!.warmUp();
    const recall = await timeRuns(RUNS * 5, () => core.memory!.recall({ query: 'build of package 42 flag' }));
    const index = await timeRuns(RUNS * 5, () => core.memory!.indexFor(undefined));
    const listed = (await core.memory!.list({ scope: 'project', limit: 1 })).total;
    rows.push([label, listed, fmt(load.p50), fmt(recall.p50), fmt(index.p50)]);
  }
  printTable(`Multi-root project memory: ${ENTRIES} entries (ms)`, ['layout', 'entries', 'first load + judge p50', 'recall p50', 'index (memoised) p50'], rows);
}

if (require.main === module) void runMultiRootBench();
