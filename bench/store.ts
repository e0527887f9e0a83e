/**
 * Store benchmark at 1k, 10k and 100k: one session write (the sessions store keeps one file per session), beside a
 * bare writeFile of one session measured in the same run; the note index's load and write beside readdir + readFile.
 */
import { promises as fs, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore, sessionFileName, sessionsDirOf } from '../src/server/core/store/sessionStore';
import { SESSIONS_SCHEMA_VERSION, SESSION_FILE_SCHEMA_VERSION, type SessionMeta } from '../src/server/core/store/storeSchemas';
import { NoteIndex } from '../src/server/core/notes/noteIndex';
import { SessionService } from '../src/server/core/delivery/sessionService';
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
    await runSessionPathsBench(root);
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

/** A service over `store` with what the session paths need (no workspace: pins are given as ids). */
function serviceOf(store: SessionStore): SessionService {
  return new SessionService({ store, checkPin: (id) => ({ ok: true, id }), reader: null, judge: () => [], memoryIndex: async () => null, defaultBudgetTokens: 4000 });
}

/** The panel's first page: newest 30 sessions (before the paged list: every session, sorted, sliced). */
async function panelFirstPage(service: SessionService): Promise<number> {
  const s = service as unknown as { listPage?: (o: { limit: number }) => Promise<{ sessions: unknown[] }>; list: () => Promise<unknown[]> };
  if (s.listPage) return (await s.listPage({ limit: 30 })).sessions.length;
  return (await s.list()).slice(0, 30).length;
}

/**
 * The session paths at 1k / 10k / 100k: a scheduled claim found by name, a pin rename (one session pins the file),
 * a prune with nothing due, the panel's first page, listing every session (a fresh process's store), and one session
 * write beside one atomic write of the same session (temp + fsync + rename), all in the same run.
 */
