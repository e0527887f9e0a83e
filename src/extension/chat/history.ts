/**
 * Rebuilding what the model saw from `ChatContext.history`. VS Code keeps only the person's words of each
 * request, so each of our results carries in its metadata the block that rode with that request, and the
 * compaction (summary + re-sent block + pinned messages) when one happened. Works on plain objects too,
 * so tests can pass a history without private VS Code constructors.
 */
import * as vscode from 'vscode';

export const PARTICIPANT_ID = 'sessionknowledge.knowledge';

/** What `@knowledge` keeps in `ChatResult.metadata`. */
export interface KnowledgeResultMetadata {
  sessionKey?: string;
  /** The block sent as the first part of this turn's user message ('' or absent: none). */
  block?: string;
  /** The signature that block carried. */
  signature?: string;
  /** Set on the turn where compaction happened. */
  compaction?: {
    summary: string;
    /** How many earlier turns the summary replaces (turns are counted from the start of the history). */
    coveredTurns: number;
    /** The re-sent block and the pinned messages that travelled with it in the same message. */
    block: string;
    pinnedMessages: string[];
  };
}

export interface Turn {
  prompt: string;
  response: string;
  metadata: KnowledgeResultMetadata;
}

type AnyTurn = { participant?: string; prompt?: string; response?: readonly unknown[]; result?: { metadata?: unknown } };

function responseText(parts: readonly unknown[] | undefined): string {
  if (!parts) return '';
  return parts
    .map((part) => {
      const value = (part as { value?: unknown }).value;
      if (typeof value === 'string') return value;
      if (value && typeof (value as { value?: unknown }).value === 'string') return (value as { value: string }).value;
      return '';
    })
    .join('');
}

/** Our participant's turns, request and response paired, oldest first. */
export function ourTurns(history: readonly unknown[]): Turn[] {
  const turns: Turn[] = [];
  let pendingPrompt: string | undefined;
  for (const raw of history) {
    const t = raw as AnyTurn;
    if (t.participant !== PARTICIPANT_ID) continue;
    if (typeof t.prompt === 'string') pendingPrompt = t.prompt;
    else if (t.response !== undefined || t.result !== undefined) {
      turns.push({ prompt: pendingPrompt ?? '', response: responseText(t.response), metadata: (t.result?.metadata ?? {}) as KnowledgeResultMetadata });
      pendingPrompt = undefined;
    }
  }
  return turns;
}

/** The session key carried by the latest of our results, if any. */
export function sessionKeyOf(history: readonly unknown[]): string | undefined {
  const turns = ourTurns(history);
  for (let i = turns.length - 1; i >= 0; i--) {
    const key = turns[i]?.metadata.sessionKey;
    if (typeof key === 'string' && key) return key;
  }
  return undefined;
}

/** One synthetic user message: summary, re-sent block and pinned messages together — never two in a row. */
export function compactionMessage(c: NonNullable<KnowledgeResultMetadata['compaction']>): vscode.LanguageModelChatMessage {
  const parts = [new vscode.LanguageModelTextPart(`Summary of the earlier conversation (it was compacted to fit):\n${c.summary}`)];
  if (c.block) parts.push(new vscode.LanguageModelTextPart(c.block));
  if (c.pinnedMessages.length > 0) {
    parts.push(new vscode.LanguageModelTextPart(`Messages the user pinned so they stay in view:\n${c.pinnedMessages.map((m) => `- ${m}`).join('\n')}`));
  }
  return vscode.LanguageModelChatMessage.User(parts);
}

export function turnMessages(turn: Turn): vscode.LanguageModelChatMessage[] {
  const user = turn.metadata.block
    ? vscode.LanguageModelChatMessage.User([new vscode.LanguageModelTextPart(turn.metadata.block), new vscode.LanguageModelTextPart(turn.prompt)])
    : vscode.LanguageModelChatMessage.User(turn.prompt);
  return turn.response ? [user, vscode.LanguageModelChatMessage.Assistant(turn.response)] : [user];
}

/**
 * The conversation as the model saw it: the latest compaction message (if any) then every later turn, each
 * with the block that rode with it. Answers the messages and the index of the first turn not summarised.
 */
export function rebuildConversation(turns: readonly Turn[]): { messages: vscode.LanguageModelChatMessage[]; firstLiveTurn: number } {
  let start = 0;
  const messages: vscode.LanguageModelChatMessage[] = [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const c = turns[i]?.metadata.compaction;
    if (c) {
      messages.push(compactionMessage(c));
      start = Math.min(c.coveredTurns, turns.length);
      break;
    }
  }
  for (let i = start; i < turns.length; i++) messages.push(...turnMessages(turns[i]!));
  return { messages, firstLiveTurn: start };
}

export function messageText(m: vscode.LanguageModelChatMessage): string {
  return m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('\n');
}
