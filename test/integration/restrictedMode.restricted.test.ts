import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi, waitFor, workspaceFolder } from './helpers';
import type { SessionKnowledgeApi } from '../../src/extension/api';
import { COPILOT_INSTRUCTIONS_FILE } from '../../src/server/core/agents/copilotInstructions';
import type { AskWorkspaceSetting, GuardedSettings } from '../../src/extension/guardedSettings';

type Handler = (r: vscode.ChatRequest, c: vscode.ChatContext, s: vscode.ChatResponseStream, t: vscode.CancellationToken) => Promise<vscode.ChatResult>;
interface TestHooks {
  chatHandler: Handler;
  scheduler: { tick(now?: Date): Promise<void> };
  guardedSettings?: GuardedSettings;
}
type Question = Parameters<AskWorkspaceSetting>[0] & { answer: (allowed: boolean | undefined) => void };
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
  /** Questions about the repository's settings (asked once the folder is trusted), answered by the last test. */
  const questions: Question[] = [];

  /** One @knowledge message in the conversation of session `key`; answers what the participant wrote. */
  async function chat(key: string, prompt: string, command?: string): Promise<{ text: string; result: vscode.ChatResult }> {
    const model = await waitFor(async () => (await vscode.lm.selectChatModels({ vendor: 'sk-fake', family: 'sk-fake-large' }))[0], 'the fake model');
    const parts: string[] = [];
    const stream = { markdown: (v: string | vscode.MarkdownString) => parts.push(typeof v === 'string' ? v : v.value), reference: () => undefined, progress: () => undefined } as unknown as vscode.ChatResponseStream;
    // An earlier turn of this conversation carries the session's key, as VS Code hands the history back.
    const history = [
      { participant: PARTICIPANT, prompt: 'hello', references: [] },
      { participant: PARTICIPANT, response: [{ value: new vscode.MarkdownString('hi') }], result: { metadata: { sessionKey: key } } },
    ];
    const request = { prompt, command, references: [], toolReferences: [], model, toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
    const result = await h.chatHandler(request, { history } as unknown as vscode.ChatContext, stream, new vscode.CancellationTokenSource().token);
    return { text: parts.join(''), result };
  }
  let sessionKey = '';

  suiteSetup(async () => {
    api = await activateApi();
    h = (api as unknown as { __test: TestHooks }).__test;
    const ext = vscode.extensions.getExtension<FakeModel>('sktest.fake-model');
    assert.ok(ext, 'the fake model fixture is loaded');
    fake = await ext.activate();
    if (h?.guardedSettings) h.guardedSettings.ask = (q) => new Promise((answer) => questions.push({ ...q, answer }));
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
    const key = await api.sessions.create({ pins: { notes: [NOTE], plans: [] } });
    sessionKey = key;
    const { text, result } = await chat(key, 'What are the conventions?');
    assert.equal(fake.requests.length, 1, 'the message reached the model');
    const sent = fake.requests[0]!.messages.flatMap((m) => m.parts).join('\n');
    assert.ok(sent.includes('What are the conventions?'), 'the person\'s words went');
    assert.ok(!sent.includes('<knowledge-untrusted') && !sent.includes('release/2.0'), 'without the knowledge block');
    assert.equal(text.match(/Restricted Mode/g)?.length, 1, `said once: ${text}`);
    assert.match(text, /Trust this folder/);
    assert.equal((result.metadata as { block?: string }).block, undefined, 'no block rides with the turn');
    // Other extensions get an error naming Restricted Mode, never the block.
    await assert.rejects(api.delivery.resolvePending(key), /Restricted Mode/);
    assert.equal(await api.delivery.delivered(key), '', 'nothing was recorded as delivered');
    // /status shows the person what is held back, and why.
    const status = await chat(key, '', 'status');
    assert.match(status.text, /Restricted Mode/);
    assert.match(status.text, /sent once the folder is trusted/);
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

  // Last: it ends Restricted Mode for this window.
  test('trust granted: everything resumes without a reload, and the repository\'s settings still wait for this person', async () => {
    assert.ok(h.guardedSettings, 'the settings guard is exposed to tests');
    const granted = new Promise<void>((resolve) => vscode.workspace.onDidGrantWorkspaceTrust(() => resolve()));
    await vscode.commands.executeCommand('workbench.trust.manage');
    console.log('SK_GRANT_WORKSPACE_TRUST'); // the launcher clicks Trust in the Workspace Trust editor, as the person would
    await Promise.race([granted, new Promise((_, reject) => setTimeout(() => reject(new Error('trust was not granted')), 40_000))]);
    assert.equal(vscode.workspace.isTrusted, true);

    // @knowledge delivers the block the session was owed, with no Restricted Mode note.
    fake.reset();
    const { text } = await chat(sessionKey, 'And now?');
    const sent = fake.requests[0]!.messages.flatMap((m) => m.parts).join('\n');
    assert.ok(sent.includes('<knowledge-untrusted nonce=') && sent.includes('release/2.0'), 'the block went');
    assert.ok(!/Restricted Mode/.test(text));
    const context = toolText(await vscode.lm.invokeTool('knowledge_context', { input: { pins: [NOTE] }, toolInvocationToken: undefined }));
    assert.ok(context.includes('release/2.0'), 'the tool answers the block');

    // The repository's shareWithCopilot is now read, but writes nothing until this person allows it.
    const file = join(ws(), COPILOT_INSTRUCTIONS_FILE);
    const share = await waitFor(() => questions.find((q) => q.setting === 'shareWithCopilot'), 'the question about the repository\'s shareWithCopilot');
    assert.ok(!existsSync(file), 'nothing written while the question is open');
    share.answer(true);
    await waitFor(async () => existsSync(file) && (await fs.readFile(file, 'utf8')).includes('release/2.0'), 'the instruction file once allowed');

    // Its scheduled prompt asks too, naming the schedule and its pins; kept off, it never runs.
    fake.reset();
    await h.scheduler.tick(new Date());
    const schedule = await waitFor(() => questions.find((q) => q.setting === 'scheduledPrompts'), 'the question about the repository\'s scheduledPrompts');
    assert.match(schedule.message, /"repo-chosen" every 1 min with pins \.knowledge\/notes\/conventions\.md/);
    schedule.answer(false);
    await new Promise((r) => setTimeout(r, 200));
    await h.scheduler.tick(new Date(Date.now() + 2 * 60_000));
    assert.equal(fake.requests.length, 0, 'the repository\'s schedule stays off');
    // Hook install works again (then removed: the fixture folder is copied per run, but keep it clean).
    assert.ok(await vscode.commands.executeCommand('sessionKnowledge.installClaudeCodeHook'), 'hook install works once trusted');
    assert.ok(existsSync(join(ws(), '.claude/settings.local.json')));
  });
});
