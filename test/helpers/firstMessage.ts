/**
 * A first `@knowledge` message over the real language server (`dist/server.js`), as the participant sends it:
 * create the session (the next-chat draft passes into it), resolve the block (fitted to the model's own token count),
 * record the delivery. Counts what it cost: durable writes in the server process (`countWrites.cjs`), requests sent
 * (round trips) and the store-changed notifications that each start a refresh of the views.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CreateSessionRequest, ListItemsRequest, MarkDeliveredRequest, StoreChangedNotification, UpdateDraftPinsRequest } from '../../src/shared/protocol';
import { resolveFitted, type ResolveAsk, type TokenCounter } from '../../src/extension/chat/resolveFitted';
import { startRealServer } from './serverConnection';
import { tempWorkspace } from './tempWorkspace';

export interface FirstMessageCost {
  /** fsync'd writes of files in the server process. */
  writes: number;
  /** The files renamed into place (one per atomic write, plus any journal fold). */
  renamed: string[];
  /** Requests the client sent for the message. */
  roundTrips: number;
  methods: string[];
  /** Store-changed notifications received during the message (each starts a refresh of the views). */
  storeChanged: number;
  /** Whether the block went with the message. */
  delivered: boolean;
  /** The block sent ('' when none). */
  blockText: string;
  blockChars: number;
}

export interface FirstMessageOptions {
  /** Characters per token by the model's own count (the server estimates 4). */
  modelCharsPerToken: number;
  budgetTokens: number;
  /** Size of the pinned note. */
  noteChars: number;
  /** Pinned to the next chat before the message (the chat takes the draft over); else named in the create (API, dispatch). */
  draft: boolean;
  /** The model's count, when not `modelCharsPerToken` throughout. */
  model?: TokenCounter;
}

const COUNTER = resolve(__dirname, 'countWrites.cjs');

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** Waits until no write happened for `quietMs` (a write the server did not await may land after its answer). */
async function settle(path: string, quietMs = 300, maxMs = 5_000): Promise<string[]> {
  const start = Date.now();
  let seen = lines(path).length;
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 50));
    const now = lines(path).length;
    if (now !== seen) {
      seen = now;
      since = Date.now();
    }
  }
  return lines(path);
}

export async function measureFirstMessage(options: FirstMessageOptions): Promise<FirstMessageCost> {
  const note = '.knowledge/notes/first.md';
  const sentence = 'The payment service retries idempotent calls three times with jittered backoff. ';
  const d = tempWorkspace('sk-first-message-', { [note]: `# First\n\n${sentence.repeat(Math.ceil(options.noteChars / sentence.length))}`.slice(0, options.noteChars) });
  const countDir = mkdtempSync(join(tmpdir(), 'sk-count-'));
  const counter = join(countDir, 'writes.log');
  writeFileSync(counter, '');
  const server = await startRealServer(
    { workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false },
    { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${COUNTER}`.trim(), SK_COUNT_WRITES: counter },
  );
  try {
    const c = server.connection;
    let storeChanged = 0;
    c.onNotification(StoreChangedNotification.type, () => {
      storeChanged += 1;
    });
    await c.sendRequest(ListItemsRequest.type, {});
    // Pinned to the next chat before the conversation starts (the tree, Pin to Next Chat).
    if (options.draft) await c.sendRequest(UpdateDraftPinsRequest.type, { add: [note] });
    const before = (await settle(counter)).length;
    storeChanged = 0;

    const methods: string[] = [];
    const ask: ResolveAsk = (type, params) => {
      methods.push(type.method);
      return c.sendRequest(type as never, params as never);
    };
    const model = options.model ?? { id: `chars/${options.modelCharsPerToken}`, countTokens: async (text: string) => Math.ceil(text.length / options.modelCharsPerToken) };
    const created = await ask(CreateSessionRequest.type, options.draft ? { consumeDraft: true, origin: 'chat' } : { pins: [note], origin: 'api' });
    const block = await resolveFitted(ask, created.key, options.budgetTokens, model);
    let delivered = false;
    if (block.text) {
      await ask(MarkDeliveredRequest.type, { key: created.key, signature: block.signature });
      delivered = true;
    }
    const after = (await settle(counter)).slice(before);
    return {
      writes: after.filter((l) => l === 'fsync').length,
      renamed: after.filter((l) => l.startsWith('rename ')).map((l) => l.slice('rename '.length)),
      roundTrips: methods.length,
      methods,
      storeChanged,
      delivered,
      blockText: block.text,
      blockChars: block.text.length,
    };
  } finally {
    await server.stop();
    rmSync(d.workspace, { recursive: true, force: true });
    rmSync(d.storage, { recursive: true, force: true });
    rmSync(countDir, { recursive: true, force: true });
  }
}
