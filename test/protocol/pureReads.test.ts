/**
 * Issue 24, "reads are pure", over the real language server: resolving a session's block and the panel's view of the
 * sessions write nothing (the files stay byte-identical, `lastActivityAt` does not move), so retention still prunes a
 * session the panel showed; `lastActivityAt` moves on a message, a pin change or a delivery, not on a rename followed;
 * a first message costs at most 2 writes (3 when it takes over a next-chat draft) and at most 3 round trips, with the
 * block cut once by the model's own tokens per character.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempWorkspace } from '../helpers/tempWorkspace';
import { startRealServer } from '../helpers/serverConnection';
import { measureFirstMessage } from '../helpers/firstMessage';
import {
  CreateSessionRequest,
  GetSessionRequest,
  ListSessionsPageRequest,
  MarkDeliveredRequest,
  PruneSessionsRequest,
  RenamePinRequest,
  ResolvePendingRequest,
  UpdateSessionPinsRequest,
} from '../../src/shared/protocol';
import { sessionsPath } from '../../src/server/core/knowledgeCore';
import { sessionFileName, sessionsDirOf } from '../../src/server/core/store/sessionStore';

const NOTE = '.knowledge/notes/setup.md';
const PANEL_PAGE = 30; // MAX_SESSIONS of the panel (src/extension/panel/panelState.ts)

/** Every file of the workspace's store (sessions, index, journal): name → bytes and mtime. */
function snapshot(storeDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else out.set(path, `${st.mtimeMs}:${readFileSync(path, 'base64')}`);
    }
  };
  walk(storeDir);
  return out;
}

function setup(prefix: string) {
  const d = tempWorkspace(prefix, { [NOTE]: '# Setup\n\nRun `npm ci`, then `npm test`.\n', '.knowledge/notes/other.md': '# Other\n' });
  const index = sessionsPath(d.storage, d.workspace);
  const fileOf = (key: string) => join(sessionsDirOf(index), sessionFileName(key));
  const activityOf = (key: string) => (JSON.parse(readFileSync(fileOf(key), 'utf8')) as { lastActivityAt?: string }).lastActivityAt;
  /** Ages a session on disk: created, delivered and last active `days` ago. */
  const age = (key: string, days: number) => {
    const old = new Date(Date.now() - days * 86_400_000).toISOString();
    writeFileSync(fileOf(key), JSON.stringify({ ...JSON.parse(readFileSync(fileOf(key), 'utf8')), createdAt: old, deliveredAt: old, lastActivityAt: old }));
    return old;
  };
  return { d, storeDir: dirname(index), fileOf, activityOf, age };
}

test('resolving a block and a panel refresh write nothing: every store file stays byte-identical and lastActivityAt does not move', async (t) => {
  const { d, storeDir, activityOf } = setup('sk-pure-');
  const server = await startRealServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false });
  t.after(() => server.stop());
  const c = server.connection;
  const a = await c.sendRequest(CreateSessionRequest.type, { pins: [NOTE], origin: 'chat' });
  const b = await c.sendRequest(CreateSessionRequest.type, { pins: [NOTE], origin: 'api' });
  const first = await c.sendRequest(ResolvePendingRequest.type, { key: a.key });
  await c.sendRequest(MarkDeliveredRequest.type, { key: a.key, signature: first.signature });
  // The sessions' derived index is built at its first use in a store that has none (once, not per read).
  await c.sendRequest(ListSessionsPageRequest.type, { limit: PANEL_PAGE });
  await new Promise((r) => setTimeout(r, 300)); // a later write would show a later mtime
  const before = snapshot(storeDir);
  const stamped = activityOf(b.key);

  // The chat's resolve (with and without the model's ratio), /status, the meter's preview.
  for (const key of [a.key, b.key]) {
    await c.sendRequest(ResolvePendingRequest.type, { key });
    await c.sendRequest(ResolvePendingRequest.type, { key, budgetTokens: 1000, tokensPerChar: 0.5 });
  }
  // The panel's refresh: one page, every session on it resolved.
  const page = await c.sendRequest(ListSessionsPageRequest.type, { limit: PANEL_PAGE });
  assert.equal(page.sessions.length, 2);
  for (const s of page.sessions) await c.sendRequest(ResolvePendingRequest.type, { key: s.key, budgetTokens: 8000 });
  await c.sendRequest(GetSessionRequest.type, { key: b.key });
  await new Promise((r) => setTimeout(r, 300)); // a write the server did not await would land by now

  assert.deepEqual(snapshot(storeDir), before, 'no store file was written, renamed or touched');
  assert.equal(activityOf(b.key), stamped);
});

