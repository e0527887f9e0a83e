/**
 * The panel's paged sessions list over the real server (`knowledge/sessions/page`): newest first, `limit` at a time,
 * the `next` cursor stable when a session is created between pages; a scheduled claim, a pin rename and retention
 * through the index, seen by a second server on the same store (another window); bad params refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseError } from 'vscode-languageserver-protocol';
import { ClaimScheduledRunRequest, CreateSessionRequest, ListSessionsPageRequest, ListSessionsRequest, RenamePinRequest } from '../../src/shared/protocol';
import { startRealServer } from '../helpers/serverConnection';
import { tempWorkspace } from '../helpers/tempWorkspace';

test('the real server pages sessions newest first with a stable cursor; a second server sees claims and renames through the index', async (t) => {
  const d = tempWorkspace('sk-spage-', { '.knowledge/notes/a.md': '# A\n', '.knowledge/notes/b.md': '# B\n' });
  const one = await startRealServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false });
  t.after(() => one.stop());
  const c = one.connection;
  const keys: string[] = [];
  for (let i = 0; i < 7; i++) {
    keys.push((await c.sendRequest(CreateSessionRequest.type, { label: `s${i}`, pins: i % 2 === 0 ? ['.knowledge/notes/a.md'] : [] })).key);
    await new Promise((r) => setTimeout(r, 3)); // distinct creation times
  }
  const first = await c.sendRequest(ListSessionsPageRequest.type, { limit: 3 });
  assert.deepEqual(first.sessions.map((s) => s.label), ['s6', 's5', 's4']);
  assert.equal(first.total, 7);
  assert.ok(first.next);
  await c.sendRequest(CreateSessionRequest.type, { label: 'late' });
  const second = await c.sendRequest(ListSessionsPageRequest.type, { limit: 3, cursor: first.next! });
  assert.deepEqual(second.sessions.map((s) => s.label), ['s3', 's2', 's1'], 'a session created between pages does not shift the next one');
  const third = await c.sendRequest(ListSessionsPageRequest.type, { limit: 3, cursor: second.next! });
  assert.deepEqual(third.sessions.map((s) => s.label), ['s0']);
  assert.equal(third.next, null);
  assert.deepEqual((await c.sendRequest(ListSessionsRequest.type)).map((s) => s.label), ['late', 's6', 's5', 's4', 's3', 's2', 's1', 's0'], 'the whole list agrees');
  await assert.rejects(c.sendRequest(ListSessionsPageRequest.type, { limit: 0 }), (err: unknown) => err instanceof ResponseError && /limit/.test(err.message));

  // Another window on the same store: its claim finds the schedule the first created; a rename made there reaches the sessions here.
  const claimed = await c.sendRequest(ClaimScheduledRunRequest.type, { name: 'nightly', slot: 'n1', pins: [] });
  assert.equal(claimed.claimed, true);
  const two = await startRealServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false });
  t.after(() => two.stop());
  assert.deepEqual(await two.connection.sendRequest(ClaimScheduledRunRequest.type, { name: 'nightly', slot: 'n1', pins: [] }), { claimed: false, key: claimed.key });
  assert.equal(await two.connection.sendRequest(RenamePinRequest.type, { oldId: '.knowledge/notes/a.md', newId: '.knowledge/notes/c.md' }), 4);
  const page = await c.sendRequest(ListSessionsPageRequest.type, { limit: 20 });
  assert.deepEqual(page.sessions.filter((s) => s.pins.includes('.knowledge/notes/c.md')).map((s) => s.label).sort(), ['s0', 's2', 's4', 's6']);
  assert.equal(page.total, 9);
});
