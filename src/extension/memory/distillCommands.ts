/**
 * The three ways a person starts a distillation, all behind the feature flag: `@knowledge /distill` (in the chat,
 * with the chat's own cancel), the command "Distil This Session into Memory…" (`sessionKnowledge.memory.distill`,
 * progress with Cancel) and `api.memory.distill` — plus, when Memory Settings say so, every compaction
 * (`distillOnCompaction`, off by default; progress in the status bar). Each one ends in the memory inbox.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { DistillSubmitResult } from '../../shared/inboxSchemas';
import { GetSessionRequest } from '../../shared/protocol';
import type { DistillTurn } from './distillPrompt';
import { DistillError, SessionTranscripts, describeResult, distillFailureText, distillSession } from './distiller';
import type { MemoryController } from './memoryController';

/** What `@knowledge` tells distillation (see participant.ts); present only with the flag. */
export interface ChatDistillHooks {
  /** After every answered turn: the session's conversation so far and the model it used (kept in memory only). */
  record(sessionKey: string, turns: DistillTurn[], model: vscode.LanguageModelChat): void;
  /** `/distill`: distils the conversation so far into the inbox, reporting in the chat. */
  command(sessionKey: string, turns: DistillTurn[], model: vscode.LanguageModelChat | undefined, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<void>;
  /** The session was just compacted (after the send): distils it when the person turned that on. */
  compacted(sessionKey: string, turns: DistillTurn[], model: vscode.LanguageModelChat): void;
}

export interface DistillDeps {
  client: LanguageClient;
  log: vscode.LogOutputChannel;
  memory: MemoryController;
  /** The @knowledge session this window talked in last. */
  activeSession: () => string | undefined;
}

export interface Distill {
  chat: ChatDistillHooks;
  transcripts: SessionTranscripts;
  /** `api.memory.distill` and the command: with a progress notification that can be cancelled. */
  run(sessionKey: string): Promise<DistillSubmitResult>;
}

const OFF = 'Memory is off: distillation stores its proposals in the memory inbox. Turn it on with Session Knowledge: Turn Agent Memory On (or the switch in the Knowledge Panel).';

/** Stored text shown in chat markdown: every markdown control character escaped, one line. */
function md(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');
}

async function pickModel(preferred: vscode.LanguageModelChat | undefined): Promise<vscode.LanguageModelChat | undefined> {
  if (preferred) return preferred;
  try {
    return (await vscode.lm.selectChatModels())[0];
  } catch {
    return undefined;
  }
}

export function registerDistill(context: vscode.ExtensionContext, deps: DistillDeps): Distill {
  const { client, log, memory } = deps;
  const transcripts = new SessionTranscripts();
  /** Distillations started by a compaction: cancelled when the extension goes. */
  const running = new Set<vscode.CancellationTokenSource>();
  context.subscriptions.push({ dispose: () => running.forEach((c) => c.cancel()) });

  /** The session's conversation and model, or a DistillError saying why not. */
  async function source(sessionKey: string): Promise<{ turns: DistillTurn[]; model: vscode.LanguageModelChat }> {
    if (!memory.isOn()) throw new DistillError('memory-off', OFF);
    const known = transcripts.get(sessionKey);
    if (!known) {
      throw new DistillError('unknown-session', `This window has not seen the conversation of session ${sessionKey}: distillation reads an @knowledge conversation held by this window. Run /distill in that chat instead.`);
    }
    const model = await pickModel(known.model);
    if (!model) throw new DistillError('no-model', 'Distillation needs a language model, and none is available.');
    return { turns: known.turns, model };
  }

  function withCancellableProgress<T>(title: string, work: (token: vscode.CancellationToken, report: (m: string) => void) => Promise<T>): Thenable<T> {
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => work(token, (message) => progress.report({ message })));
  }

  async function run(sessionKey: string): Promise<DistillSubmitResult> {
    const { turns, model } = await source(sessionKey);
    return withCancellableProgress('Distilling the session into memory', (token, report) => distillSession(client, { sessionKey, turns, model, token, report, log }));
  }

