/**
 * Distillation on the extension side: asks the model for proposals about one `@knowledge` session (the prompt is
 * `distillPrompt.ts`: the conversation inside the untrusted envelope), reads the answer with zod, retries once when
 * it is malformed (saying what was wrong), and hands the proposals to the server, which classifies, scans and
 * stores them in the inbox. Cancelled or malformed: nothing is submitted, so nothing is left behind. The
 * transcript is never stored — it lives in this window's memory only (`SessionTranscripts`), as VS Code's chat does.
 *
 * Three callers: `@knowledge /distill`, the command "Distil This Session into Memory…" and `api.memory.distill`,
 * and, when the person turned it on in Memory Settings, every compaction of a session.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { MemoryDistillSubmitRequest, MemoryRecallRequest } from '../../shared/memoryProtocol';
import type { DistillSubmitResult } from '../../shared/inboxSchemas';
import { sendAndRecord } from '../chat/knowledgeSend';
import { DISTILL_INPUT_SHARE, buildDistillPrompt, malformedAnswerMessage, parseDistillAnswer, retryMessage, type DistillTurn, type KnownDecision } from './distillPrompt';
import { deliveryAllowed } from '../workspaceTrust';

export type DistillFailure = 'cancelled' | 'malformed' | 'no-turns' | 'no-model' | 'unknown-session' | 'model-error' | 'memory-off';

export class DistillError extends Error {
  readonly isDistillError = true as const;
  constructor(
    readonly reason: DistillFailure,
    message: string,
  ) {
    super(message);
    this.name = 'DistillError';
  }

  static is(err: unknown): err is DistillError {
    return err instanceof Error && (err as Partial<DistillError>).isDistillError === true;
  }
}

/**
 * A failed distillation for the person, once: a DistillError already says what happened in one sentence (and that
 * nothing was stored); anything else (the server refused the proposals) gets "Nothing was stored:" before it.
 */
export function distillFailureText(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).trim();
  if (DistillError.is(err)) return message;
  return `Nothing was stored: ${message.replace(/[.\s]+$/, '') || 'an unknown error'}.`;
}

/** The sessions this window talked in through `@knowledge`: their conversation turns and the model they used. In memory only. */
export class SessionTranscripts {
  private readonly sessions = new Map<string, { turns: DistillTurn[]; model?: vscode.LanguageModelChat; at: number }>();
  private static readonly MAX = 50;

  record(sessionKey: string, turns: readonly DistillTurn[], model?: vscode.LanguageModelChat): void {
    this.sessions.delete(sessionKey);
    this.sessions.set(sessionKey, { turns: [...turns], ...(model ? { model } : {}), at: Date.now() });
    while (this.sessions.size > SessionTranscripts.MAX) this.sessions.delete(this.sessions.keys().next().value!);
  }

  get(sessionKey: string): { turns: DistillTurn[]; model?: vscode.LanguageModelChat } | undefined {
    return this.sessions.get(sessionKey);
  }

  /** Newest first. */
  list(): { sessionKey: string; turns: number; at: number }[] {
    return [...this.sessions.entries()].map(([sessionKey, s]) => ({ sessionKey, turns: s.turns.length, at: s.at })).reverse();
  }

  forget(sessionKey: string): void {
    this.sessions.delete(sessionKey);
  }
}

export interface DistillRun {
  sessionKey: string;
  turns: readonly DistillTurn[];
  model: vscode.LanguageModelChat;
  token: vscode.CancellationToken;
  /** A short line for the progress UI. */
  report?: (message: string) => void;
  log?: vscode.LogOutputChannel;
}

function cancelled(): DistillError {
  return new DistillError('cancelled', 'Distillation was cancelled; nothing was stored.');
}

/**
 * The approved decisions a proposal may reverse (what the session's model may see; never flagged ones). None in
 * Restricted Mode: the repository's memory reaches no model until the folder is trusted.
 */
async function knownDecisions(client: LanguageClient, sessionKey: string): Promise<KnownDecision[]> {
  if (!deliveryAllowed()) return [];
  try {
    const seen = await client.sendRequest(MemoryRecallRequest.type, { query: '', sessionKey, type: 'decision', limit: 50 });
    return seen.filter((e) => e.trust.state === 'approved').map((e) => ({ id: e.id, title: e.title }));
  } catch {
    return [];
  }
}

