/**
 * Store benchmark: load time and write latency at 1k, 10k and 100k entries, side by side with a baseline
 * measured in the same run (plain JSON.parse + writeFile of the same data; readdir + readFile for notes).
 */
import { promises as fs, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonDocument } from '../src/server/store/jsonDocument';
import { SESSIONS_SCHEMA_VERSION, SessionsDocSchema, sessionsDefaults, type SessionsDoc } from '../src/server/store/schemas';
import { NoteIndex } from '../src/server/notes/noteIndex';
import { fmt, median, printTable } from './harness';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);

function sessionsDoc(n: number): SessionsDoc {
  const sessions: SessionsDoc['sessions'] = {};
  for (let i = 0; i < n; i++) {
    const key = `s${i.toString(36).padStart(6, '0')}`;
    sessions[key] = {
      key,
      createdAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      project_context_pins: [`.knowledge/notes/note-${i % 500}.md`, `.knowledge/plans/plan-${i % 50}.md`],
      knowledge_context_delivered: `v1:${(i * 2654435761).toString(16).padStart(16, '0')}`,
      deliveredAt: null,
      origin: 'chat',
      pinned_messages: [],
      results: [],
    };
  }
  return { schemaVersion: SESSIONS_SCHEMA_VERSION, draftPins: [], sessions };
}

export async function runStoreBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sk-bench-store-'));
  const rows: (string | number)[][] = [];
  try {
    for (const n of SIZES) {
      const runs = n >= 100_000 ? 3 : 7;
      const path = join(root, `sessions-${n}.json`);
      const basePath = join(root, `baseline-${n}.json`);
      const data = sessionsDoc(n);
      const text = `${JSON.stringify(data, null, 2)}\n`;
      writeFileSync(path, text);
      writeFileSync(basePath, text);
      const doc = new JsonDocument<SessionsDoc>({ source: 'sessions', path, schema: SessionsDocSchema, currentVersion: SESSIONS_SCHEMA_VERSION, defaults: sessionsDefaults });

      const loadOurs = await median(runs, () => doc.load());
      const loadBase = await median(runs, async () => JSON.parse(await fs.readFile(basePath, 'utf8')) as unknown);
      let i = 0;
      const writeOurs = await median(runs, () => doc.update((d) => void d.draftPins.push(`p${i++}`)));
      const baseData = JSON.parse(text) as SessionsDoc;
      const writeBase = await median(runs, async () => {
        baseData.draftPins.push(`p${i++}`);
        await fs.writeFile(basePath, `${JSON.stringify(baseData, null, 2)}\n`);
      });
      rows.push([`sessions store, ${n.toLocaleString('en')} entries`, fmt(loadOurs), fmt(loadBase), (loadOurs / loadBase).toFixed(1), fmt(writeOurs), fmt(writeBase), (writeOurs / writeBase).toFixed(1), `${(text.length / 1e6).toFixed(1)} MB`]);
    }

    for (const n of SIZES) {
      const ws = join(root, `ws-${n}`);
      const notes = join(ws, '.knowledge/notes');
      mkdirSync(notes, { recursive: true });
      mkdirSync(join(ws, '.knowledge/plans'), { recursive: true });
      for (let k = 0; k < n; k++) writeFileSync(join(notes, `note-${k}.md`), `# Note ${k}\n\nSome project knowledge number ${k}, a few lines long.\n`);
      const runs = n >= 100_000 ? 1 : 3;
      const loadOurs = await median(runs, () => new NoteIndex(ws).rebuild());
      const loadBase = await median(runs, async () => {
        // readdir + readFile of every note, 64 at a time (all at once runs out of file descriptors at 100k).
        const names = await fs.readdir(notes);
        for (let k = 0; k < names.length; k += 64) await Promise.all(names.slice(k, k + 64).map((name) => fs.readFile(join(notes, name), 'utf8')));
      });
      const index = new NoteIndex(ws);
      await index.rebuild();
      let k = 0;
      const target = join(notes, 'note-0.md');
      const writeOurs = await median(5, async () => {
        await fs.writeFile(target, `# Note 0\n\nedit ${k++}\n`);
        await index.refreshPath(target);
      });
      const writeBase = await median(5, () => fs.writeFile(target, `# Note 0\n\nedit ${k++}\n`));
      rows.push([`note index, ${n.toLocaleString('en')} notes`, fmt(loadOurs), fmt(loadBase), (loadOurs / loadBase).toFixed(1), fmt(writeOurs), fmt(writeBase), (writeOurs / writeBase).toFixed(1), 'files']);
      rmSync(ws, { recursive: true, force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  printTable(
    'Store: load and write (median ms; baseline = plain JSON.parse/readFile + writeFile of the same data, same run)',
    ['case', 'load', 'base load', 'ratio', 'write', 'base write', 'ratio', 'size'],
    rows,
  );
  console.log('Write = one update: our path takes the cross-process lock, re-reads and validates the file, writes a temp file, fsyncs and renames; the baseline only writes.');
}

if (require.main === module) void runStoreBench();
