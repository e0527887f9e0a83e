/**
 * Memory tools for `@knowledge` and agent mode: knowledge_remember, knowledge_recall, knowledge_read,
 * knowledge_forget. Registered only when the flag is set. Inputs are validated with zod; errors are clear
 * sentences, never a stack trace. A flagged entry is never returned by any of them (the server's recall and
 * model-read exclude it).
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { ResponseError } from 'vscode-languageclient/node';
import { MemoryForgetPreviewRequest, MemoryForgetRequest, MemoryReadRequest, MemoryRecallRequest, MemoryRememberRequest } from '../../shared/memoryProtocol';
import { IdToolInput as IdInput, RecallToolInput as RecallInput, RememberToolInput as RememberInput, describeEntry as describe, inputProblem, memoryEnvelope as envelope, rememberedSentence } from '../../server/core/memory/modelTools';

import { RESTRICTED_NOTICE, deliveryAllowed } from '../workspaceTrust';

const text = (s: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);

function problem(err: unknown): string {
  if (err instanceof ResponseError) return err.message;
  return inputProblem(err) ?? (err as Error)?.message ?? String(err);
}

export function registerMemoryTools(context: vscode.ExtensionContext, deps: { client: LanguageClient; activeSession: () => string | undefined }): void {
  const { client } = deps;
  context.subscriptions.push(
    vscode.lm.registerTool<unknown>('knowledge_remember', {
      prepareInvocation: () => ({ invocationMessage: 'Remembering' }),
      async invoke(options) {
        try {
          const input = RememberInput.parse(options.input ?? {});
          const sessionKey = deps.activeSession();
          const entry = await client.sendRequest(MemoryRememberRequest.type, { ...input, source: 'agent', identity: 'agent', ...(sessionKey ? { sessionKey } : {}) });
          return text(rememberedSentence(entry));
        } catch (err) {
          return text(`Not remembered: ${problem(err)}`);
        }
      },
    }),
    vscode.lm.registerTool<unknown>('knowledge_recall', {
      prepareInvocation: () => ({ invocationMessage: 'Searching memory' }),
      async invoke(options) {
        if (!deliveryAllowed()) return text(RESTRICTED_NOTICE);
        try {
          const input = RecallInput.parse(options.input ?? {});
          const sessionKey = deps.activeSession();
          const entries = await client.sendRequest(MemoryRecallRequest.type, { ...input, ...(sessionKey ? { sessionKey } : {}) });
          if (entries.length === 0) return text('Nothing in memory matches.');
          return text(envelope(entries.map((e) => describe(e, false)).join('\n')));
        } catch (err) {
          return text(`Recall failed: ${problem(err)}`);
        }
      },
    }),
    vscode.lm.registerTool<unknown>('knowledge_read', {
      prepareInvocation: () => ({ invocationMessage: 'Reading a memory entry' }),
      async invoke(options) {
        if (!deliveryAllowed()) return text(RESTRICTED_NOTICE);
        try {
          const { id } = IdInput.parse(options.input ?? {});
          const sessionKey = deps.activeSession();
          const entry = await client.sendRequest(MemoryReadRequest.type, { id, forModel: true, ...(sessionKey ? { sessionKey } : {}) });
          if (!entry) return text(`No memory entry ${id} is available.`);
          return text(envelope(describe(entry, true)));
        } catch (err) {
          return text(`Read failed: ${problem(err)}`);
        }
      },
    }),
    vscode.lm.registerTool<unknown>('knowledge_forget', {
      async prepareInvocation(options) {
        const parsed = IdInput.safeParse(options.input ?? {});
        if (!parsed.success) return { invocationMessage: 'Forgetting' };
        let cascade = '';
        try {
          const plan = await client.sendRequest(MemoryForgetPreviewRequest.type, { id: parsed.data.id });
          cascade = `\n\nThis deletes ${plan.deleted.length} entr${plan.deleted.length === 1 ? 'y' : 'ies'} (${plan.deleted.join(', ')})${plan.restored.length ? ` and restores ${plan.restored.join(', ')}` : ''}. A delete is final.`;
        } catch {
          /* the confirmation still asks */
        }
        return {
          invocationMessage: `Forgetting ${parsed.data.id}`,
          confirmationMessages: { title: 'Forget a memory entry?', message: new vscode.MarkdownString().appendText(`Forget memory entry ${parsed.data.id}?${cascade}`) },
        };
      },
      async invoke(options) {
        try {
          const { id } = IdInput.parse(options.input ?? {});
          const plan = await client.sendRequest(MemoryForgetRequest.type, { id });
          return text(`Forgotten: ${plan.deleted.join(', ')}${plan.restored.length ? `; restored: ${plan.restored.join(', ')}` : ''}.`);
        } catch (err) {
          return text(`Not forgotten: ${problem(err)}`);
        }
      },
    }),
  );
}
