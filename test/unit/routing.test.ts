/**
 * `route` over two cross-wired in-memory streams: params are validated with the declaration's own schema
 * (absent params read as `{}`), and what a handler throws reaches the client with the right code and reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createConnection } from 'vscode-languageserver/node';
import { createMessageConnection, ErrorCodes, ResponseError, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';
import { CreateItemRequest, GetSessionRequest, ListItemsRequest, StatsRequest } from '../../src/shared/protocol';
import { MemoryReadRequest } from '../../src/shared/memoryProtocol';
import type { Stats } from '../../src/shared/schemas';
import { route, SESSION_ERROR_CODE } from '../../src/server/lsp/routing';
import { SessionError } from '../../src/server/core/delivery/sessionService';
import { MEMORY_ERROR_CODE, MemoryError } from '../../src/server/core/memory/errors';

function connect() {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const server = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
  const client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  const logged: string[] = [];
  client.onNotification('window/logMessage', (m: { message: string }) => void logged.push(m.message));
  return { server, client, logged, close: () => (client.dispose(), server.dispose()) };
}

async function rejection(promise: Promise<unknown>): Promise<ResponseError<{ reason?: string } | undefined>> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ResponseError, String(err));
    return err as ResponseError<{ reason?: string } | undefined>;
  }
  assert.fail('expected the request to fail');
}

test('a route validates params with its declaration and maps what its handler throws', async (t) => {
  const { server, client, logged, close } = connect();
  t.after(close);
  const stats: Stats = { workspaceFolder: null, notes: 1, plans: 0, sessions: 0, draftPins: 0, stores: [], problems: [] };
  const seen: unknown[] = [];
  route(server, ListItemsRequest, (p) => {
    seen.push(p);
    if (p.kind === 'plan') throw new Error('disk on fire');
    return [];
  });
  route(server, CreateItemRequest, (p) => ({ id: `.knowledge/notes/${p.title}.md`, kind: p.kind, title: p.title, revision: 'r', size: 0, path: '/x', flaggedRules: [] }));
  route(server, StatsRequest, () => stats);
  route(server, GetSessionRequest, (p) => {
    throw new SessionError('unknown-session', `Unknown session ${p.key}.`);
  });
  route(server, MemoryReadRequest, () => {
    throw new MemoryError('not-found', 'No such entry.');
  });
  server.listen();
  client.listen();

  assert.equal((await client.sendRequest(CreateItemRequest.type, { kind: 'note', title: ' a ' })).title, 'a', 'handlers get the parsed params');
  const invalid = await rejection(client.sendRequest(CreateItemRequest.method, { kind: 'poem', title: 'x' }));
  assert.equal(invalid.code, ErrorCodes.InvalidParams);
  assert.match(invalid.message, /^Invalid params at kind/);

  assert.deepEqual(await client.sendRequest(ListItemsRequest.method), [], 'absent params read as {}');
  assert.deepEqual(seen, [{}]);

  assert.deepEqual(await client.sendRequest(StatsRequest.type), stats);
  assert.deepEqual(await client.sendRequest(StatsRequest.method, {}), stats);
  assert.equal((await rejection(client.sendRequest(StatsRequest.method, { kind: 'note' }))).code, ErrorCodes.InvalidParams, 'a no-param request refuses params');

  const session = await rejection(client.sendRequest(GetSessionRequest.type, { key: 'gone' }));
  assert.deepEqual([session.code, session.message, session.data?.reason], [SESSION_ERROR_CODE, 'Unknown session gone.', 'unknown-session']);
  const memory = await rejection(client.sendRequest(MemoryReadRequest.type, { id: 'm1' }));
  assert.deepEqual([memory.code, memory.data?.reason], [MEMORY_ERROR_CODE, 'not-found']);
  const internal = await rejection(client.sendRequest(ListItemsRequest.type, { kind: 'plan' }));
  assert.deepEqual([internal.code, internal.message], [ErrorCodes.InternalError, 'disk on fire']);
  assert.ok(logged.some((m) => m.includes('handler failed') && m.includes('disk on fire')), 'an unexpected error is logged with its stack');
});
