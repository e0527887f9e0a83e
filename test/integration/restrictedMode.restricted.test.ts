import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi, waitFor, workspaceFolder } from './helpers';
import type { SessionKnowledgeApi } from '../../src/extension/api';
import { COPILOT_INSTRUCTIONS_FILE } from '../../src/server/agents/copilotInstructions';

type Handler = (r: vscode.ChatRequest, c: vscode.ChatContext, s: vscode.ChatResponseStream, t: vscode.CancellationToken) => Promise<vscode.ChatResult>;
interface TestHooks {
  chatHandler: Handler;
  scheduler: { tick(now?: Date): Promise<void> };
}
interface FakeModel {
  requests: { model: string; messages: { role: string; parts: string[] }[] }[];
  reset(): void;
}

const PARTICIPANT = 'sessionknowledge.knowledge';
const NOTE = '.knowledge/notes/conventions.md';
const FLAGGED = '.knowledge/notes/poisoned.md';
const toolText = (r: vscode.LanguageModelToolResult) => r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

// Phase "restricted": test/fixtures/restricted opened WITHOUT trust (VS Code's Restricted Mode). The repository's
// .vscode/settings.json turns on shareWithCopilot and a scheduled prompt, and .knowledge/pins.json pins a note.
// Scanning and warnings keep working; nothing reaches a model or another tool.
suite('Restricted Mode: an untrusted repository is scanned and warned about, and nothing is delivered or written for other tools', () => {
  const ws = () => workspaceFolder();
  let api: SessionKnowledgeApi;
  let h: TestHooks;
  let fake: FakeModel;

  suiteSetup(async () => {
    api = await activateApi();
    h = (api as unknown as { __test: TestHooks }).__test;
    const ext = vscode.extensions.getExtension<FakeModel>('sktest.fake-model');
    assert.ok(ext, 'the fake model fixture is loaded');
    fake = await ext.activate();
  });

  test('the folder is not trusted, and the extension runs in it (limited support)', () => {
    assert.equal(vscode.workspace.isTrusted, false);
    assert.ok(api.apiVersion >= 1);
    // restrictedConfigurations: VS Code ignores the repository's values of both settings here.
    const config = vscode.workspace.getConfiguration('sessionKnowledge');
    assert.equal(config.get('shareWithCopilot'), false);
    assert.deepEqual(config.get('scheduledPrompts'), []);
  });

  test('scanning and warnings keep working: the flagged note is listed as flagged and its diagnostics appear', async () => {
    await waitFor(async () => (await api.listItems()).some((i) => i.id === FLAGGED && i.flagged), 'the poisoned note indexed and flagged');
    const uri = vscode.Uri.file(join(ws(), FLAGGED));
    await vscode.workspace.openTextDocument(uri);
    const diagnostics = await waitFor(() => {
      const d = vscode.languages.getDiagnostics(uri);
      return d.length > 0 ? d : undefined;
    }, 'diagnostics on the poisoned note');
    assert.ok(diagnostics.some((d) => d.severity === vscode.DiagnosticSeverity.Warning || d.severity === vscode.DiagnosticSeverity.Error));
  });

  test('@knowledge sends the message without the knowledge block and says why, once; the session stays owed it', async () => {
    fake.reset();
    const model = await waitFor(async () => (await vscode.lm.selectChatModels({ vendor: 'sk-fake', family: 'sk-fake-large' }))[0], 'the fake model');
    const key = await api.sessions.create({ pins: { notes: [NOTE], plans: [] } });
    const parts: string[] = [];
    const stream = { markdown: (v: string | vscode.MarkdownString) => parts.push(typeof v === 'string' ? v : v.value), reference: () => undefined, progress: () => undefined } as unknown as vscode.ChatResponseStream;
    // An earlier turn of this conversation carries the session's key, as VS Code hands the history back.
    const history = [
      { participant: PARTICIPANT, prompt: 'hello', references: [] },
      { participant: PARTICIPANT, response: [{ value: new vscode.MarkdownString('hi') }], result: { metadata: { sessionKey: key } } },
    ];
    const request = { prompt: 'What are the conventions?', references: [], toolReferences: [], model, toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
    const result = await h.chatHandler(request, { history } as unknown as vscode.ChatContext, stream, new vscode.CancellationTokenSource().token);
    assert.equal(fake.requests.length, 1, 'the message reached the model');
    const sent = fake.requests[0]!.messages.flatMap((m) => m.parts).join('\n');
    assert.ok(sent.includes('What are the conventions?'), 'the person\'s words went');
    assert.ok(!sent.includes('<knowledge-untrusted>') && !sent.includes('release/2.0'), 'without the knowledge block');
    const text = parts.join('');
    assert.equal(text.match(/Restricted Mode/g)?.length, 1, `said once: ${text}`);
    assert.match(text, /Trust this folder/);
    assert.equal((result.metadata as { block?: string }).block, undefined, 'no block rides with the turn');
    // Other extensions get an error naming Restricted Mode, never the block.
    await assert.rejects(api.delivery.resolvePending(key), /Restricted Mode/);
    assert.equal(await api.delivery.delivered(key), '', 'nothing was recorded as delivered');
  });

  test('the knowledge_context and knowledge_dispatch tools answer a notice instead of the block', async () => {
    fake.reset();
    const context = toolText(await vscode.lm.invokeTool('knowledge_context', { input: { pins: [NOTE] }, toolInvocationToken: undefined }));
    assert.match(context, /Restricted Mode/);
    assert.ok(!context.includes('release/2.0'));
    const dispatched = toolText(await vscode.lm.invokeTool('knowledge_dispatch', { input: { prompt: 'Check it', pins: [NOTE] }, toolInvocationToken: undefined }));
    assert.match(dispatched, /Nothing was dispatched.*Restricted Mode/s);
    assert.equal(fake.requests.length, 0, 'no model was asked');
  });

  test('no file is written for other tools: the Copilot instruction file, the Claude Code hook, .mcp.json', async () => {
    // The repository's shareWithCopilot and pins.json would have the file written as soon as the server answered.
    await waitFor(async () => (await api.listItems()).some((i) => i.id === NOTE), 'the server indexed the folder');
    await new Promise((r) => setTimeout(r, 1500)); // longer than the share's debounce (250 ms)
    assert.ok(!existsSync(join(ws(), COPILOT_INSTRUCTIONS_FILE)), 'no Copilot instruction file');
    assert.deepEqual(await vscode.commands.executeCommand('sessionKnowledge.shareWithCopilot'), { state: 'restricted', pins: 0, tokens: 0 }, 'Share is refused');
    assert.ok(!existsSync(join(ws(), '.github')), 'still no instruction file');
    assert.equal(await vscode.commands.executeCommand('sessionKnowledge.installClaudeCodeHook'), undefined, 'hook install is refused');
    assert.ok(!existsSync(join(ws(), '.claude')), 'no .claude/settings.local.json');
    assert.equal(await vscode.commands.executeCommand('sessionKnowledge.writeMcpJson'), undefined, 'Write .mcp.json is refused');
    assert.ok(!existsSync(join(ws(), '.mcp.json')), 'no .mcp.json');
  });

  test("no scheduled prompt runs: neither the repository's nor the person's own", async () => {
    fake.reset();
    await h.scheduler.tick(new Date());
    assert.equal(fake.requests.length, 0, "the repository's schedule did not run");
    // The person's own (user) schedule waits for trust too: it would deliver this folder's pinned knowledge.
    const config = vscode.workspace.getConfiguration('sessionKnowledge');
    await config.update('scheduledPrompts', [{ name: 'mine', prompt: 'Summarise', pins: [NOTE], everyMinutes: 1 }], vscode.ConfigurationTarget.Global);
    try {
      await waitFor(() => (vscode.workspace.getConfiguration('sessionKnowledge').inspect('scheduledPrompts')?.globalValue as unknown[] | undefined)?.length === 1, 'the user setting written');
      await h.scheduler.tick(new Date(Date.now() + 5 * 60_000));
      assert.equal(fake.requests.length, 0, 'no model was asked on a schedule');
      assert.equal(await vscode.commands.executeCommand('sessionKnowledge.runScheduledPrompt', 'mine'), undefined, 'Run Scheduled Prompt Now is refused');
      assert.equal(fake.requests.length, 0);
    } finally {
      await config.update('scheduledPrompts', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
