/**
 * Durability figures against real files and real processes, shared by test/unit/crashRecovery.test.ts and
 * bench/reliability.ts:
 *
 * - `runKillCampaign`: a child process writes through the real store (sessions: the session service over
 *   `SessionStore`, one file per session; memory: `remember` appending to the project's JSONL file) and prints `ack <id>` once each
 *   write has returned. The parent SIGKILLs it at random moments (a seeded delay after its first
 *   acknowledgement) and starts a new one, until `target` writes were acknowledged. Then every acknowledged
 *   write must be on disk, the sessions file must parse, and the memory file must load through the store
 *   (a line torn by a kill may only hold an unacknowledged write; it is kept and reported, never read as data).
 * - `runTwoWriters`: two processes write `perWriter` each at the same time; every write must be kept, once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KnowledgeCore, sessionsPath } from '../../src/server/core/knowledgeCore';
import { SessionStore, sessionsDirOf } from '../../src/server/core/store/sessionStore';
import { MemoryService, memoryPaths } from '../../src/server/core/memory/memoryService';
import type { StoreProblem } from '../../src/shared/schemas';
import { seededRandom } from './hostile';
import { tempWorkspace } from './tempWorkspace';

export type StoreUnderTest = 'sessions' | 'memory';

interface Dirs {
  workspace: string;
  storage: string;
}

function workerArgs(store: StoreUnderTest, d: Dirs, tag: string, count: number): string[] {
  return store === 'sessions'
    ? [resolve(__dirname, 'storeWorker.ts'), 'create', d.storage, d.workspace, tag, String(count)]
    : [resolve(__dirname, 'memoryWorker.ts'), d.workspace, d.storage, 'project', tag, String(count)];
}

/** A worker whose `ack` lines are counted as they arrive. */
function startWorker(store: StoreUnderTest, d: Dirs, tag: string, count: number, onAck: (id: string) => void) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...workerArgs(store, d, tag, count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let buffered = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('ack ')) onAck(line.slice(4));
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, exited, stderr: () => stderr };
}

/** What is on disk now: the ids written, and for memory the lines that do not parse. */
async function readBack(store: StoreUnderTest, d: Dirs): Promise<{ ids: string[]; malformed: string[]; problems: StoreProblem[] }> {
  const problems: StoreProblem[] = [];
  if (store === 'sessions') {
    // One file per session: every one must parse (a kill never leaves a torn file), and the store must list them all.
    if (existsSync(sessionsPath(d.storage, d.workspace))) JSON.parse(readFileSync(sessionsPath(d.storage, d.workspace), 'utf8'));
    const dir = sessionsDirOf(sessionsPath(d.storage, d.workspace));
    const files = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    for (const name of files) JSON.parse(readFileSync(join(dir, name), 'utf8'));
    const core = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage, onProblem: (p) => problems.push(p) });
    await core.load();
    const listed = await core.sessionService.list();
    assert.equal(listed.length, files.length, 'the store loads every session file');
    // The sessions index (journal lines appended by the killed writers, checked against the files at this first
    // use) names exactly the sessions on disk, newest first.
    const paged: string[] = [];
    for (let cursor: string | undefined, i = 0; i < 10_000; i++) {
      const page = await core.sessionService.listPage({ limit: 200, ...(cursor ? { cursor } : {}) });
      paged.push(...page.sessions.map((s) => s.key));
      if (!page.next) break;
      cursor = page.next;
    }
    assert.deepEqual(paged, listed.map((s) => s.key), 'the index pages every session on disk, newest first');
    await core.sessions.sessionIndex.ready();
    assert.deepEqual(core.sessions.sessionIndex.idleBefore(Date.now() + 1).sort(), listed.map((s) => s.key).sort(), 'the index knows every session\'s activity');
    return { ids: listed.map((s) => s.label ?? ''), malformed: [], problems };
  }
  const path = memoryPaths(d.workspace, d.storage).project!;
  const malformed: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      JSON.parse(line);
    } catch {
      malformed.push(line);
    }
  }
  const memory = new MemoryService({ workspaceFolder: d.workspace, globalStoragePath: d.storage, scan: () => [], reviews: null, onProblem: (p) => problems.push(p) });
  await memory.configure({ on: true, caps: { session: 10_000, project: 10_000, personal: 10_000 } });
  const ids: string[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await memory.list({ scope: 'project', offset, limit: 500 });
    ids.push(...page.entries.map((e) => e.title));
    if (offset + 500 >= page.total) break;
  }
  return { ids, malformed, problems };
}

export interface KillResult {
  store: StoreUnderTest;
  seed: number;
  acknowledged: number;
  kills: number;
  lost: number;
  /** Lines a kill cut short (memory only): unacknowledged writes, kept in the file and reported. */
  torn: number;
  /** Writes on disk that were never acknowledged (killed between the write and its `ack`). */
  unacknowledgedOnDisk: number;
  /** Writers that gave up on a lock a killed writer left empty (refused writes, not lost ones). */
  lockTimeouts: number;
  ms: number;
}

