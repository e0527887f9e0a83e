import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempWorkspace } from '../helpers/tempWorkspace';
import { spawn } from 'node:child_process';
import { promises as fs, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KnowledgeCore, sessionsPath } from '../../src/server/core/knowledgeCore';
import { withFileLock, writeFileAtomic } from '../../src/server/core/store/atomicFile';
import type { StoreProblem } from '../../src/shared/schemas';
import { SESSIONS_SCHEMA_VERSION } from '../../src/server/core/store/storeSchemas';

const worker = resolve(__dirname, '../helpers/storeWorker.ts');

function tempDirs(): { workspace: string; storage: string } {
  const dirs = tempWorkspace('sk-store-');
  mkdirSync(dirs.storage, { recursive: true });
  return dirs;
}

function runWorker(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, ['--import', 'tsx', worker, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolveRun({ code, stdout, stderr }));
  });
}

test('a write survives a kill -9 mid-write: the file is always the old or the new version, never torn', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sk-atomic-'));
  const target = join(dir, 'doc.json');
  await writeFileAtomic(target, JSON.stringify({ version: -1, filler: 'x' }));
  for (let round = 0; round < 12; round++) {
    const child = spawn(process.execPath, ['--import', 'tsx', worker, 'churn', target, dir, 't', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((r) => child.stdout.once('data', () => r()));
    // Let it get into the middle of a few 2 MB writes, then kill it without warning.
    await new Promise((r) => setTimeout(r, 30 + ((round * 53) % 150)));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const text = readFileSync(target, 'utf8');
    const parsed = JSON.parse(text) as { version: number; filler: string };
    assert.ok(Number.isInteger(parsed.version), 'the file holds a whole document');
    if (parsed.version >= 0) assert.equal(parsed.filler, String(parsed.version % 10).repeat(16_000_000));
  }
  // Temp files left by the killed writer never replace the target, and the next locked write removes them.
  assert.ok(readdirSync(dir).includes('doc.json'));
  writeFileSync(join(dir, '.doc.json.4242.deadbeef0001.tmp'), '{"torn'); // a leftover like a killed writer's
  await withFileLock(target, async () => writeFileAtomic(target, JSON.stringify({ version: 99, filler: '9' })));
  assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.tmp')), [], 'crash leftovers are cleaned up under the lock');
  assert.equal((JSON.parse(readFileSync(target, 'utf8')) as { version: number }).version, 99);
});

test('a malformed file is set aside with a timestamp, reported with its path, and never blanks the notes', async () => {
  const { workspace, storage } = tempDirs();
  writeFileSync(join(workspace, '.knowledge/notes/setup.md'), '# Setup\n\nRun npm ci.\n');
  const path = sessionsPath(storage, workspace);
  mkdirSync(join(path, '..'), { recursive: true });
  const broken = '{"schemaVersion": 1, "draftPins": [".knowledge/notes/setup.md"], "sessions": {'; // hand-broken
  writeFileSync(path, broken);
  const problems: StoreProblem[] = [];
  const core = new KnowledgeCore({ workspaceFolder: workspace, globalStoragePath: storage, onProblem: (p) => problems.push(p) });
  await core.load();
  assert.equal(core.listItems().length, 1, 'the notes still load');
  assert.equal(core.listItems()[0]?.title, 'Setup');
  assert.equal(problems.length, 1);
  const problem = problems[0]!;
  assert.ok(problem.setAsidePath, 'the problem names where the file went');
  assert.match(problem.setAsidePath, /sessions\.json\.malformed-\d{4}-\d\d-\d\dT/);
  assert.ok(problem.message.includes(path) && problem.message.includes(problem.setAsidePath));
  assert.equal(readFileSync(problem.setAsidePath, 'utf8'), broken, 'the broken bytes are kept as they were');
  assert.equal(existsSync(path), false, 'nothing was written over it');
  const stats = await core.stats();
  assert.equal(stats.stores[0]?.state, 'set-aside');
  assert.equal(stats.problems.length, 1);
  // A schema-valid JSON file with a wrong shape is malformed too (never read as empty).
  writeFileSync(path, JSON.stringify({ schemaVersion: 1, draftPins: 'not-an-array', sessions: {} }));
  const again = new KnowledgeCore({ workspaceFolder: workspace, globalStoragePath: storage, onProblem: (p) => problems.push(p) });
  await again.load();
  assert.equal(problems.length, 2);
  assert.match(problems[1]!.message, /draftPins/);
});

test('two processes (two windows) updating one store at once lose no update', async () => {
  const { workspace, storage } = tempDirs();
  const perWorker = 40;
  const results = await Promise.all([
    runWorker(['append', storage, workspace, 'a', String(perWorker)]),
    runWorker(['append', storage, workspace, 'b', String(perWorker)]),
    runWorker(['append', storage, workspace, 'c', String(perWorker)]),
  ]);
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(readFileSync(sessionsPath(storage, workspace), 'utf8')) as { draftPins: string[] };
  assert.equal(doc.draftPins.length, perWorker * 3, 'every update from every process is there');
  for (const tag of ['a', 'b', 'c']) {
    const mine = doc.draftPins.filter((p) => p.startsWith(`${tag}-`));
    assert.deepEqual(mine, Array.from({ length: perWorker }, (_, i) => `${tag}-${i}`), `process ${tag}'s updates in order`);
  }
  assert.equal(existsSync(`${sessionsPath(storage, workspace)}.lock`), false, 'the lock is released');
});

test('a lock left by a dead process is broken, not waited on forever', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sk-lock-'));
  const target = join(dir, 'doc.json');
  writeFileSync(`${target}.lock`, `999999999@${(await import('node:os')).hostname()}`);
  // No clock here: the lock is fresh (stale only after 15 s) and the wait gives up after 5 s with a
  // LockTimeoutError, so getting the lock at all means it was broken because its owner is gone.
  const value = await withFileLock(target, async () => 42, { timeoutMs: 5_000 });
  assert.equal(value, 42);
  assert.equal(existsSync(`${target}.lock`), false, 'the broken lock is not left behind');
});

