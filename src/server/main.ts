/** Entry of `dist/server.js`: a language server over the transport the client chose (IPC, or what argv names). */
import { IPCMessageReader, IPCMessageWriter, ProposedFeatures, createConnection, type DataCallback, type Message } from 'vscode-languageserver/node';
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

function guardedIpcReader(): IPCMessageReader {
  const reader = new IPCMessageReader(process);
  const listen = reader.listen.bind(reader);
  reader.listen = (callback: DataCallback) => listen((message) => {
    if (!isMalformedCancel(message)) callback(message);
  });
  return reader;
}

const ipc = process.argv.includes('--node-ipc') && typeof process.send === 'function';
startServer(ipc ? createConnection(ProposedFeatures.all, guardedIpcReader(), new IPCMessageWriter(process)) : createConnection(ProposedFeatures.all));
