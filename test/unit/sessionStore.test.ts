/**
 * The sessions store split into one file per session (src/server/core/store/sessionStore.ts), on real files and real
 * processes: an old-format store migrated; a migration killed with SIGKILL halfway and completed by the next open;
 * one session's write touching only its file; two processes writing one session and different sessions; a
 * malformed session file set aside; retention pruning sessions with their session memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UserTrustStore } from '../../src/server/core/review/userTrust';
import { KnowledgeCore, sessionsPath } from '../../src/server/core/knowledgeCore';
import { sessionFileName, sessionsDirOf } from '../../src/server/core/store/sessionStore';
import { SESSIONS_SCHEMA_VERSION } from '../../src/server/core/store/storeSchemas';
import type { StoreProblem } from '../../src/shared/schemas';
import { tempWorkspace } from '../helpers/tempWorkspace';

const worker = resolve(__dirname, '../helpers/storeWorker.ts');
const fixture = resolve(__dirname, '../fixtures/sessions-v1.json');

function runWorker(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', worker, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

function dirs(): { workspace: string; storage: string; index: string } {
  const d = tempWorkspace('sk-sessions-');
  const index = sessionsPath(d.storage, d.workspace);
  mkdirSync(dirname(index), { recursive: true });
  return { ...d, index };
}

function sessionFiles(index: string): string[] {
  const dir = sessionsDirOf(index);
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')) : [];
}

/** A version-1 store of `n` sessions, as the single-file store wrote it. */
function oldStore(n: number): Record<string, unknown> {
  const sessions: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const key = `sk-old-${i}`;
    sessions[key] = { key, createdAt: new Date(Date.now() - i * 60_000).toISOString(), project_context_pins: [`.knowledge/notes/n${i}.md`], knowledge_context_delivered: `v1:${i}`, deliveredAt: null, origin: 'chat', pinned_messages: [], results: [], extra: `keep ${i}` };
  }
  return { schemaVersion: 1, draftPins: ['.knowledge/notes/draft.md'], sessions };
}

test('a real old-format sessions.json is migrated on first open: every session in its own file, unknown fields kept, a backup left', async () => {
  const d = dirs();
  copyFileSync(fixture, d.index);
  const old = JSON.parse(readFileSync(fixture, 'utf8')) as { sessions: Record<string, Record<string, unknown>> };
  const problems: StoreProblem[] = [];
  const core = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage, onProblem: (p) => problems.push(p) });
  await core.load();
  assert.deepEqual(problems, []);
  const index = JSON.parse(readFileSync(d.index, 'utf8')) as Record<string, unknown>;
  assert.equal(index.schemaVersion, SESSIONS_SCHEMA_VERSION);
  assert.equal(index.sessions, undefined, 'the index no longer holds the sessions');
  assert.deepEqual(index.draftPins, ['.knowledge/notes/setup.md']);
  assert.deepEqual(index.fromANewerBuild, { kept: true }, 'unknown root fields stay in the index');
  assert.equal(readFileSync(`${d.index}.v1-backup`, 'utf8'), readFileSync(fixture, 'utf8'), 'the old file is kept, byte for byte');
  assert.equal(sessionFiles(d.index).length, 3);
  for (const [key, s] of Object.entries(old.sessions)) {
    const file = JSON.parse(readFileSync(join(sessionsDirOf(d.index), sessionFileName(key)), 'utf8')) as Record<string, unknown>;
    for (const [field, value] of Object.entries(s)) assert.deepEqual(file[field], value, `${key}.${field} survived`);
    const got = await core.sessionService.get(key);
    assert.deepEqual(got.project_context_pins, s.project_context_pins);
  }
  assert.equal((await core.stats()).sessions, 3);
  // The schedule's slot still claims once: the migrated session is found by its label.
  assert.deepEqual(await core.sessionService.claimScheduledRun('nightly summary', '2026-01-20T17:00', []), { claimed: false, key: 'sk-0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d' });
  // A second open changes nothing.
  const again = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage });
  await again.load();
  assert.equal((await again.sessionService.list()).length, 3);
});

test('a migration killed with SIGKILL halfway is completed by the next open, and nothing is lost', async () => {
  const d = dirs();
  const old = oldStore(200);
  writeFileSync(d.index, `${JSON.stringify(old, null, 2)}\n`);
  const killed = await runWorker(['migrate', d.storage, d.workspace, 'x', '97']);
  assert.equal(killed.signal, 'SIGKILL', `the worker was killed mid-migration: ${killed.stderr}`);
  assert.equal(sessionFiles(d.index).length, 97, 'it died after 97 of 200 session files');
  assert.ok((JSON.parse(readFileSync(d.index, 'utf8')) as { sessions?: object }).sessions, 'the old file is still whole and still holds every session');
  const problems: StoreProblem[] = [];
  const core = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage, onProblem: (p) => problems.push(p) });
  await core.load();
  assert.deepEqual(problems, []);
  const listed = await core.sessionService.list();
  assert.equal(listed.length, 200);
  for (const [key, s] of Object.entries(old.sessions as Record<string, Record<string, unknown>>)) {
    const got = listed.find((x) => x.key === key) as Record<string, unknown> | undefined;
    assert.ok(got, `${key} is there`);
    assert.equal(got.extra, s.extra);
    assert.deepEqual(got.project_context_pins, s.project_context_pins);
  }
  assert.deepEqual(await core.getDraftPins(), ['.knowledge/notes/draft.md']);
  assert.equal((JSON.parse(readFileSync(d.index, 'utf8')) as { sessions?: object }).sessions, undefined);
  assert.deepEqual(readdirSync(sessionsDirOf(d.index)).filter((n) => n.endsWith('.tmp')), [], 'no temp file of the killed writer is left');
});

