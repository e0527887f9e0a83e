/**
 * The language server (`startServer`, src/server/lsp/server.ts) in this process, over a pair of in-memory
 * streams framed as LSP frames them on stdio (Content-Length headers): the same routes, core, files on disk and
 * JSON-RPC as the bundled server, without a process to start (about a second each) or an IPC channel.
 *
 * What needs a process boundary stays on `startRealServer` (serverConnection.ts): the bundle itself
 * (dist/server.js and its data files), the transport (IPC, stdio), kill -9 and crashes, malformed frames, a
 * per-server environment (`SESSION_KNOWLEDGE_STATE_DIR`, `SESSION_KNOWLEDGE_USER`, test hooks) and the pid.
 * Here every server of a test file shares this process's environment, so its per-user state folder is the
 * file's own (isolatedState.ts), shared by the servers the file starts.
 */
import './isolatedState';
import { PassThrough } from 'node:stream';
import { createConnection, ProposedFeatures, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import { createMessageConnection } from 'vscode-languageserver-protocol/node';
import type { InitializeParams } from 'vscode-languageserver-protocol';
import type { InitializationOptions } from '../../src/shared/schemas';
import { startServer } from '../../src/server/lsp/server';
import { initializeClient, shutdownClient, type ConnectedServer } from './serverClient';

export type { ConnectedServer } from './serverClient';

/**
 * Starts a server in this process and initializes it with `options` (and `init`, fields of the `initialize`
 * params instead of the defaults). `stop()` sends `shutdown`, then closes both ends.
 */
export async function startInMemoryServer(options: InitializationOptions, init: Partial<InitializeParams> = {}): Promise<ConnectedServer> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const server = createConnection(ProposedFeatures.all, new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
  startServer(server);
  const connection = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  // No processId: the server would poll that process every 3 s to outlive it, and keep this one running.
  const problems = await initializeClient(connection, options, { processId: null, ...init });
  return {
    connection,
    problems,
    async stop() {
      // `shutdown` only: on `exit`, vscode-languageserver ends the process it runs in, this test's.
      await shutdownClient(connection, { exit: false });
      // What the server still sends (work under way when the test ended, as a process would finish before its
      // exit) is read and dropped: a closed stream would turn each late notification into an unhandled rejection.
      toClient.removeAllListeners('data');
      toClient.resume();
    },
  };
}

export { waitFor } from './waitFor';
