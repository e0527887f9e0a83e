/**
 * Hostile messages to every request the real language server declares: no crash, no change on invalid input,
 * a clear error each time (see test/helpers/hostileServer.ts for what each part checks). A seeded sample
 * here; `npm run bench` sends the full 10,000. Replay a failure with the seed it prints:
 * `SK_FUZZ_SEED=<seed> node --import tsx --test test/protocol/hostileServer.test.ts`.
 */
import { ErrorCodes } from 'vscode-languageserver-protocol';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzCount, fuzzSeed } from '../helpers/hostile';
import { runServerCampaign } from '../helpers/hostileServer';
import type { ResponseError } from 'vscode-languageserver-protocol';
import { startRealServer } from '../helpers/serverConnection';
import { tempWorkspace } from '../helpers/tempWorkspace';
import {
  DeleteSessionRequest, GetSessionRequest, ListSessionsRequest, MarkDeliveredRequest, NotifyCompactedRequest, ResolvePendingRequest,
  SetPinnedMessagesRequest, SetSessionPinsRequest, StatusRequest, UpdateSessionPinsRequest,
} from '../../src/shared/protocol';
import { MemoryApproveRequest, MemoryConfigureRequest, MemoryForgetRequest, MemoryReadRequest } from '../../src/shared/memoryProtocol';

test('hostile messages to every language-server request: InvalidParams naming the field, files unchanged, the server keeps answering', { timeout: 120_000 }, async (t) => {
  const seed = fuzzSeed();
  t.diagnostic(`seed ${seed} (replay: SK_FUZZ_SEED=${seed})`);
  const r = await runServerCampaign({ seed, invalid: fuzzCount('SK_FUZZ_INVALID', 10_000), valid: fuzzCount('SK_FUZZ_VALID', 300), raw: fuzzCount('SK_FUZZ_RAW', 300) });
  const line = `${r.invalid + r.valid + r.raw} hostile messages to ${r.requests} requests (seed ${r.seed}): ${r.invalid} invalid (≥ ${r.minPerRequest} per request) → InvalidParams naming the field, files byte-identical; ${r.valid} schema-valid → ${r.validAnswered} answered, ${r.validRefused} refused (typed ${JSON.stringify(r.reasons)}, untyped InternalError ${JSON.stringify(r.untyped)}), 0 programming errors; ${r.raw} raw JSON-RPC → server still up; ${(r.ms / 1000).toFixed(1)} s`;
  t.diagnostic(line);
  console.log(`[hostile-server] ${line}`);
  assert.ok(r.minPerRequest > 0, 'every request received invalid messages');
});

test('a session key or entry id that names an Object.prototype member is unknown, and pollutes nothing', async (t) => {
  const { workspace, storage } = tempWorkspace('sk-proto-keys-', { '.knowledge/notes/a.md': '# A\n' });
  const server = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: true });
  t.after(() => server.stop());
  const c = server.connection;
  await c.sendRequest(MemoryConfigureRequest.type, { on: true });
  const wrong: string[] = [];
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
    const calls: [string, () => Promise<unknown>][] = [
      ['sessions/get', () => c.sendRequest(GetSessionRequest.type, { key: name })],
      ['delivery/resolvePending', () => c.sendRequest(ResolvePendingRequest.type, { key: name })],
      ['delivery/markDelivered', () => c.sendRequest(MarkDeliveredRequest.type, { key: name, signature: 'v1:polluted' })],
      ['sessions/setPins', () => c.sendRequest(SetSessionPinsRequest.type, { key: name, pins: [] })],
      ['sessions/updatePins', () => c.sendRequest(UpdateSessionPinsRequest.type, { key: name })],
      ['sessions/setPinnedMessages', () => c.sendRequest(SetPinnedMessagesRequest.type, { key: name, messages: ['polluted'] })],
      ['delivery/notifyCompacted', () => c.sendRequest(NotifyCompactedRequest.type, { key: name })],
      ['sessions/delete', () => c.sendRequest(DeleteSessionRequest.type, { key: name })],
      ['memory/read', () => c.sendRequest(MemoryReadRequest.type, { id: name })],
      ['memory/approve', () => c.sendRequest(MemoryApproveRequest.type, { id: name })],
      ['memory/forget', () => c.sendRequest(MemoryForgetRequest.type, { id: name })],
    ];
    for (const [what, call] of calls) {
      try {
        const result = await call();
        if (result !== null && what !== 'sessions/delete') wrong.push(`${what} ${name}: answered ${JSON.stringify(result).slice(0, 120)}`);
      } catch (err) {
        const reason = (err as ResponseError<{ reason?: string }>).data?.reason;
        // Refused as a bad key (the schema knows prototype names) or answered "unknown"/"not found": both fine.
        const refusedKey = (err as ResponseError<unknown>).code === ErrorCodes.InvalidParams && /at key: not a session key/.test((err as Error).message);
        if (reason !== 'unknown-session' && reason !== 'not-found' && !refusedKey) wrong.push(`${what} ${name}: ${(err as ResponseError<unknown>).code} ${(err as Error).message}`);
      }
      // Nothing may leak into Object.prototype in the server: every later request would be refused.
      const status = await c.sendRequest(StatusRequest.type).catch((err: unknown) => (err as Error).message);
      if (typeof status === 'string') assert.fail(`after ${what} ${name} the server refuses everything (${status}); before that: ${wrong.join(' | ')}`);
    }
  }
  assert.deepEqual(wrong, [], 'each answers "unknown session" / "not found" / "not a session key"');
  assert.deepEqual((await c.sendRequest(ListSessionsRequest.type)).map((s) => s.key), [], 'no session was created under a prototype name');
});

// vscode-jsonrpc reads `message.params.id` of a `$/cancelRequest` outside its try/catch, so the uncaught TypeError
// ended the server process; src/server/lsp/serverMain.ts drops such a message before it gets there.
test('a $/cancelRequest without params does not take the server down', async (t) => {
  const { workspace, storage } = tempWorkspace('sk-cancel-');
  const server = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: false });
  t.after(() => server.stop());
  const exited = new Promise<never>((_, reject) => server.child.once('exit', (code) => reject(new Error(`the server exited (code ${code})`))));
  server.child.send({ jsonrpc: '2.0', method: '$/cancelRequest', params: null });
  server.child.send({ jsonrpc: '2.0', method: '$/cancelRequest' });
  const status = await Promise.race([server.connection.sendRequest(StatusRequest.type), exited]);
  assert.equal(status.pid, server.child.pid);
});