test('a session write touches only that session file', async () => {
  const d = dirs();
  const core = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage });
  await core.load();
  const a = await core.sessionService.create({ label: 'a' });
  const b = await core.sessionService.create({ label: 'b' });
  const before = (p: string) => statSync(p, { bigint: true }).mtimeNs;
  const bPath = core.sessions.pathOf(b.key);
  const bTime = before(bPath);
  const indexTime = existsSync(d.index) ? before(d.index) : null;
  await core.sessionService.markDelivered(a.key, 'v1:aa');
  assert.equal(before(bPath), bTime, 'the other session file is untouched');
  assert.equal(existsSync(d.index) ? before(d.index) : null, indexTime, 'the index is untouched');
  assert.equal((JSON.parse(readFileSync(core.sessions.pathOf(a.key), 'utf8')) as { knowledge_context_delivered: string }).knowledge_context_delivered, 'v1:aa');
});

test('a malformed session file is set aside and reported; every other session still loads', async () => {
  const d = dirs();
  const core = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage });
  await core.load();
  const good = await core.sessionService.create({ label: 'good' });
  const bad = await core.sessionService.create({ label: 'bad' });
  writeFileSync(core.sessions.pathOf(bad.key), '{"key": "x", "createdAt": ');
  const problems: StoreProblem[] = [];
  const fresh = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage, onProblem: (p) => problems.push(p) });
  await fresh.load();
  const listed = await fresh.sessionService.list();
  assert.deepEqual(listed.map((s) => s.key), [good.key]);
  assert.equal(problems.length, 1);
  assert.ok(problems[0]!.setAsidePath && existsSync(problems[0]!.setAsidePath), 'the bytes are kept beside it');
  assert.match(problems[0]!.message, /malformed/);
  await assert.rejects(fresh.sessionService.get(bad.key), /Unknown session/);
});

test('two processes writing the same session lose nothing; writing different sessions they never conflict', async () => {
  const d = dirs();
  const core = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage });
  await core.load();
  const shared = await core.sessionService.create({ label: 'shared' });
  const [one, two] = await Promise.all([runWorker(['mark', d.storage, d.workspace, shared.key, '10']), runWorker(['mark', d.storage, d.workspace, shared.key, '10'])]);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(two.code, 0, two.stderr);
  const results = (await core.sessionService.get(shared.key)).results.map((r) => r.prompt);
  assert.equal(results.length, 20, 'every acknowledged write of both processes is there');
  const runs = await Promise.all([runWorker(['create', d.storage, d.workspace, 'p', '30']), runWorker(['create', d.storage, d.workspace, 'q', '30'])]);
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const labels = (await core.sessionService.list()).map((s) => s.label).filter((l) => l && /^[pq]-/.test(l));
  assert.equal(labels.length, 60);
});

test('retention removes sessions idle for N days, with their pins, delivery records and session memory; active ones stay', async () => {
  const d = dirs();
  const core = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: true, userTrust: new UserTrustStore(join(d.storage, '..', 'state', 'trust')) });
  await core.load();
  await core.memory!.configure({ on: true });
  const old = await core.sessionService.create({ label: 'old' });
  const fresh = await core.sessionService.create({ label: 'fresh' });
  await core.sessionService.markDelivered(old.key, 'v1:old');
  await core.memory!.remember({ scope: 'session', type: 'fact', title: 'old session note', sessionKey: old.key, source: 'human' });
  await core.memory!.remember({ scope: 'session', type: 'fact', title: 'fresh session note', sessionKey: fresh.key, source: 'human' });
  // Age the old session on disk: 100 days without activity.
  const path = core.sessions.pathOf(old.key);
  const aged = new Date(Date.now() - 100 * 86_400_000).toISOString();
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  writeFileSync(path, JSON.stringify({ ...raw, createdAt: aged, deliveredAt: aged, lastActivityAt: aged }));
  assert.deepEqual((await core.sessionService.prune(0)).pruned, [], '0 keeps everything');
  const out = await core.sessionService.prune(90);
  assert.deepEqual(out.pruned, [old.key]);
  assert.equal(out.memoryEntries, 1);
  assert.equal(existsSync(path), false, 'its file (pins, delivery record) is gone');
  await assert.rejects(core.sessionService.get(old.key), /Unknown session/);
  assert.equal((await core.sessionService.get(fresh.key)).label, 'fresh');
  const left = await core.memory!.list({ scope: 'session' });
  assert.deepEqual(left.entries.map((e) => e.title), ['fresh session note']);
});