  const chat: ChatDistillHooks = {
    record: (sessionKey, turns, model) => transcripts.record(sessionKey, turns, model),

    async command(sessionKey, turns, model, stream, token) {
      if (!memory.isOn()) {
        stream.markdown(OFF);
        return;
      }
      const chosen = await pickModel(model);
      if (!chosen) {
        stream.markdown('Distillation needs a language model, and none is available.');
        return;
      }
      transcripts.record(sessionKey, turns, chosen);
      try {
        const r = await distillSession(client, { sessionKey, turns, model: chosen, token, report: (m) => stream.progress(m), log });
        stream.markdown(`${describeResult(r)} Approve or reject them in the Knowledge Panel's inbox; nothing reaches another session before you approve it.\n\n`);
        for (const i of r.items) {
          const p = i.entry.proposal;
          const kind = p?.kind === 'update' ? `update of “${md(i.target?.title ?? '')}”` : p?.kind === 'conflict' ? `conflicts with the decision “${md(i.target?.title ?? '')}”` : 'new';
          const flag = i.entry.flagged ? ` — ⚠ flagged (${md([...new Set(i.entry.findings.map((f) => f.ruleId))].join(', '))})` : '';
          stream.markdown(`- **${md(i.entry.title)}** (${i.entry.type}, turn ${p?.distilledFrom.turn ?? '?'}; ${kind})${flag}\n`);
        }
        for (const s of r.skipped) stream.markdown(`- left out: ${md(s.title)} — ${md(s.message)}\n`);
      } catch (err) {
        if (DistillError.is(err) && err.reason === 'cancelled') return;
        stream.markdown(distillFailureText(err));
      }
    },

    compacted(sessionKey, turns, model) {
      transcripts.record(sessionKey, turns, model);
      if (!memory.isOn() || !memory.options().distillOnCompaction) return;
      const cts = new vscode.CancellationTokenSource();
      running.add(cts);
      const done = vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Distilling the compacted session' }, () =>
        distillSession(client, { sessionKey, turns, model, token: cts.token, log }),
      );
      void Promise.resolve(done).then(
        (r) => {
          running.delete(cts);
          cts.dispose();
          log.info(`Distilled compacted session ${sessionKey}: ${describeResult(r)}`);
          if (r.items.length > 0) vscode.window.setStatusBarMessage(`$(inbox) ${describeResult(r)}`, 8000);
        },
        (err: unknown) => {
          running.delete(cts);
          cts.dispose();
          log.warn(`Distilling compacted session ${sessionKey} failed: ${(err as Error).message}`);
        },
      );
    },
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.memory.distill', async (arg?: unknown) => {
      let sessionKey = typeof arg === 'string' ? arg : undefined;
      if (!sessionKey) {
        if (!memory.isOn()) {
          void vscode.window.showInformationMessage(OFF);
          return undefined;
        }
        const known = transcripts.list();
        if (known.length === 0) {
          void vscode.window.showInformationMessage('No @knowledge conversation in this window yet: distillation reads one. Talk to @knowledge, then run this again (or /distill in that chat).');
          return undefined;
        }
        const active = deps.activeSession();
        // Each session by its name (a session no longer stored by its key).
        const names = new Map(await Promise.all(known.map(async (s) => [s.sessionKey, await client.sendRequest(GetSessionRequest.type, { key: s.sessionKey }).then((i) => i.name, () => s.sessionKey)] as const)));
        const items = known
          .sort((a, b) => (a.sessionKey === active ? -1 : b.sessionKey === active ? 1 : 0))
          .map((s) => ({ label: `$(${s.sessionKey === active ? 'comment-discussion' : 'comment'}) ${s.sessionKey === active ? 'This chat — ' : ''}${names.get(s.sessionKey)}`, description: `${s.turns} turn(s)`, detail: s.sessionKey, sessionKey: s.sessionKey }));
        sessionKey = items.length === 1 ? items[0]!.sessionKey : (await vscode.window.showQuickPick(items, { title: 'Distil which session into memory?' }))?.sessionKey;
        if (!sessionKey) return undefined;
      }
      try {
        const r = await run(sessionKey);
        void vscode.window.showInformationMessage(`${describeResult(r)} Review them in the Knowledge Panel's inbox.`);
        return r;
      } catch (err) {
        if (DistillError.is(err) && err.reason === 'cancelled') {
          vscode.window.setStatusBarMessage('Distillation cancelled; nothing was stored.', 5000);
          return undefined;
        }
        void vscode.window.showErrorMessage(distillFailureText(err));
        return undefined;
      }
    }),
  );

  return { chat, transcripts, run };
}
