/**
 * Issue 27, "the session has a name", over the real language server: the name is stored with the session and
 * answered as `name` by every session read (get, list, page); a session stored without one — a file written before
 * sessions had names, old single-file stores included — is read as it was and named by when and how it started,
 * never by its key; `knowledge/sessions/name` names an unnamed session once (a chat opened by a command takes its
 * first prompt's name), keeps a name once given (a scheduled run's name is how its schedule finds it), is not
 * activity, survives a restart, and refuses bad params.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ClaimScheduledRunRequest, CreateSessionRequest, GetSessionRequest, ListSessionsPageRequest, ListSessionsRequest, NameSessionRequest } from '../../src/shared/protocol';
import { sessionsPath } from '../../src/server/core/knowledgeCore';
import { sessionFileName, sessionsDirOf } from '../../src/server/core/store/sessionStore';
import { fallbackSessionName, nameFromPrompt, sessionName } from '../../src/shared/sessionNames';
import { startRealServer } from '../helpers/serverConnection';
import { tempWorkspace } from '../helpers/tempWorkspace';

test("a session's name is stored with it and answered by every read; one stored without a name gets a fallback, never its key", async (t) => {
  const d = tempWorkspace('sk-names-', { '.knowledge/notes/a.md': '# A\n' });
  const index = sessionsPath(d.storage, d.workspace);
  // An old single-file store (version 1), written before sessions had names.
  mkdirSync(dirname(index), { recursive: true });
  const oldKey = 'sk-6543996';
  const oldAt = '2026-03-04T05:06:00.000Z';
  writeFileSync(index, JSON.stringify({ schemaVersion: 1, draftPins: [], sessions: { [oldKey]: { key: oldKey, createdAt: oldAt, project_context_pins: [], knowledge_context_delivered: null, deliveredAt: null, origin: 'chat', pinned_messages: [], results: [] } } }));

  let server = await startRealServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false });
  t.after(() => server.stop());
  let c = server.connection;

  const old = await c.sendRequest(GetSessionRequest.type, { key: oldKey });
  assert.equal(old.label, undefined, 'the old file is read as it was');
  assert.equal(old.name, fallbackSessionName({ createdAt: oldAt, origin: 'chat' }));
  assert.match(old.name, /^Chat of \d{4}-\d\d-\d\d \d\d:\d\d$/);
  assert.ok(!old.name.includes(oldKey), 'the key is not the name');

  const named = await c.sendRequest(CreateSessionRequest.type, { origin: 'chat', label: nameFromPrompt('  How do we\n format   code in this repository, and why tabs?') });
  assert.equal(named.name, 'How do we format code in this…');
  const unnamed = await c.sendRequest(CreateSessionRequest.type, { origin: 'chat' });
  assert.match(unnamed.name, /^Chat of /);
  const api = await c.sendRequest(CreateSessionRequest.type, { origin: 'api' });
  assert.match(api.name, /^Session of /);

  // A chat opened by a command is named by its first prompt; a name once given stays.
  const activity = () => (JSON.parse(readFileSync(join(sessionsDirOf(index), sessionFileName(unnamed.key)), 'utf8')) as { lastActivityAt?: string }).lastActivityAt;
  const before = activity();
  await new Promise((r) => setTimeout(r, 5));
  assert.equal((await c.sendRequest(NameSessionRequest.type, { key: unnamed.key, name: 'Why is CI red?' })).name, 'Why is CI red?');
  assert.equal(activity(), before, 'naming is bookkeeping, not activity');
  assert.equal((await c.sendRequest(NameSessionRequest.type, { key: unnamed.key, name: 'A later prompt' })).name, 'Why is CI red?', 'the first name stays');
  assert.equal((await c.sendRequest(NameSessionRequest.type, { key: named.key, name: 'Another' })).name, 'How do we format code in this…');
  // A scheduled run keeps its schedule's name (its schedule finds it by that name).
  const claim = await c.sendRequest(ClaimScheduledRunRequest.type, { name: 'nightly', slot: 's1', pins: [] });
  await c.sendRequest(NameSessionRequest.type, { key: claim.key, name: 'hijack' });
  assert.equal((await c.sendRequest(GetSessionRequest.type, { key: claim.key })).name, 'nightly');
  assert.equal((await c.sendRequest(ClaimScheduledRunRequest.type, { name: 'nightly', slot: 's2', pins: [] })).key, claim.key);

  await assert.rejects(c.sendRequest(NameSessionRequest.type, { key: 'sk-none', name: 'x' }), /Unknown session/);
  await assert.rejects(c.sendRequest(NameSessionRequest.type, { key: unnamed.key, name: '   ' }), /name/);
  await assert.rejects(c.sendRequest(NameSessionRequest.type, { key: unnamed.key, name: 'x'.repeat(201) }), /name/);

  // Every read answers the name: the list, the panel's page — and a restarted server, from the files.
  const expect = new Map([
    [oldKey, old.name],
    [named.key, 'How do we format code in this…'],
    [unnamed.key, 'Why is CI red?'],
    [api.key, api.name],
    [claim.key, 'nightly'],
  ]);
  const check = async (label: string) => {
    const list = await c.sendRequest(ListSessionsRequest.type);
    const page = await c.sendRequest(ListSessionsPageRequest.type, { limit: 10 });
    for (const s of [...list, ...page.sessions]) assert.equal(s.name, expect.get(s.key), `${label}: ${s.key}`);
    assert.equal(page.sessions.length, expect.size);
  };
  await check('first server');
  await server.stop();
  server = await startRealServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false });
  c = server.connection;
  await check('after a restart');
});

test('names from prompts: one line, spaces collapsed, cut at a word near 40 characters with an ellipsis; empty prompts give none; the fallback names when and how', () => {
  assert.equal(nameFromPrompt('Fix the flaky test'), 'Fix the flaky test');
  assert.equal(nameFromPrompt('  line one\n\n\tline two  '), 'line one line two');
  assert.equal(nameFromPrompt(' \n '), undefined);
  const long = nameFromPrompt('Please explain the session store and how its journal is rebuilt after a crash');
  assert.ok(long && long.length <= 40 && long.endsWith('…'), long);
  assert.equal(long, 'Please explain the session store and…');
  const word = nameFromPrompt('x'.repeat(80));
  assert.equal(word, `${'x'.repeat(39)}…`, 'one long word is cut where it must be');
  assert.equal(sessionName({ label: '  ', createdAt: '2026-01-02T03:04:05Z', origin: 'schedule' }).startsWith('Scheduled run of '), true);
  assert.equal(sessionName({ createdAt: 'not a date' }), 'Chat without a name');
  assert.equal(sessionName({ label: 'Kept', createdAt: 'x' }), 'Kept');
});
