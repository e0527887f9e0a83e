/**
 * Sending a prompt with the knowledge block — shared by the `@knowledge` participant, the dispatch tool,
 * scheduled prompts and compaction. The rules (PRODUCT.md, "three moments, two deliveries"):
 * - nothing here may fail a send: an error while building the block means "no block this time";
 * - the block rides as its own text part of the user message, never mixed into the person's words;
 * - delivery is recorded only after the send was accepted (the model started answering without error).
 */
import * as vscode from 'vscode';
import type { LanguageClient, RequestParam, RequestType } from 'vscode-languageclient/node';
import { MarkDeliveredRequest } from '../../shared/protocol';
import type { PendingBlock } from '../../shared/sessionSchemas';
import { textParts } from './history';
import { deliveryAllowed } from '../workspaceTrust';
import { ModelRatios, resolveFitted } from './resolveFitted';
import { DEFAULT_BUDGET_TOKENS } from '../../server/core/delivery/budgetDefault';
import { runToolLoop, type ToolPlan } from './toolLoop';

/** Each model's tokens per character, learned from its own counts (see `resolveFitted`). */
const modelRatios = new ModelRatios();

/** How long any request on the send path may take before the message goes on without what it would answer. */
export const RESOLVE_TIMEOUT_MS = 4000;

export function blockBudget(): number {
  return vscode.workspace.getConfiguration('sessionKnowledge').get<number>('blockTokenBudget', DEFAULT_BUDGET_TOKENS);
}

async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void = () => undefined): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        onTimeout();
        reject(new Error(`timed out after ${ms} ms`));
      }, ms);
    });
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * THE way the send path asks the server: a request that answers within `ms` or rejects (and is cancelled, so a
 * server that gets to it late does nothing). Every request on the send path goes through it.
 */
export async function requestWithTimeout<P, R>(client: LanguageClient, type: RequestType<P, R, void>, params: NoInfer<RequestParam<P>>, ms = RESOLVE_TIMEOUT_MS): Promise<R> {
  const cancel = new vscode.CancellationTokenSource();
  try {
    return await withTimeout(Promise.resolve(client.sendRequest(type, params, cancel.token)), ms, () => cancel.cancel());
  } finally {
    cancel.dispose();
  }
}

/**
 * The block a session is owed, or undefined ("no block this time") on any error, and in Restricted Mode (an
 * untrusted folder delivers nothing; the session stays owed its block for when trust is granted). Never throws.
 */
export async function resolveBlockSafely(
  client: LanguageClient,
  sessionKey: string | undefined,
  log: vscode.LogOutputChannel,
  model?: vscode.LanguageModelChat,
): Promise<PendingBlock | undefined> {
  if (!sessionKey || !deliveryAllowed()) return undefined;
  const key = sessionKey;
  try {
    const budget = blockBudget();
    // The model's own count decides: its tokens per character ride with the request, so the server cuts once.
    const counter = model ? { id: model.id, countTokens: (text: string) => withTimeout(Promise.resolve(model.countTokens(text)), RESOLVE_TIMEOUT_MS) } : undefined;
    return await resolveFitted((type, params) => requestWithTimeout(client, type, params as never), key, budget, counter, modelRatios, (actual, ratio) =>
      log.info(`The block is ${actual} tokens by ${model?.id}'s count (budget ${budget}); compiling it again at ${ratio.toFixed(3)} tokens a character.`),
    );
  } catch (err) {
    log.warn(`No knowledge block this time for ${sessionKey}: ${(err as Error)?.message ?? String(err)}`);
    return undefined;
  }
}

/** Records delivery; a failure or a timeout is logged, never thrown (the send itself already succeeded). */
export async function markDeliveredSafely(client: LanguageClient, sessionKey: string, signature: string, log: vscode.LogOutputChannel): Promise<boolean> {
  try {
    await requestWithTimeout(client, MarkDeliveredRequest.type, { key: sessionKey, signature });
    return true;
  } catch (err) {
    log.warn(`Could not record delivery for ${sessionKey}: ${(err as Error)?.message ?? String(err)}`);
    return false;
  }
}

/**
 * A user message whose first part is the block (synthetic), then the attachments' envelope when there is one, then
 * what the person wrote (no empty part).
 */
export function userMessageWithBlock(block: string, prompt: string, attachments = ''): vscode.LanguageModelChatMessage {
  return vscode.LanguageModelChatMessage.User(textParts(block, attachments, prompt));
}

export interface SendOutcome {
  text: string;
  /** True once the model started answering without error. */
  accepted: boolean;
  /** True when the block's delivery was recorded. */
  delivered: boolean;
  error?: Error;
}

/** A block riding with a send; `whenComplete`: record it only once the answer finished without being cancelled. */
export interface PendingDelivery {
  sessionKey: string;
  signature: string;
  /**
   * For a chat view: it forgets a cancelled turn's result (and the block its metadata carried), so a
   * cancelled turn must not count as delivered.
   */
  whenComplete?: boolean;
}

/**
 * Sends `messages` and streams the answer to `onFragment`. When `pending` is given, its signature is recorded
 * as delivered as soon as the first fragment arrives (or, with `whenComplete`, once the answer finished) —
 * not before, and never when the request fails before answering or is cancelled. Recording never holds back
 * a fragment: it runs beside the stream and is awaited (bounded by its timeout) only before this returns.
 * With `tools`, the model may call them (`toolLoop.ts`): `text` is every round's text.
 */
export async function sendAndRecord(
  client: LanguageClient,
  model: vscode.LanguageModelChat,
  messages: vscode.LanguageModelChatMessage[],
  token: vscode.CancellationToken,
  pending: PendingDelivery | undefined,
  log: vscode.LogOutputChannel,
  onFragment: (fragment: string) => void = () => undefined,
  tools?: ToolPlan,
): Promise<SendOutcome> {
  let text = '';
  let accepted = false;
  let delivered = false;
  let error: Error | undefined;
  let recording: Promise<boolean> | undefined;
  const record = () => {
    if (pending && !recording) recording = markDeliveredSafely(client, pending.sessionKey, pending.signature, log);
  };
  // A cancelled request's stream may never end (VS Code drops what the provider reports after the
  // cancellation): stop waiting for it when the token fires.
  let onCancel: vscode.Disposable | undefined;
  const cancelled = new Promise<undefined>((resolve) => {
    if (token.isCancellationRequested) resolve(undefined);
    onCancel = token.onCancellationRequested(() => resolve(undefined));
  });
  try {
    await runToolLoop(model, messages, tools, token, cancelled, {
      accepted: () => {
        if (!accepted) {
          accepted = true;
          if (!pending?.whenComplete) record();
        }
      },
      text: (fragment) => {
        text += fragment;
        onFragment(fragment);
      },
    });
    // A model that finished without a fragment and without an error accepted the request too.
    if (!token.isCancellationRequested) accepted = true;
  } catch (err) {
    error = err instanceof Error ? err : new Error(String(err));
  } finally {
    onCancel?.dispose();
  }
  if (accepted && !token.isCancellationRequested) record();
  if (recording) delivered = await recording;
  return { text, accepted, delivered, ...(error ? { error } : {}) };
}
