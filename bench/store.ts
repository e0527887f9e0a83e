/**
 * Store benchmark at 1k, 10k and 100k: one session write (the sessions store keeps one file per session), beside a
 * bare writeFile of one session measured in the same run; the note index's load and write beside readdir + readFile.
 */
import { promises as fs, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore, sessionFileName, sessionsDirOf } from '../src/server/store/sessionStore';
import { SESSIONS_SCHEMA_VERSION, SESSION_FILE_SCHEMA_VERSION, type SessionMeta } from '../src/server/store/schemas';
import { NoteIndex } from '../src/server/notes/noteIndex';
import { fmt, median, printTable } from './harness';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);

function session(i: number): SessionMeta {
  const key = `s${i.toString(36).padStart(6, '0')}`;
  return {
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

/** A store of `n` sessions in today's layout (one file per session), written directly. */
function writeStore(indexPath: string, n: number): void {
  const dir = sessionsDirOf(indexPath);
  mkdirSync(dir, { recursive: true });
  writeFileSync(indexPath, `${JSON.stringify({ schemaVersion: SESSIONS_SCHEMA_VERSION, draftPins: [] }, null, 2)}\n`);
  for (let i = 0; i < n; i++) {
    const s = session(i);
    writeFileSync(join(dir, sessionFileName(s.key)), `${JSON.stringify({ ...s, schemaVersion: SESSION_FILE_SCHEMA_VERSION }, null, 2)}\n`);
  }
}

export async function runStoreBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sk-bench-store-'));
  const rows: (string | number)[][] = [];
  try {
    // Session writes: markDelivered on sessions spread over the store (each a different file), beside a bare
    // writeFile of one session's JSON and an atomic one (temp + fsync + rename), same run, same folder.
    const writes: Record<number, number> = {};
    for (const n of SIZES) {
      const indexPath = join(root, `ws-${n}`, 'sessions.json');
      writeStore(indexPath, n);
      const store = new SessionStore({ indexPath });
      await store.open();
      const runs = 41;
      let i = 0;
      const pick = () => session(Math.floor(((i++ * 7919) % runs) * (n / runs)));
      const writeOurs = await median(runs, async () => {
        const key = pick().key;
        await store.update(key, (s) => (s ? { ...s, knowledge_context_delivered: `v1:${i}`, deliveredAt: new Date().toISOString() } : undefined));
      });
      const basePath = join(sessionsDirOf(indexPath), 'baseline.json');
      const one = session(0);
      const writeBase = await median(runs, async () => {
        await fs.writeFile(basePath, `${JSON.stringify({ ...one, knowledge_context_delivered: `v1:${i++}`, deliveredAt: new Date().toISOString(), schemaVersion: 1 }, null, 2)}\n`);
      });
      const writeAtomic = await median(runs, async () => {
        const tmp = `${basePath}.tmp`;
        const h = await fs.open(tmp, 'w');
        await h.writeFile(`${JSON.stringify({ ...one, knowledge_context_delivered: `v1:${i++}`, schemaVersion: 1 }, null, 2)}\n`);
        await h.sync();
        await h.close();
        await fs.rename(tmp, basePath);
      });
      const loadOurs = await median(n >= 100_000 ? 1 : 3, async () => new SessionStore({ indexPath }).list());
      writes[n] = writeOurs;
      rows.push([`sessions store, ${n.toLocaleString('en')} sessions`, fmt(loadOurs), fmt(writeOurs), fmt(writeBase), (writeOurs / writeBase).toFixed(1), fmt(writeAtomic), (writeOurs / writeAtomic).toFixed(1), (writeOurs / writes[SIZES[0]!]!).toFixed(2)]);
      rmSync(join(root, `ws-${n}`), { recursive: true, force: true });
    }
    printTable(
      'Sessions store: one session write (markDelivered; median ms) beside a bare writeFile of one session and an atomic one (temp + fsync + rename), same run',
      ['case', 'list all', 'write', 'bare writeFile', 'ratio', 'atomic writeFile', 'ratio', 'vs smallest'],
      rows.splice(0),
    );
    console.log('Targets: write flat within 1.5x across sizes ("vs smallest"), and <= 1.5x a bare writeFile of one session. Our write takes the session file\'s cross-process lock, re-reads and validates it, writes a temp file, fsyncs and renames.');

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
    'Note index: load and write (median ms; baseline = readdir + readFile, and writeFile, of the same data, same run)',
    ['case', 'load', 'base load', 'ratio', 'write', 'base write', 'ratio', 'size'],
    rows,
  );
}

if (require.main === module) void runStoreBench();
