/** Language-model tools: `knowledge_context` (#knowledge) and `knowledge_dispatch`. */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CompilePinsRequest, GetDraftPinsRequest, GetSessionRequest } from '../../shared/protocol';
import { pinIdProblem } from '../../shared/pinIdSchemas';
import { blockBudget } from './knowledgeSend';
import { runDispatched } from './dispatch';
import { RESTRICTED_NOTICE, deliveryAllowed } from '../workspaceTrust';

interface ContextInput {
  pins?: string[];
}
interface DispatchInput {
  prompt: string;
  pins?: string[];
  label?: string;
}

const text = (s: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);

/** Why the model's `pins` input is refused (a sentence naming the bad id), or undefined when it is absent or fine. */
function pinsInputProblem(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return 'Invalid input: `pins` must be a list of workspace-relative paths.';
  for (const id of v) {
    const problem = pinIdProblem(id);
    if (problem) return `Invalid input: ${problem}.`;
  }
  return undefined;
}

export function registerTools(
  context: vscode.ExtensionContext,
  deps: { client: LanguageClient; log: vscode.LogOutputChannel; activeSession: () => string | undefined },
): void {
  const { client, log } = deps;
  context.subscriptions.push(
    vscode.lm.registerTool<ContextInput>('knowledge_context', {
      prepareInvocation: () => ({ invocationMessage: 'Reading the pinned project knowledge' }),
      async invoke(options) {
        if (!deliveryAllowed()) return text(RESTRICTED_NOTICE);
        const input = options.input ?? {};
        const pinsProblem = pinsInputProblem(input.pins);
        if (pinsProblem) return text(pinsProblem);
        let pins = input.pins;
        if (!pins) {
          const key = deps.activeSession();
          pins = key ? (await client.sendRequest(GetSessionRequest.type, { key })).pins : await client.sendRequest(GetDraftPinsRequest.type);
        }
        if (pins.length === 0) return text('Nothing is pinned to this session. The user can pin notes and plans from the Session Knowledge view or with @knowledge /pin.');
        try {
          const block = await client.sendRequest(CompilePinsRequest.type, { pins, budgetTokens: blockBudget() });
          return text(block.text);
        } catch (err) {
          return text(`The pinned knowledge could not be read: ${(err as Error).message}`);
        }
      },
    }),
    vscode.lm.registerTool<DispatchInput>('knowledge_dispatch', {
      prepareInvocation: (options) => ({
        invocationMessage: 'Dispatching a session with the pinned knowledge',
        confirmationMessages: {
          title: 'Dispatch a session',
          message: new vscode.MarkdownString().appendText(`Send this prompt to a language model in a new session:\n\n${String(options.input?.prompt ?? '').slice(0, 500)}`),
        },
      }),
      async invoke(options, token) {
        if (!deliveryAllowed()) return text(`Nothing was dispatched. ${RESTRICTED_NOTICE}`);
        const input = options.input;
        if (!input || typeof input.prompt !== 'string' || !input.prompt.trim()) return text('Invalid input: `prompt` is required.');
        const pinsProblem = pinsInputProblem(input.pins);
        if (pinsProblem) return text(pinsProblem);
        try {
          const pins = input.pins ?? (deps.activeSession() ? (await client.sendRequest(GetSessionRequest.type, { key: deps.activeSession()! })).pins : []);
          const result = await runDispatched(client, log, { prompt: input.prompt, pins, label: input.label, origin: 'dispatch' }, token);
          if (result.error) return text(`The dispatched session ${result.sessionKey} failed: ${result.error}`);
          return text(`Dispatched session ${result.sessionKey}${result.blockSent ? ' (with the pinned knowledge)' : ''} answered:\n\n${result.answer}`);
        } catch (err) {
          return text(`Could not dispatch: ${(err as Error).message}`);
        }
      },
    }),
  );
}
