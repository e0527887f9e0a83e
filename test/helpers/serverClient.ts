/**
 * The client side every protocol test speaks, whatever carries it (a child process over IPC in
 * `serverConnection.ts`, in-memory streams in `inMemoryServer.ts`): collect problems, `initialize` +
 * `initialized` with our options, and `shutdown` + `exit` at the end.
 */
import type { MessageConnection } from 'vscode-languageserver-protocol/node';
import { InitializeRequest, InitializedNotification, ShutdownRequest, ExitNotification, type InitializeParams } from 'vscode-languageserver-protocol';
import type { InitializationOptions, StoreProblem } from '../../src/shared/schemas';
import { ProblemNotification } from '../../src/shared/protocol';

/** A language server a test talks to, over whatever transport. */
export interface ConnectedServer {
  connection: MessageConnection;
  problems: StoreProblem[];
  stop(): Promise<void>;
}

/**
 * Listens on `connection` and initializes the server as the extension does (`init`: fields of the `initialize`
 * params to send instead of the defaults). Answers the problems the server reports as it goes.
 */
export async function initializeClient(connection: MessageConnection, options: InitializationOptions, init: Partial<InitializeParams>): Promise<StoreProblem[]> {
  const problems: StoreProblem[] = [];
  connection.onNotification(ProblemNotification.type, (p) => {
    problems.push(p);
  });
  connection.onNotification('window/logMessage', () => undefined);
  connection.listen();
  await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
    initializationOptions: options,
    workspaceFolders: null,
    ...init,
  });
  await connection.sendNotification(InitializedNotification.type, {});
  return problems;
}

/**
 * `shutdown` then `exit`, as a client ends a session; a server already gone is not an error. Disposes `connection`.
 * `exit: false` for a server in this process: vscode-languageserver ends the process on `exit`, whatever handler is set.
 */
export async function shutdownClient(connection: MessageConnection, { exit = true } = {}): Promise<void> {
  try {
    await connection.sendRequest(ShutdownRequest.type);
    if (exit) await connection.sendNotification(ExitNotification.type);
  } catch {
    /* already gone */
  }
  connection.dispose();
}