test('the session files\' link lock: a dead owner\'s link is broken; a link and a lock file exclude each other; it holds only while held', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sk-linklock-'));
  const target = join(dir, 'session.json');
  const host = (await import('node:os')).hostname();
  symlinkSync(`999999999@${host}`, `${target}.lock`);
  assert.equal(await withFileLock(target, async () => 42, { timeoutMs: 5_000, link: true }), 42, 'a link left by a dead process is broken');
  assert.equal(existsSync(`${target}.lock`) || lstatOrNull(`${target}.lock`) !== null, false, 'and nothing is left behind');
  // A live owner's lock (a lock file of an older version, or a link): the other kind waits, then times out.
  writeFileSync(`${target}.lock`, `${process.pid}@${host}`);
  await assert.rejects(withFileLock(target, async () => 1, { timeoutMs: 300, link: true }), /Timed out/);
  rmSync(`${target}.lock`);
  symlinkSync(`${process.pid}@${host}`, `${target}.lock`);
  await assert.rejects(withFileLock(target, async () => 1, { timeoutMs: 300 }), /Timed out/);
  rmSync(`${target}.lock`);
  // Held: a second taker in this process waits for the first to let go.
  const order: string[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  const first = withFileLock(target, async () => {
    order.push('first in');
    await held;
    order.push('first out');
  }, { link: true });
  await new Promise((r) => setTimeout(r, 20));
  const second = withFileLock(target, async () => void order.push('second in'), { link: true, timeoutMs: 5_000 });
  await new Promise((r) => setTimeout(r, 50));
  release();
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first in', 'first out', 'second in']);
});

function lstatOrNull(path: string): unknown {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

test('fields written by a newer version survive a round trip, and its version number is not lowered', async () => {
  const { workspace, storage } = tempDirs();
  const path = sessionsPath(storage, workspace);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(
    path,
    JSON.stringify({
      schemaVersion: 7,
      draftPins: [],
      futureTopLevel: { nested: [1, 2, 3] },
      sessions: {
        k1: { key: 'k1', createdAt: '2026-01-01T00:00:00.000Z', project_context_pins: ['.knowledge/notes/a.md'], knowledge_context_delivered: null, deliveredAt: null, futureSessionField: 'keep me' },
      },
    }),
  );
  const core = new KnowledgeCore({ workspaceFolder: workspace, globalStoragePath: storage });
  await core.load();
  assert.equal((await core.stats()).stores[0]?.state, 'newer-version');
  await core.setDraftPins(['.knowledge/notes/a.md']);
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  assert.equal(raw.schemaVersion, 7);
  assert.deepEqual(raw.futureTopLevel, { nested: [1, 2, 3] });
  assert.deepEqual(raw.draftPins, ['.knowledge/notes/a.md']);
  // The session moved to its own file on open (the split), its unknown field with it; a write keeps it.
  assert.equal(raw.sessions, undefined);
  await core.sessionService.markDelivered('k1', 'v1:abc');
  const file = JSON.parse(readFileSync(core.sessions.pathOf('k1'), 'utf8')) as Record<string, unknown>;
  assert.equal(file.futureSessionField, 'keep me');
  assert.equal(file.knowledge_context_delivered, 'v1:abc');
});

test('an old file without a schema version is migrated, not set aside', async () => {
  const { workspace, storage } = tempDirs();
  const path = sessionsPath(storage, workspace);
  await fs.mkdir(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify({ pins: ['.knowledge/plans/p.md'], sessions: {} }));
  const problems: StoreProblem[] = [];
  const core = new KnowledgeCore({ workspaceFolder: workspace, globalStoragePath: storage, onProblem: (p) => problems.push(p) });
  await core.load();
  assert.deepEqual(problems, []);
  assert.deepEqual(await core.getDraftPins(), ['.knowledge/plans/p.md']);
  await core.setDraftPins(['x']);
  assert.equal((JSON.parse(readFileSync(path, 'utf8')) as { schemaVersion: number }).schemaVersion, SESSIONS_SCHEMA_VERSION);
});