test('retention still prunes an idle session the panel shows (refreshing the panel is not activity)', async (t) => {
  const { d, age } = setup('sk-pure-retention-');
  const server = await startRealServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false });
  t.after(() => server.stop());
  const c = server.connection;
  const idle = await c.sendRequest(CreateSessionRequest.type, { pins: [NOTE], label: 'idle' });
  const busy = await c.sendRequest(CreateSessionRequest.type, { pins: [NOTE], label: 'busy' });
  age(idle.key, 100);
  // The panel refreshes a few times (each store change starts one): it lists the idle session and resolves it.
  for (let i = 0; i < 3; i++) {
    const page = await c.sendRequest(ListSessionsPageRequest.type, { limit: PANEL_PAGE });
    assert.ok(page.sessions.some((s) => s.key === idle.key), 'the panel shows the idle session');
    for (const s of page.sessions) await c.sendRequest(ResolvePendingRequest.type, { key: s.key, budgetTokens: 8000 });
  }
  await new Promise((r) => setTimeout(r, 300));
  const out = await c.sendRequest(PruneSessionsRequest.type, { olderThanDays: 90 });
  assert.deepEqual(out.pruned, [idle.key]);
  assert.equal((await c.sendRequest(GetSessionRequest.type, { key: busy.key })).label, 'busy');
});

test('lastActivityAt moves on a message, a pin change or a delivery; a rename followed keeps it', async (t) => {
  const { d, activityOf, age } = setup('sk-pure-activity-');
  const server = await startRealServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false });
  t.after(() => server.stop());
  const c = server.connection;
  const s = await c.sendRequest(CreateSessionRequest.type, { pins: [NOTE] });
  const recent = (key: string) => Date.now() - Date.parse(activityOf(key) ?? '') < 60_000;
  assert.ok(recent(s.key), 'created: a message');

  const old = age(s.key, 100);
  await c.sendRequest(RenamePinRequest.type, { oldId: NOTE, newId: '.knowledge/notes/setup-renamed.md' });
  assert.deepEqual((await c.sendRequest(GetSessionRequest.type, { key: s.key })).pins, ['.knowledge/notes/setup-renamed.md'], 'the pin followed the rename');
  assert.equal(activityOf(s.key), old, 'a rename followed is not activity');

  await c.sendRequest(UpdateSessionPinsRequest.type, { key: s.key, add: ['.knowledge/notes/other.md'] });
  assert.ok(recent(s.key), 'a pin change is activity');

  age(s.key, 100);
  await c.sendRequest(MarkDeliveredRequest.type, { key: s.key, signature: 'v1:abc' });
  assert.ok(recent(s.key), 'a delivery is activity');
});

test('a first message: at most 2 writes (create, record) and 3 round trips; 3 writes when it takes over a next-chat draft', async () => {
  const direct = await measureFirstMessage({ modelCharsPerToken: 4, budgetTokens: 8000, noteChars: 2000, draft: false });
  assert.ok(direct.delivered);
  assert.ok(direct.writes <= 2, `${direct.writes} writes: ${direct.renamed.join(', ')}`);
  assert.ok(direct.roundTrips <= 3, direct.methods.join(', '));

  // Pinned to the next chat first: the session takes the draft over, and the draft (sessions.json) is emptied.
  const drafted = await measureFirstMessage({ modelCharsPerToken: 4, budgetTokens: 8000, noteChars: 2000, draft: true });
  assert.ok(drafted.delivered);
  assert.ok(drafted.writes <= 3, `${drafted.writes} writes: ${drafted.renamed.join(', ')}`);
  assert.ok(drafted.roundTrips <= 3, drafted.methods.join(', '));
});

test("a model that counts twice the server's estimate: the block is cut once, to the budget by the model's own count", async () => {
  const dense = await measureFirstMessage({ modelCharsPerToken: 2, budgetTokens: 1000, noteChars: 3000, draft: true });
  assert.deepEqual(dense.methods, ['knowledge/sessions/create', 'knowledge/delivery/resolvePending', 'knowledge/delivery/markDelivered'], 'one resolve');
  assert.ok(dense.blockChars > 0 && Math.ceil(dense.blockChars / 2) <= 1000, `the block fits by the model's count (${dense.blockChars} characters)`);
  assert.match(dense.blockText, /Cut to fit the 1000-token budget/);
});

test("a model whose ratio moved since it was measured: the block is resolved once more at the ratio it just counted, and fits", async () => {
  // The sample shaped like a block counts 4 characters a token; the block itself counts 2.
  const model = { id: 'shifting', countTokens: async (text: string) => Math.ceil(text.length / (text.includes('0f3a9c2e71d4b6a8e5c1f0d2') ? 4 : 2)) };
  const run = await measureFirstMessage({ modelCharsPerToken: 2, budgetTokens: 1000, noteChars: 3000, draft: false, model });
  assert.deepEqual(run.methods, ['knowledge/sessions/create', 'knowledge/delivery/resolvePending', 'knowledge/delivery/resolvePending', 'knowledge/delivery/markDelivered']);
  assert.ok(Math.ceil(run.blockChars / 2) <= 1000, `the block fits by the model's count (${run.blockChars} characters)`);
});
