/** Starts the real bundled language server (`dist/server.js`) as a child process over IPC, like the client does. */
import './isolatedState';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { IPCMessageReader, IPCMessageWriter, createMessageConnection } from 'vscode-languageserver-protocol/node';
import type { InitializeParams } from 'vscode-languageserver-protocol';
import type { InitializationOptions } from '../../src/shared/schemas';
import { initializeClient, shutdownClient, type ConnectedServer } from './serverClient';

/**
 * For what needs a process boundary (the bundle, IPC, the pid, kill -9, a per-server environment); a test that
 * needs none of it runs the server in its own process instead (`startInMemoryServer`, inMemoryServer.ts).
 */
export interface RunningServer extends ConnectedServer {
  child: ChildProcess;
  /** The last 16 KiB the server wrote to stderr. */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * `env`: added to this process's environment for the server (test hooks, e.g. `SK_TEST_HOOKS`, `SK_TEST_SLOW_MS`);
 * `init`: fields of the `initialize` params to send instead of the defaults (client capabilities, workspace folders).
 * The per-user state folder (this person's trust record) is isolated: beside the storage folder unless `env` names one,
 * so a restart over the same storage keeps it, and no test writes the machine's real one.
 * `serverJs`: another copy of the bundle to run (default dist/server.js), e.g. one whose data files were taken away.
 */
export async function startRealServer(options: InitializationOptions, env: Record<string, string> = {}, init: Partial<InitializeParams> = {}, serverJs: string = resolve(__dirname, '../../dist/server.js')): Promise<RunningServer> {
  const state = env.SESSION_KNOWLEDGE_STATE_DIR ?? (options?.globalStoragePath ? join(dirname(options.globalStoragePath), 'sk-state') : mkdtempSync(join(tmpdir(), 'sk-state-')));
  const child = fork(serverJs, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, SESSION_KNOWLEDGE_STATE_DIR: state, ...env } });
  // Read stderr as VS Code's client does: an unread pipe fills up (64 KiB) and then blocks the server's writes.
  let stderrTail = '';
  child.stderr?.on('data', (d: Buffer) => (stderrTail = (stderrTail + d.toString('utf8')).slice(-16_384)));
  const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  const problems = await initializeClient(connection, options, init);
  return {
    connection,
    child,
    problems,
    stderr: () => stderrTail,
    async stop() {
      await shutdownClient(connection);
      if (child.exitCode === null) {
        await new Promise((r) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            r(undefined);
          }, 2_000);
          child.once('exit', () => {
            clearTimeout(timer);
            r(undefined);
          });
        });
      }
    },
  };
}

export { waitFor } from './waitFor';
