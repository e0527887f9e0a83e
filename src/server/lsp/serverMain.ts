/**
 * Entry of `dist/server.js`: a language server over the transport the client chose — IPC (`--node-ipc`, the
 * extension), stdin/stdout (`--stdio`, any LSP client through `session-knowledge lsp --stdio`), or what else
 * argv names.
 */
import { Console } from 'node:console';
import {
  IPCMessageReader,
  IPCMessageWriter,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
  createConnection,
  type DataCallback,
  type Message,
  type MessageReader,
} from 'vscode-languageserver/node';
import { startServer } from './server';

/**
 * vscode-jsonrpc reads `params.id` of a `$/cancelRequest` outside its try/catch: one such notification without
 * params would end the process. Drop it before it gets there (there is nothing to cancel without an id).
 */
export function isMalformedCancel(message: Message): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { method?: unknown; params?: unknown };
  if (m.method !== '$/cancelRequest') return false;
  const id = (m.params as { id?: unknown } | null | undefined)?.id;
  return typeof m.params !== 'object' || m.params === null || (typeof id !== 'number' && typeof id !== 'string');
}

/** `reader` without malformed cancels; `seen` sees every message that goes through. */
function guarded<R extends MessageReader>(reader: R, seen: (message: Message) => void = () => undefined): R {
  const listen = reader.listen.bind(reader);
  reader.listen = (callback: DataCallback) =>
    listen((message) => {
      if (isMalformedCancel(message)) return;
      seen(message);
      callback(message);
    });
  return reader;
}

/**
 * stdin/stdout: stdout carries the protocol, so everything `console` would print there goes to stderr
 * (clients log a server's stderr). The process ends when the client closes stdin, with 0 only after `shutdown`.
 */
function stdioConnection() {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  const target = console as unknown as Record<string, unknown>;
  for (const [name, fn] of Object.entries(toStderr)) if (typeof fn === 'function') target[name] = fn.bind(toStderr);
  let shutdown = false;
  const end = () => process.exit(shutdown ? 0 : 1);
  process.stdin.on('end', end);
  process.stdin.on('close', end);
  const reader = guarded(new StreamMessageReader(process.stdin), (m) => {
    if ((m as { method?: unknown }).method === 'shutdown') shutdown = true;
  });
  return createConnection(ProposedFeatures.all, reader, new StreamMessageWriter(process.stdout));
}

const ipc = process.argv.includes('--node-ipc') && typeof process.send === 'function';
startServer(
  ipc
    ? createConnection(ProposedFeatures.all, guarded(new IPCMessageReader(process)), new IPCMessageWriter(process))
    : process.argv.includes('--stdio')
      ? stdioConnection()
      : createConnection(ProposedFeatures.all),
);
