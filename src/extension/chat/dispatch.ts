/**
 * Prompts sent with no chat UI: sessions the agent dispatches (`knowledge_dispatch` tool), sessions other
 * extensions dispatch, and scheduled prompts. Each gets the block as a synthetic part of its prompt under the
 * same rule as a chat message: only when the session is owed it, recorded only once the send was accepted.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CreateSessionRequest } from '../../shared/protocol';
import { requestWithTimeout, resolveBlockSafely, sendAndRecord, userMessageWithBlock } from './knowledgeSend';

export interface DispatchResult {
  sessionKey: string;
  answer: string;
  /** Whether the block rode with this prompt (false: nothing owed, or "no block this time"). */
  blockSent: boolean;
  error?: string;
}

export async function pickModel(): Promise<vscode.LanguageModelChat | undefined> {
  const family = vscode.workspace.getConfiguration('sessionKnowledge').get<string>('dispatchModelFamily', '');
  const models = await vscode.lm.selectChatModels(family ? { family } : {});
  return models[0];
}

/** Runs `prompt` in session `sessionKey` (created when absent) and answers the model's reply. Never throws for the block. */
export async function runDispatched(
  client: LanguageClient,
  log: vscode.LogOutputChannel,
  options: { prompt: string; sessionKey?: string; pins?: string[]; label?: string; origin: 'dispatch' | 'schedule'; model?: vscode.LanguageModelChat },
  token: vscode.CancellationToken,
): Promise<DispatchResult> {
  const sessionKey = options.sessionKey ?? (await requestWithTimeout(client, CreateSessionRequest.type, { pins: options.pins ?? [], label: options.label, origin: options.origin })).key;
  const model = options.model ?? (await pickModel());
  if (!model) return { sessionKey, answer: '', blockSent: false, error: 'No language model is available.' };
  const pending = await resolveBlockSafely(client, sessionKey, log, model);
  const block = pending?.text ?? '';
  const outcome = await sendAndRecord(client, model, [userMessageWithBlock(block, options.prompt)], token, block && pending ? { sessionKey, signature: pending.signature } : undefined, log);
  return {
    sessionKey,
    answer: outcome.text,
    blockSent: Boolean(block) && outcome.accepted,
    ...(outcome.error ? { error: outcome.error.message } : {}),
  };
}