export async function runSessionPathsBench(root: string): Promise<void> {
  const rows: (string | number)[][] = [];
  const writes: (string | number)[][] = [];
  for (const n of SIZES) {
    const indexPath = join(root, `ws-${n}`, 'sessions.json');
    writeStore(indexPath, n);
    // One scheduled session (found by name) and one session pinning a rare note (renamed back and forth).
    const dir = sessionsDirOf(indexPath);
    const sched = { ...session(n + 1), key: 'sched-nightly', origin: 'schedule' as const, label: 'nightly' };
    writeFileSync(join(dir, sessionFileName(sched.key)), `${JSON.stringify({ ...sched, schemaVersion: 1 }, null, 2)}\n`);
    const rare = { ...session(n + 2), key: 'rare-pin', project_context_pins: ['.knowledge/notes/rare-a.md'] };
    writeFileSync(join(dir, sessionFileName(rare.key)), `${JSON.stringify({ ...rare, schemaVersion: 1 }, null, 2)}\n`);
    const runs = n >= 100_000 ? 5 : 9;

    const listAll = await median(n >= 100_000 ? 1 : 3, async () => new SessionStore({ indexPath }).list());
    const store = new SessionStore({ indexPath });
    const service = serviceOf(store);
    await panelFirstPage(service); // warm: this process has read the store once (builds the index when there is none)
    const indexOf = (s: SessionStore) => (s as unknown as { sessionIndex?: { ready: () => Promise<void> } }).sessionIndex;
    await indexOf(store)?.ready(); // and checked every file against it (the first claim, rename or prune of a process waits for that)
    // A new process on a store it has seen before: its first page (the index loaded; the files checked after it),
    // and its first use that waits for the check of every file's stat.
    const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
    let t0 = process.hrtime.bigint();
    const other = new SessionStore({ indexPath });
    await panelFirstPage(serviceOf(other));
    const panelCold = since(t0);
    t0 = process.hrtime.bigint();
    const third = new SessionStore({ indexPath });
    const thirdIndex = indexOf(third);
    if (thirdIndex) await thirdIndex.ready();
    else await third.list(); // before the index: every hot path listed every session
    const checkCold = since(t0);
    await indexOf(other)?.ready(); // its background check done before the timings below
    let slot = 0;
    const claim = await median(runs, async () => {
      const r = await service.claimScheduledRun('nightly', `slot-${slot++}`, []);
      if (!r.claimed || r.key !== 'sched-nightly') throw new Error('claim went wrong');
    });
    let flip = 0;
    const rename = await median(runs, async () => {
      const [from, to] = flip++ % 2 === 0 ? ['rare-a', 'rare-b'] : ['rare-b', 'rare-a'];
      const changed = await service.renamePin(`.knowledge/notes/${from}.md`, `.knowledge/notes/${to}.md`);
      if (changed !== 1) throw new Error(`rename changed ${changed}`);
    });
    // Nothing due: every session is newer than the cutoff (the bench's sessions were created from 1.7e12 on).
    const prune = await median(runs, async () => {
      const r = await service.prune(1, 1_700_000_000_000 + 86_400_000 - 1);
      if (r.pruned.length !== 0) throw new Error('pruned something');
    });
    const page = await median(runs, () => panelFirstPage(service));
    rows.push([`${n.toLocaleString('en')} sessions`, fmt(claim), fmt(rename), fmt(prune), fmt(page), fmt(panelCold), fmt(checkCold), fmt(listAll)]);

    // Session writes: markDelivered on sessions spread over the store (each a different file), beside an atomic
    // write of one session (temp + fsync + rename) and a bare writeFile, same run, same folder.
    const wruns = 61;
    let i = 0;
    let w = 0;
    const pick = () => session(Math.floor(((w++ * 7919) % wruns) * (n / wruns)));
    const basePath = join(dir, 'baseline.json');
    const one = session(0);
    const writeOnce = async () => {
      await store.update(pick().key, (s) => (s ? { ...s, knowledge_context_delivered: `v1:${i}`, deliveredAt: new Date().toISOString() } : undefined));
    };
    const atomicOnce = async () => {
      const tmp = `${basePath}.tmp`;
      const h = await fs.open(tmp, 'w');
      await h.writeFile(`${JSON.stringify({ ...one, knowledge_context_delivered: `v1:${i++}`, deliveredAt: new Date().toISOString(), lastActivityAt: new Date().toISOString(), schemaVersion: 1 }, null, 2)}\n`);
      await h.sync();
      await h.close();
      await fs.rename(tmp, basePath);
    };
    const barePath = join(dir, 'baseline-bare.json');
    const bareOnce = () => fs.writeFile(barePath, `${JSON.stringify({ ...one, knowledge_context_delivered: `v1:${i++}`, deliveredAt: new Date().toISOString(), schemaVersion: 1 }, null, 2)}\n`);
    // Interleaved, so that the machine's noise falls on all three alike.
    const times: number[][] = [[], [], []];
    for (let r = 0; r < wruns; r++) {
      for (const [k, fn] of [writeOnce, atomicOnce, bareOnce].entries()) {
        const t0 = process.hrtime.bigint();
        await fn();
        times[k]!.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [writeOurs, writeAtomic, writeBase] = times.map(med) as [number, number, number];
    writes.push([`${n.toLocaleString('en')} sessions`, fmt(writeOurs), fmt(writeAtomic), (writeOurs / writeAtomic).toFixed(2), fmt(writeBase), (writeOurs / writeBase).toFixed(1)]);
    rmSync(join(root, `ws-${n}`), { recursive: true, force: true });
  }
  printTable(
    'Session paths (median ms): claim a scheduled prompt by name, rename a pin one session holds, prune with nothing due, the panel\'s first page (30 newest; warm, and the first one of a new process), list every session (a new process)',
    ['store', 'claim by name', 'rename pin', 'prune', 'panel page', 'page, new process', 'first check, new process', 'list all'],
    rows,
  );
  console.log('Targets: claim, rename, prune and the panel page flat across sizes (no hot path lists every session); panel page <= 20 ms at 100k. "first check": once per process, the index loaded and every file\'s stat compared with it (before the index: listing every session).');
  printTable(
    'Session write (markDelivered, median ms) beside an atomic write of one session (temp + fsync + rename) and a bare writeFile, same run',
    ['store', 'session write', 'atomic write', 'ratio', 'bare writeFile', 'ratio'],
    writes,
  );
  console.log('Target: session write <= 1.5x one atomic write of one session.');
}

if (require.main === module) void runStoreBench();
