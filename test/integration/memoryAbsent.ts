/**
 * What "memory is absent" means in a real VS Code, checked the same way in every phase that runs without the
 * flag (unset: flagUnset.test.ts; `=0`: memoryZero.flag0.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SessionKnowledgeApi } from '../../src/extension/api';
import { EXTENSION_ID } from './helpers';

const MEMORY_TOOLS = ['knowledge_remember', 'knowledge_recall', 'knowledge_read', 'knowledge_forget'];
const METHOD_NOT_FOUND = -32601;

export interface AbsentHooks {
  request(method: string, params?: unknown): Promise<unknown>;
  memory?: unknown;
  /** What the extension set the `sessionKnowledge.memoryFlag` context key to. */
  memoryFlag?: boolean;
  /** vscode-languageclient's State: 1 stopped (or never started), 3 starting, 2 running. */
  serverState(): number;
}

export function hooksOf(api: SessionKnowledgeApi): AbsentHooks {
  const hooks = (api as unknown as { __test?: AbsentHooks }).__test;
  assert.ok(hooks, 'the integration runner sets SK_TEST_HOOKS=1');
  return hooks;
}

/** No memory tool, no `api.memory`, no memory setting, no memory command, the context key false. */
export async function assertMemoryAbsent(api: SessionKnowledgeApi): Promise<void> {
  const names = vscode.lm.tools.map((t) => t.name);
  assert.ok(names.includes('knowledge_context'), 'the non-memory tools are there');
  for (const t of MEMORY_TOOLS) assert.ok(!names.includes(t), `${t} must not exist`);
  assert.equal(api.memory, undefined);
  const hooks = hooksOf(api);
  assert.equal(hooks.memory, undefined, 'no memory controller');
  assert.equal(hooks.memoryFlag, false, 'the sessionKnowledge.memoryFlag context key is false');
  const commands = await vscode.commands.getCommands(true);
  assert.deepEqual(commands.filter((c) => c.startsWith('sessionKnowledge.memory.')), [], 'no memory command is registered');
  const settings = Object.keys(vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.configuration.properties as object);
  assert.deepEqual(settings.filter((k) => /memory/i.test(k)), [], 'no memory setting anywhere the product shows settings');
  assert.equal(vscode.workspace.getConfiguration('sessionKnowledge').inspect('memory.enabled')?.defaultValue, undefined);
  // `@knowledge /distill` is offered only with the flag (VS Code filters slash commands by their `when`).
  const participant = (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.chatParticipants as { commands: { name: string; when?: string }[] }[])[0]!;
  assert.equal(participant.commands.find((c) => c.name === 'distill')?.when, 'sessionKnowledge.memoryFlag');
}

/** The server has no memory routes: its memory requests answer MethodNotFound. */
export async function assertNoMemoryRoutes(api: SessionKnowledgeApi): Promise<void> {
  const hooks = hooksOf(api);
  const notFound = (err: unknown) => (err as { code?: number }).code === METHOD_NOT_FOUND;
  await assert.rejects(hooks.request('knowledge/memory/status'), notFound);
  await assert.rejects(hooks.request('knowledge/memory/remember', { scope: 'project', type: 'fact', title: 'x' }), notFound);
  // No inbox, no distillation.
  await assert.rejects(hooks.request('knowledge/memory/inbox', {}), notFound);
  await assert.rejects(hooks.request('knowledge/memory/inbox/count'), notFound);
  await assert.rejects(hooks.request('knowledge/memory/distill/submit', { sessionKey: 's', model: 'm', turns: 1, proposals: [] }), notFound);
  await assert.rejects(hooks.request('knowledge/memory/inbox/approve', { ids: ['x'] }), notFound);
}