export async function runKillCampaign(options: { store: StoreUnderTest; target: number; seed: number; maxDelayMs?: number }): Promise<KillResult> {
  const { store, target, seed } = options;
  const random = seededRandom(seed);
  const started = Date.now();
  const d = tempWorkspace(`sk-kill-${store}-`);
  mkdirSync(d.storage, { recursive: true });
  if (store === 'sessions') {
    // The index exists before the writers start: they append to its journal, and the kills land between a session's
    // rename and its line too (found by the stat check at the next open).
    const first = new SessionStore({ indexPath: sessionsPath(d.storage, d.workspace) });
    await first.sessionIndex.ready();
    first.sessionIndex.close();
  }
  const acked = new Set<string>();
  let kills = 0;
  let lockTimeouts = 0;
  try {
    for (let generation = 0; acked.size < target; generation++) {
      assert.ok(generation < 500, `over 500 restarts for ${acked.size} acknowledged writes (seed ${seed})`);
      let firstAck: () => void = () => undefined;
      const first = new Promise<void>((r) => (firstAck = r));
      const w = startWorker(store, d, `g${generation}`, target - acked.size + 200, (id) => {
        acked.add(id);
        firstAck();
      });
      const outcome = await Promise.race([first.then(() => 'acked' as const), w.exited.then(() => 'exited' as const)]);
      if (outcome === 'exited') {
        // A writer killed between creating the lock file and writing its pid into it leaves an EMPTY lock, which
        // is only broken once it is stale (15 s), after the next writer's 10 s wait ran out (reported; a refused
        // write, not a lost one). Anything else is a failure.
        assert.match(w.stderr(), /Timed out waiting for the lock/, `worker ${generation} exited before writing anything: ${w.stderr()} (seed ${seed})`);
        lockTimeouts++;
        continue;
      }
      // Let it write for a random while, then kill it without warning (mostly mid-write: it never pauses).
      const delay = 1 + Math.floor(random() * (options.maxDelayMs ?? 300));
      const deadline = Date.now() + delay;
      while (Date.now() < deadline && acked.size < target && w.child.exitCode === null) await new Promise((r) => setTimeout(r, Math.min(5, delay)));
      if (w.child.exitCode === null) {
        w.child.kill('SIGKILL');
        kills++;
      }
      const exit = await w.exited;
      if (exit.code !== 0 && exit.signal !== 'SIGKILL' && /Timed out waiting for the lock/.test(w.stderr())) lockTimeouts++;
      else assert.ok(exit.signal === 'SIGKILL' || exit.code === 0, `worker ${generation} failed on its own (code ${exit.code}): ${w.stderr()} (seed ${seed})`);
    }
    const back = await readBack(store, d);
    const onDisk = new Set(back.ids);
    const lost = [...acked].filter((id) => !onDisk.has(id));
    assert.deepEqual(lost.slice(0, 20), [], `${lost.length} acknowledged writes lost out of ${acked.size} (seed ${seed})`);
    assert.equal(back.ids.length, onDisk.size, `no write is on disk twice (seed ${seed})`);
    for (const line of back.malformed) {
      const title = /"title":"([^"]*)"/.exec(line)?.[1];
      assert.ok(title === undefined || !acked.has(title) || onDisk.has(title), `a torn line holds an acknowledged write ${title} (seed ${seed})`);
    }
    if (store === 'sessions') assert.deepEqual(back.problems, [], `the sessions file loads without problems (seed ${seed})`);
    else if (back.malformed.length > 0) assert.ok(back.problems.length > 0, `torn lines are reported as problems (seed ${seed})`);
    return {
      store,
      seed,
      acknowledged: acked.size,
      kills,
      lost: lost.length,
      torn: back.malformed.length,
      unacknowledgedOnDisk: back.ids.filter((id) => !acked.has(id)).length,
      lockTimeouts,
      ms: Date.now() - started,
    };
  } finally {
    rmSync(join(d.workspace, '..'), { recursive: true, force: true });
  }
}

export interface TwoWritersResult {
  store: StoreUnderTest;
  perWriter: number;
  kept: number;
  ms: number;
}

export async function runTwoWriters(options: { store: StoreUnderTest; perWriter: number }): Promise<TwoWritersResult> {
  const { store, perWriter } = options;
  const started = Date.now();
  const d = tempWorkspace(`sk-two-${store}-`);
  mkdirSync(d.storage, { recursive: true });
  try {
    const writers = ['a', 'b'].map((tag) => startWorker(store, d, tag, perWriter, () => undefined));
    for (const w of writers) {
      const exit = await w.exited;
      assert.equal(exit.code, 0, `a writer failed: ${w.stderr()}`);
    }
    const back = await readBack(store, d);
    assert.deepEqual(back.malformed, [], 'no line is torn');
    const kept = new Set(back.ids);
    for (const tag of ['a', 'b']) {
      const missing = Array.from({ length: perWriter }, (_, i) => `${tag}-${i}`).filter((id) => !kept.has(id));
      assert.deepEqual(missing.slice(0, 20), [], `writer ${tag}: ${missing.length} writes lost`);
    }
    assert.equal(back.ids.length, 2 * perWriter, 'every write kept exactly once');
    return { store, perWriter, kept: kept.size, ms: Date.now() - started };
  } finally {
    rmSync(join(d.workspace, '..'), { recursive: true, force: true });
  }
}
