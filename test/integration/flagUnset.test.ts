import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, activateApi } from './helpers';

const MEMORY_TOOLS = ['knowledge_remember', 'knowledge_recall', 'knowledge_read', 'knowledge_forget'];

suite('memory is absent when SESSION_KNOWLEDGE_MEMORY_ENABLE is unset', () => {
  test('no memory tools, no memory member on the API, no memory setting', async () => {
    assert.ok(!process.env.SESSION_KNOWLEDGE_MEMORY_ENABLE, 'this phase runs with the flag unset');
    const api = await activateApi();
    const names = vscode.lm.tools.map((t) => t.name);
    assert.ok(names.includes('knowledge_context'), 'the non-memory tools are there');
    for (const t of MEMORY_TOOLS) assert.ok(!names.includes(t), `${t} must not exist`);
    assert.equal(api.memory, undefined);
    const settings = Object.keys(vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.configuration.properties as object);
    assert.deepEqual(settings.filter((k) => /memory/i.test(k)), [], 'no memory setting anywhere the product shows settings');
    assert.equal(vscode.workspace.getConfiguration('sessionKnowledge').inspect('memory.enabled')?.defaultValue, undefined);
  });

  test('the server has no memory routes (MethodNotFound)', async () => {
    const api = await activateApi();
    const hooks = (api as unknown as { __test: { request(method: string, params?: unknown): Promise<unknown> } }).__test;
    await assert.rejects(hooks.request('knowledge/memory/status'), (err: unknown) => (err as { code?: number }).code === -32601);
    await assert.rejects(hooks.request('knowledge/memory/remember', { scope: 'project', type: 'fact', title: 'x' }), (err: unknown) => (err as { code?: number }).code === -32601);
  });
});
