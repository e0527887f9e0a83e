/**
 * Multi-root bench: what folders cost the core. A workspace of one folder with `.knowledge/` (the baseline) beside
 * the same folder plus three folders without `.knowledge/` (what they cost: nothing but two failed directory reads
 * each), and beside four folders that each have `.knowledge/` (the same notes split four ways). Per layout: a cold
 * load (a new core: index every folder, load reviews, judge every item), listing the items, and compiling a block of
 * eight pins. Runnable alone: `node --import tsx bench/multiRoot.ts`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnowledgeCore } from '../src/server/knowledgeCore';
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
}

if (require.main === module) void runMultiRootBench();