/** The prompt for the model's input: estimated first, then checked with the model's own count and shrunk if needed. */
async function fittedPrompt(run: DistillRun, decisions: KnownDecision[]): Promise<ReturnType<typeof buildDistillPrompt>> {
  let budget = Math.floor(run.model.maxInputTokens * DISTILL_INPUT_SHARE);
  for (let attempt = 0; ; attempt++) {
    const prompt = buildDistillPrompt(run.turns, decisions, budget);
    let tokens: number;
    try {
      tokens = await run.model.countTokens(prompt.text, run.token);
    } catch {
      return prompt;
    }
    const limit = Math.floor(run.model.maxInputTokens * DISTILL_INPUT_SHARE);
    if (tokens <= limit || attempt >= 3 || prompt.cutTurns === prompt.turnCount - 1) return prompt;
    budget = Math.max(200, Math.floor((budget * limit) / tokens) - 50);
  }
}

async function ask(run: DistillRun, client: LanguageClient, messages: vscode.LanguageModelChatMessage[]): Promise<string> {
  const outcome = await sendAndRecord(client, run.model, messages, run.token, undefined, run.log ?? noLog);
  if (run.token.isCancellationRequested) throw cancelled();
  if (outcome.error && !outcome.text) {
    const e = outcome.error;
    const why = `${e instanceof vscode.LanguageModelError ? `${e.code}: ` : ''}${e.message}`.trim().replace(/[.\s]+$/, '');
    throw new DistillError('model-error', `The language model could not answer (${why}), so nothing was stored.`);
  }
  return outcome.text;
}

const noLog = { warn: () => undefined, info: () => undefined } as unknown as vscode.LogOutputChannel;

/** Distils `run.turns` into inbox proposals; answers what the server stored and skipped. Throws DistillError. */
export async function distillSession(client: LanguageClient, run: DistillRun): Promise<DistillSubmitResult> {
  if (run.turns.length === 0) throw new DistillError('no-turns', 'This session has no conversation to distil yet, so nothing was stored.');
  run.report?.('Reading the conversation…');
  const decisions = await knownDecisions(client, run.sessionKey);
  if (run.token.isCancellationRequested) throw cancelled();
  const prompt = await fittedPrompt(run, decisions);
  if (run.token.isCancellationRequested) throw cancelled();
  const cut = prompt.cutTurns > 0 ? ` (turns ${prompt.cutTurns + 1}–${prompt.turnCount}; the earlier ones did not fit)` : '';
  run.report?.(`Asking ${run.model.name} for proposals${cut}…`);
  const messages = [vscode.LanguageModelChatMessage.User(prompt.text)];
  const first = await ask(run, client, messages);
  let parsed = parseDistillAnswer(first);
  if (!parsed.ok) {
    run.log?.warn(`Distillation: the model's answer was malformed (${parsed.problem}); asking once more.`);
    run.report?.('The answer was malformed; asking once more…');
    const again = await ask(run, client, [...messages, vscode.LanguageModelChatMessage.Assistant(first.slice(0, 1500) || '(empty)'), vscode.LanguageModelChatMessage.User(retryMessage(parsed.problem))]);
    parsed = parseDistillAnswer(again);
    if (!parsed.ok) {
      throw new DistillError('malformed', malformedAnswerMessage(parsed.reason));
    }
  }
  if (run.token.isCancellationRequested) throw cancelled();
  run.report?.(`Storing ${parsed.proposals.length} proposal(s) in the memory inbox…`);
  const model = `${run.model.vendor}/${run.model.id}`.slice(0, 200);
  return client.sendRequest(MemoryDistillSubmitRequest.type, { sessionKey: run.sessionKey, model, turns: run.turns.length, proposals: parsed.proposals });
}

/** One line a person reads after a distillation: what waits in the inbox, and what was left out. */
export function describeResult(r: DistillSubmitResult): string {
  const kinds = { new: 0, update: 0, conflict: 0 };
  for (const i of r.items) kinds[i.entry.proposal?.kind ?? 'new'] += 1;
  const flagged = r.items.filter((i) => i.entry.flagged).length;
  const parts = [`${r.items.length} proposal(s) wait in the memory inbox`];
  const detail = [kinds.update ? `${kinds.update} update(s)` : '', kinds.conflict ? `${kinds.conflict} conflict(s)` : '', flagged ? `${flagged} flagged` : ''].filter(Boolean);
  if (detail.length) parts.push(`(${detail.join(', ')})`);
  if (r.skipped.length) parts.push(`; ${r.skipped.length} left out (already proposed, rejected before, or duplicates)`);
  return `${parts.join(' ')}.`;
}
