/**
 * Drives `@knowledge`'s real handler as the Chat view would (test hooks, SK_TEST_HOOKS=1), with references and
 * tool references, and the fake model fixture (test/fixtures/extensions/fake-model) that records what it was sent.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateApi, waitFor } from './helpers';
import type { SessionKnowledgeApi } from '../../src/extension/api';

export type Handler = (r: vscode.ChatRequest, c: vscode.ChatContext, s: vscode.ChatResponseStream, t: vscode.CancellationToken) => Promise<vscode.ChatResult>;
export interface FakeRequest {
  model: string;
  messages: { role: string; parts: string[] }[];
  tools: string[];
  toolMode?: number;
}
export interface FakeModel {
  requests: FakeRequest[];
  reset(): void;
}

export const PARTICIPANT = 'sessionknowledge.knowledge';
export const ENVELOPE_START = '<knowledge-untrusted nonce="';
export const ATTACHED = 'Files, selections and text the user attached to this message';

export async function chatHooks(): Promise<{ api: SessionKnowledgeApi; handler: Handler; fake: FakeModel }> {
  const api = await activateApi();
  const h = (api as unknown as { __test?: { chatHandler: Handler } }).__test;
  assert.ok(h, 'test hooks are on (SK_TEST_HOOKS=1)');
  const ext = vscode.extensions.getExtension<FakeModel>('sktest.fake-model');
  assert.ok(ext, 'the fake model fixture is loaded');
  return { api, handler: h.chatHandler, fake: await ext.activate() };
}

export async function fakeModel(family: string): Promise<vscode.LanguageModelChat> {
  return waitFor(async () => (await vscode.lm.selectChatModels({ vendor: 'sk-fake', family }))[0], `the fake model ${family}`);
}

export interface Sent {
  result: vscode.ChatResult;
  text: string;
  progress: string[];
  references: unknown[];
}

/** A conversation with @knowledge through its real handler; each send may carry references and tool references. */
export class Conversation {
  readonly history: unknown[] = [];
  constructor(
    private readonly handler: Handler,
    private readonly model: vscode.LanguageModelChat,
  ) {}

  async send(prompt: string, options: { references?: vscode.ChatPromptReference[]; toolReferences?: vscode.ChatLanguageModelToolReference[] } = {}): Promise<Sent> {
    const parts: string[] = [];
    const progress: string[] = [];
    const references: unknown[] = [];
    const stream = {
      markdown: (v: string | vscode.MarkdownString) => parts.push(typeof v === 'string' ? v : v.value),
      progress: (v: string) => progress.push(v),
      reference: (v: unknown) => references.push(v),
      anchor: () => undefined,
      button: () => undefined,
      filetree: () => undefined,
      push: () => undefined,
    } as unknown as vscode.ChatResponseStream;
    const request = {
      prompt,
      command: undefined,
      references: options.references ?? [],
      toolReferences: options.toolReferences ?? [],
      model: this.model,
      toolInvocationToken: undefined,
    } as unknown as vscode.ChatRequest;
    const result = await this.handler(request, { history: this.history } as unknown as vscode.ChatContext, stream, new vscode.CancellationTokenSource().token);
    const text = parts.join('');
    this.history.push({ participant: PARTICIPANT, prompt, references: options.references ?? [] });
    this.history.push({ participant: PARTICIPANT, response: [{ value: new vscode.MarkdownString(text) }], result });
    return { result, text, progress, references };
  }
}

export const lastRequest = (fake: FakeModel): FakeRequest => fake.requests[fake.requests.length - 1]!;
export const lastUser = (r: FakeRequest) => r.messages[r.messages.length - 1]!;
export const allParts = (r: FakeRequest) => r.messages.flatMap((m) => m.parts);
export const attachedPart = (parts: readonly string[]) => parts.find((p) => p.startsWith(ENVELOPE_START) && p.includes(ATTACHED));
