import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateApi, waitFor } from './helpers';
import { assertMemoryAbsent, assertNoMemoryRoutes } from './memoryAbsent';

type Handler = (r: vscode.ChatRequest, c: vscode.ChatContext, s: vscode.ChatResponseStream, t: vscode.CancellationToken) => Promise<vscode.ChatResult>;

suite('memory is absent when SESSION_KNOWLEDGE_MEMORY_ENABLE is unset', () => {
  test('no memory tools, no memory member on the API, no memory setting', async () => {
    assert.ok(!process.env.SESSION_KNOWLEDGE_MEMORY_ENABLE, 'this phase runs with the flag unset');
    await assertMemoryAbsent(await activateApi());
  });

  test('the server has no memory routes (MethodNotFound)', async () => {
    await assertNoMemoryRoutes(await activateApi());
  });

  test('@knowledge /distill does not exist: the command is an ordinary message and no distillation prompt reaches the model', async () => {
    const api = await activateApi();
    const handler = (api as unknown as { __test: { chatHandler: Handler } }).__test.chatHandler;
    const fake = await vscode.extensions.getExtension<{ requests: { messages: { parts: string[] }[] }[]; reset(): void }>('sktest.fake-model')!.activate();
    fake.reset();
    const model = await waitFor(async () => (await vscode.lm.selectChatModels({ vendor: 'sk-fake', family: 'sk-fake-large' }))[0], 'the fake model');
    const parts: string[] = [];
    const stream = { markdown: (v: string) => parts.push(v), reference: () => undefined, progress: () => undefined } as unknown as vscode.ChatResponseStream;
    const request = { prompt: 'what did we decide?', command: 'distill', references: [], toolReferences: [], model, toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
    await handler(request, { history: [] } as unknown as vscode.ChatContext, stream, new vscode.CancellationTokenSource().token);
    const sent = fake.requests.flatMap((r) => r.messages.flatMap((m) => m.parts)).join('\n');
    assert.ok(sent.includes('what did we decide?'), 'answered as a message');
    assert.ok(!sent.includes('Answer with ONLY a JSON array'), 'no distillation prompt');
    assert.ok(!parts.join('').includes('memory inbox'));
  });
});
