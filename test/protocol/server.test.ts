import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempWorkspace } from '../helpers/tempWorkspace';
import { writeFileSync, renameSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DidChangeWatchedFilesNotification, FileChangeType, ResponseError, ErrorCodes } from 'vscode-languageserver-protocol';
import {
  CreateItemRequest,
  GetDraftPinsRequest,
  ItemsChangedNotification,
  ListItemsRequest,
  UpdateDraftPinsRequest,
  StatsRequest,
  StatusRequest,
  StoreChangedNotification,
} from '../../src/shared/protocol';
import { MemoryChangedNotification, MemoryConfigureRequest } from '../../src/shared/memoryProtocol';
import { sessionsPath } from '../../src/server/core/knowledgeCore';
// Tests about the server process (its pid, that it stays up, a restart) run the bundle over IPC; the others the
// same server in this process, over in-memory streams.
import { startRealServer } from '../helpers/serverConnection';
import { startInMemoryServer, waitFor } from '../helpers/inMemoryServer';

const dirs = () => tempWorkspace('sk-proto-');

test('the real server indexes notes and plans and answers knowledge/ requests over IPC', async (t) => {
  const { workspace, storage } = dirs();
  writeFileSync(join(workspace, '.knowledge/notes/setup.md'), '# Setup\n');
  writeFileSync(join(workspace, '.knowledge/plans/launch.md'), '# Launch plan\n');
  const server = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: false });
  t.after(() => server.stop());
  const { connection } = server;

  const status = await connection.sendRequest(StatusRequest.type);
  assert.equal(status.pid, server.child.pid);
  assert.equal(status.workspaceFolder, workspace);

  const items = await waitFor(async () => {
    const list = await connection.sendRequest(ListItemsRequest.type, {});
    return list.length === 2 ? list : undefined;
  }, 'the initial index', 5_000);
  assert.deepEqual(items?.map((i) => [i.id, i.title]), [
    ['.knowledge/notes/setup.md', 'Setup'],
    ['.knowledge/plans/launch.md', 'Launch plan'],
  ]);
  assert.deepEqual((await connection.sendRequest(ListItemsRequest.type, { kind: 'plan' })).map((i) => i.id), ['.knowledge/plans/launch.md']);

  const created = await connection.sendRequest(CreateItemRequest.type, { kind: 'note', title: 'Coding conventions' });
  assert.equal(created.id, '.knowledge/notes/coding-conventions.md');
  assert.equal(readFileSync(join(workspace, created.id), 'utf8'), '# Coding conventions\n\n');

  const stats = await connection.sendRequest(StatsRequest.type);
  assert.equal(stats.notes, 2);
  assert.equal(stats.plans, 1);
  assert.deepEqual(stats.problems, []);
});

test('invalid params answer InvalidParams; a handler that throws answers an error and the server stays up', async (t) => {
  const { workspace, storage } = dirs();
  rmSync(join(workspace, '.knowledge/plans'), { recursive: true });
  writeFileSync(join(workspace, '.knowledge/plans'), 'a file where a folder should be');
  const server = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: false });
  t.after(() => server.stop());
  const { connection } = server;

  await assert.rejects(
    connection.sendRequest(CreateItemRequest.method, { kind: 'poem', title: 'x' }),
    (err: unknown) => err instanceof ResponseError && err.code === ErrorCodes.InvalidParams && /kind/.test(err.message),
  );
  await assert.rejects(
    connection.sendRequest(UpdateDraftPinsRequest.method, { add: 'not-a-list' }),
    (err: unknown) => err instanceof ResponseError && err.code === ErrorCodes.InvalidParams,
  );
  await assert.rejects(
    connection.sendRequest(CreateItemRequest.type, { kind: 'plan', title: 'Roadmap' }),
    (err: unknown) => err instanceof ResponseError && err.code === ErrorCodes.InternalError && /ENOTDIR|EEXIST|not a directory/i.test(err.message),
  );
  // Still serving.
  const status = await connection.sendRequest(StatusRequest.type);
  assert.equal(status.pid, server.child.pid);
  assert.equal(server.child.exitCode, null);
});

