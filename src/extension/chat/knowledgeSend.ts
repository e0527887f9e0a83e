/**
 * Sending a prompt with the knowledge block — shared by the `@knowledge` participant, the dispatch tool,
 * scheduled prompts and compaction. The rules (PRODUCT.md, "three moments, two deliveries"):
 * - nothing here may fail a send: an error while building the block means "no block this time";
 * - the block rides as its own text part of the user message, never mixed into the person's words;
 * - delivery is recorded only after the send was accepted (the model started answering without error).
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { MarkDeliveredRequest, ResolvePendingRequest } from '../../shared/protocol';
import type { PendingBlock } from '../../shared/schemas';

/** How long building the block may take before the message goes without it. */
export const RESOLVE_TIMEOUT_MS = 4000;

export function blockBudget(): number {
  return vscode.workspace.getConfiguration('sessionKnowledge').get<number>('blockTokenBudget', 8000);
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** The block a session is owed, or undefined ("no block this time") on any error. Never throws. */
export async function resolveBlockSafely(
  client: LanguageClient,
  sessionKey: string | undefined,
  log: vscode.LogOutputChannel,
  model?: vscode.LanguageModelChat,
): Promise<PendingBlock | undefined> {
  if (!sessionKey) return undefined;
  const resolve = (budgetTokens: number) => client.sendRequest(ResolvePendingRequest.type, { key: sessionKey, budgetTokens });
  try {
    const budget = blockBudget();
    const block = await withTimeout(resolve(budget), RESOLVE_TIMEOUT_MS);
    if (!model || !block.text) return block;
    // The server estimates tokens; the model's own count decides. Over budget: compile again, scaled down.
    const actual = await withTimeout(Promise.resolve(model.countTokens(block.text)), RESOLVE_TIMEOUT_MS);
    if (actual <= budget) return block;
    // Scale the server's estimate by how far it was off for this model, with a little room for rounding.
    const scaled = Math.max(200, Math.floor(((budget * block.budget.usedTokens) / actual) * 0.95));
    log.info(`The block is ${actual} tokens by ${model.id}'s count (budget ${budget}); compiling it for ${scaled} estimated tokens.`);
    return await withTimeout(resolve(scaled), RESOLVE_TIMEOUT_MS);
  } catch (err) {
    log.warn(`No knowledge block this time for ${sessionKey}: ${(err as Error)?.message ?? String(err)}`);
    return undefined;
  }
}

/** Records delivery; a failure is logged, never thrown (the send itself already succeeded). */
export async function markDeliveredSafely(client: LanguageClient, sessionKey: string, signature: string, log: vscode.LogOutputChannel): Promise<boolean> {
  try {
    await client.sendRequest(MarkDeliveredRequest.type, { key: sessionKey, signature });
    return true;
  } catch (err) {
    log.warn(`Could not record delivery for ${sessionKey}: ${(err as Error)?.message ?? String(err)}`);
    return false;
  }
}

/** A user message whose first part is the block (synthetic) and whose second part is what the person wrote. */
export function userMessageWithBlock(block: string, prompt: string): vscode.LanguageModelChatMessage {
  const parts = block ? [new vscode.LanguageModelTextPart(block), new vscode.LanguageModelTextPart(prompt)] : [new vscode.LanguageModelTextPart(prompt)];
  return vscode.LanguageModelChatMessage.User(parts);
}

export interface SendOutcome {
  text: string;
  /** True once the model started answering without error. */
  accepted: boolean;
  /** True when the block's delivery was recorded. */
  delivered: boolean;
  error?: Error;
}

/**
 * Sends `messages` and streams the answer to `onFragment`. When `pending` is given, its signature is recorded
 * as delivered as soon as the first fragment arrives — not before, and never when the request fails or is
 * cancelled before answering.
 */
export async function sendAndRecord(
  client: LanguageClient,
  model: vscode.LanguageModelChat,
  messages: vscode.LanguageModelChatMessage[],
  token: vscode.CancellationToken,
  pending: { sessionKey: string; signature: string } | undefined,
  log: vscode.LogOutputChannel,
  onFragment: (fragment: string) => void = () => undefined,
): Promise<SendOutcome> {
  let text = '';
  let accepted = false;
  let delivered = false;
  try {
    const response = await model.sendRequest(messages, {}, token);
    for await (const fragment of response.text) {
      if (token.isCancellationRequested) break;
      if (!accepted) {
        accepted = true;
        if (pending) delivered = await markDeliveredSafely(client, pending.sessionKey, pending.signature, log);
      }
      text += fragment;
      onFragment(fragment);
    }
    // A model that finished without a fragment and without an error accepted the request too.
    if (!accepted && !token.isCancellationRequested) {
      accepted = true;
      if (pending) delivered = await markDeliveredSafely(client, pending.sessionKey, pending.signature, log);
    }
    return { text, accepted, delivered };
  } catch (err) {
    return { text, accepted, delivered, error: err instanceof Error ? err : new Error(String(err)) };
  }
}
