/**
 * Starts the built CLI's language server over stdio (`node dist/cli.js lsp --stdio`), as any LSP client does
 * (Neovim, Helix, Emacs). The caller sends `initialize` itself: this is about what a standard one does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { StreamMessageReader, StreamMessageWriter, createMessageConnection, type MessageConnection } from 'vscode-languageserver-protocol/node';
import { ExitNotification, ShutdownRequest } from 'vscode-languageserver-protocol';

export const CLI = resolve(__dirname, '../../dist/cli.js');

export interface StdioServer {
  connection: MessageConnection;
  child: ChildProcess;
  /** Whatever reached stdout that the protocol reader refused (nothing, when the server keeps stdout clean). */
  readerErrors: string[];
  /** The last 16 KiB the server wrote to stderr. */
  stderr(): string;
  /** The exit code once the process has ended. */
  exited: Promise<number | null>;
  /** shutdown + exit, then waits for the process (SIGKILL after 5 s). */
  stop(): Promise<number | null>;
}

/** `env`: added to this process's environment (e.g. `SESSION_KNOWLEDGE_STORAGE`, so nothing lands in the real home). */
export function startStdioServer(env: Record<string, string>): StdioServer {
  const child = spawn(process.execPath, [CLI, 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderrTail = '';
  child.stderr!.on('data', (d: Buffer) => (stderrTail = (stderrTail + d.toString('utf8')).slice(-16_384)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const reader = new StreamMessageReader(child.stdout!);
  const readerErrors: string[] = [];
  reader.onError((e) => readerErrors.push(e.message));
  const connection = createMessageConnection(reader, new StreamMessageWriter(child.stdin!));
  connection.onNotification('window/logMessage', () => undefined);
  connection.listen();
  return {
    connection,
    child,
    readerErrors,
    stderr: () => stderrTail,
    exited,
    async stop() {
      if (child.exitCode === null) {
        try {
          await connection.sendRequest(ShutdownRequest.type);
          await connection.sendNotification(ExitNotification.type);
        } catch {
          /* already gone */
        }
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      const code = await exited;
      clearTimeout(timer);
      connection.dispose();
      return code;
    },
  };
}