test('files created, edited, renamed and deleted outside the extension reach the index and are announced', async (t) => {
  const { workspace, storage } = dirs();
  const server = await startInMemoryServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: false });
  t.after(() => server.stop());
  const { connection } = server;
  const announced: string[][] = [];
  connection.onNotification(ItemsChangedNotification.type, (p) => {
    announced.push(p.ids);
  });
  const list = () => connection.sendRequest(ListItemsRequest.type, {});
  const notify = (path: string, type: FileChangeType) =>
    connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: pathToFileURL(path).href, type }] });

  const a = join(workspace, '.knowledge/notes/a.md');
  writeFileSync(a, '# Alpha\n');
  await notify(a, FileChangeType.Created);
  await waitFor(async () => (await list()).some((i) => i.title === 'Alpha'), 'created note', 5_000);

  writeFileSync(a, '# Alpha, edited\n');
  await notify(a, FileChangeType.Changed);
  await waitFor(async () => (await list()).some((i) => i.title === 'Alpha, edited'), 'edited note', 5_000);

  const b = join(workspace, '.knowledge/notes/b.md');
  renameSync(a, b);
  await notify(a, FileChangeType.Deleted);
  await notify(b, FileChangeType.Created);
  await waitFor(async () => {
    const ids = (await list()).map((i) => i.id);
    return ids.length === 1 && ids[0] === '.knowledge/notes/b.md';
  }, 'renamed note', 5_000);

  rmSync(b);
  await notify(b, FileChangeType.Deleted);
  await waitFor(async () => (await list()).length === 0, 'deleted note', 5_000);
  await waitFor(() => announced.flat().includes('.knowledge/notes/b.md'), 'the announcement', 2_000);
  assert.ok(announced.flat().includes('.knowledge/notes/a.md'), 'changes were announced to the client by id');
});

test('draft pins persist across a server restart; a malformed store is set aside and reported with its path', async () => {
  const { workspace, storage } = dirs();
  writeFileSync(join(workspace, '.knowledge/notes/keep.md'), '# Keep\n');
  const first = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: false });
  writeFileSync(join(workspace, '.env'), 'API_TOKEN=do-not-pin');
  const result = await first.connection.sendRequest(UpdateDraftPinsRequest.type, { add: ['.knowledge/notes/keep.md', '.env', '../../etc/passwd'] });
  assert.deepEqual(result.pins, ['.knowledge/notes/keep.md']);
  assert.deepEqual(result.refused.map((r) => r.pin), ['.env', '../../etc/passwd']);
  assert.match(result.refused[0]!.reason, /secret/);
  assert.match(result.refused[1]!.reason, /outside the workspace/);
  await first.stop();

  const second = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: false });
  assert.deepEqual(await second.connection.sendRequest(GetDraftPinsRequest.type), ['.knowledge/notes/keep.md']);
  await second.stop();

  writeFileSync(sessionsPath(storage, workspace), '{ this is not json');
  const third = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: false });
  try {
    await waitFor(() => third.problems.length > 0, 'a problem notification', 5_000);
    const problem = third.problems[0]!;
    assert.ok(problem.setAsidePath && existsSync(problem.setAsidePath));
    assert.equal(readFileSync(problem.setAsidePath, 'utf8'), '{ this is not json');
    const items = await third.connection.sendRequest(ListItemsRequest.type, {});
    assert.deepEqual(items.map((i) => i.id), ['.knowledge/notes/keep.md'], 'the notes still load');
    const stats = await third.connection.sendRequest(StatsRequest.type);
    assert.equal(stats.problems.length, 1);
  } finally {
    await third.stop();
  }
});

test('change notifications carry an object, so a client declaring them gets no "defines 0 params" error', async (t) => {
  const { workspace, storage } = dirs();
  writeFileSync(join(workspace, '.knowledge/notes/setup.md'), '# Setup\n');
  const server = await startInMemoryServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: true });
  t.after(() => server.stop());
  const { connection } = server;
  // By method name, the raw arguments arrive as sent: `[null]` (positional) before the fix, `{}` after it.
  const received: Record<string, unknown[][]> = { store: [], memory: [] };
  connection.onNotification(StoreChangedNotification.method, (...args: unknown[]) => void received.store!.push(args));
  connection.onNotification(MemoryChangedNotification.method, (...args: unknown[]) => void received.memory!.push(args));
  await connection.sendRequest(UpdateDraftPinsRequest.type, { add: ['.knowledge/notes/setup.md'] });
  await connection.sendRequest(MemoryConfigureRequest.type, { on: true, readonly: false, caps: { session: 10, project: 10, personal: 10 }, maxAgeDays: 0, supersedeThreshold: 0.85, indexBudgetTokens: 2000 });
  await waitFor(async () => received.store!.length > 0 && received.memory!.length > 0, 'both notifications', 5_000);
  for (const args of [...received.store!, ...received.memory!]) assert.deepEqual(args, [{}]);
});
