import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi, waitFor, workspaceFolder } from './helpers';
import type { SessionKnowledgeApi } from '../../src/extension/api';

type Handler = (r: vscode.ChatRequest, c: vscode.ChatContext, s: vscode.ChatResponseStream, t: vscode.CancellationToken) => Promise<vscode.ChatResult>;
interface TestHooks {
  chatHandler: Handler;
  scheduler: { tick(now?: Date): Promise<void> };
}
interface FakeModel {
  requests: { model: string; messages: { role: string; parts: string[] }[] }[];
  mode: 'ok' | 'fail' | 'slow';
  reply: string;
  delayMs: number;
  reset(): void;
}

const PARTICIPANT = 'sessionknowledge.knowledge';
const BLOCK_START = '<knowledge-untrusted>';
const PHASE2_FILE = '.sk-test-session.json';

async function hooks(): Promise<{ api: SessionKnowledgeApi; hooks: TestHooks; fake: FakeModel }> {
  const api = await activateApi();
  const h = (api as unknown as { __test?: TestHooks }).__test;
  assert.ok(h, 'test hooks are on (SK_TEST_HOOKS=1)');
  const ext = vscode.extensions.getExtension<FakeModel>('sktest.fake-model');
  assert.ok(ext, 'the fake model fixture is loaded');
  const fake = await ext.activate();
  return { api, hooks: h, fake };
}

async function model(family: string): Promise<vscode.LanguageModelChat> {
  return waitFor(async () => (await vscode.lm.selectChatModels({ vendor: 'sk-fake', family }))[0], `the fake model ${family}`);
}

/** A conversation with @knowledge, driven through the participant's real handler. */
class Conversation {
  readonly history: unknown[] = [];
  constructor(
    private readonly handler: Handler,
    private readonly m: vscode.LanguageModelChat | undefined,
  ) {}

  async send(prompt: string, options: { command?: string; token?: vscode.CancellationToken } = {}): Promise<{ result: vscode.ChatResult; text: string }> {
    const parts: string[] = [];
    const stream = {
      markdown: (v: string | vscode.MarkdownString) => parts.push(typeof v === 'string' ? v : v.value),
      reference: () => undefined,
      progress: () => undefined,
      anchor: () => undefined,
      button: () => undefined,
      filetree: () => undefined,
      push: () => undefined,
    } as unknown as vscode.ChatResponseStream;
    const request = { prompt, command: options.command, references: [], toolReferences: [], model: this.m, toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
    const result = await this.handler(request, { history: this.history } as unknown as vscode.ChatContext, stream, options.token ?? new vscode.CancellationTokenSource().token);
    const text = parts.join('');
    this.history.push({ participant: PARTICIPANT, prompt, command: options.command, references: [] });
    this.history.push({ participant: PARTICIPANT, response: [{ value: new vscode.MarkdownString(text) }], result });
    return { result, text };
  }

  get key(): string {
    const last = this.history[this.history.length - 1] as { result: vscode.ChatResult };
    return (last.result.metadata as { sessionKey: string }).sessionKey;
  }
}

const lastRequest = (fake: FakeModel) => fake.requests[fake.requests.length - 1]!;
const lastUser = (fake: FakeModel) => lastRequest(fake).messages[lastRequest(fake).messages.length - 1]!;

suite('@knowledge: delivery through the real participant, server and store (fake model)', () => {
  const ws = () => workspaceFolder();
  const note = '.knowledge/notes/chat-conventions.md';
  const plan = '.knowledge/plans/chat-plan.md';

  suiteSetup(async () => {
    await fs.mkdir(join(ws(), '.knowledge/notes'), { recursive: true });
    await fs.mkdir(join(ws(), '.knowledge/plans'), { recursive: true });
    await fs.writeFile(join(ws(), note), '# Chat conventions\n\nUse pnpm. Tabs, not spaces.\n');
    await fs.writeFile(join(ws(), plan), '# Chat plan\n\n- [ ] ship the participant\n');
  });

  test('the first message carries the block as its own part; the second does not; the draft passes into the session', async () => {
    const { hooks: h, fake, api } = await hooks();
    fake.reset();
    await vscode.commands.executeCommand('sessionKnowledge.pinToNextChat', note);
    const chat = new Conversation(h.chatHandler, await model('sk-fake-large'));
    const first = await chat.send('How do we format code?');
    assert.ok(first.text.includes('fake answer'));
    const user = lastUser(fake);
    assert.equal(user.role, 'user');
    assert.equal(user.parts.length, 2, 'block and prompt are separate parts');
    assert.ok(user.parts[0]!.startsWith(BLOCK_START) && user.parts[0]!.includes('Tabs, not spaces.'));
    assert.equal(user.parts[1], 'How do we format code?');
    assert.deepEqual(await api.getDraftPins(), [], 'the draft emptied into the session');
    assert.deepEqual((await api.sessions.getPins(chat.key)).notes, [note]);
    assert.notEqual(await api.delivery.delivered(chat.key), '');

    await chat.send('And tests?');
    const second = lastUser(fake);
    assert.deepEqual(second.parts, ['And tests?'], 'nothing added the second time');
    // The model still sees the first block in the rebuilt history, exactly once.
    const all = lastRequest(fake).messages.flatMap((m) => m.parts).filter((p) => p.startsWith(BLOCK_START));
    assert.equal(all.length, 1);

    // The tree's "Active Chat Session" actions act on this session.
    await vscode.commands.executeCommand('sessionKnowledge.pinToActiveSession', plan);
    assert.deepEqual((await api.sessions.getPins(chat.key)).plans, [plan]);
    await chat.send('and the plan?');
    assert.ok(lastUser(fake).parts[0]!.includes('ship the participant'), 'the newly pinned plan is sent with the next message');
    await vscode.commands.executeCommand('sessionKnowledge.unpinFromActiveSession', plan);
    assert.deepEqual((await api.sessions.getPins(chat.key)).plans, []);
  });

  test('editing a pinned note re-sends; saving it unchanged does not; renaming re-sends; unpinning changes the signature', async () => {
    const { hooks: h, fake, api } = await hooks();
    fake.reset();
    const chat = new Conversation(h.chatHandler, await model('sk-fake-large'));
    await chat.send('/pin', { command: 'pin' }); // no argument: explains, creates the session
    await api.sessions.setPins(chat.key, { notes: [note], plans: [plan] });
    await chat.send('start');
    assert.ok(lastUser(fake).parts[0]!.includes('ship the participant'));
    const sig1 = await api.delivery.delivered(chat.key);

    await fs.writeFile(join(ws(), plan), '# Chat plan\n\n- [ ] ship the participant\n'); // same bytes
    await chat.send('unchanged?');
    assert.equal(lastUser(fake).parts.length, 1);

    await fs.writeFile(join(ws(), plan), '# Chat plan\n\n- [x] ship the participant\n- [ ] write the docs\n');
    await chat.send('edited?');
    assert.ok(lastUser(fake).parts[0]!.includes('write the docs'), 'the edit is re-sent');
    const sig2 = await api.delivery.delivered(chat.key);
    assert.notEqual(sig2, sig1);

    const renamed = '.knowledge/plans/chat-plan-renamed.md';
    const edit = new vscode.WorkspaceEdit();
    edit.renameFile(vscode.Uri.file(join(ws(), plan)), vscode.Uri.file(join(ws(), renamed)));
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitFor(async () => (await api.sessions.getPins(chat.key)).plans.includes(renamed), 'the pin to follow the rename');
    await chat.send('renamed?');
    assert.ok(lastUser(fake).parts[0]!.includes(renamed), 'the renamed plan is re-sent under its new id');

    const sig3 = await api.delivery.delivered(chat.key);
    await api.sessions.setPins(chat.key, { notes: [note], plans: [] });
    assert.notEqual((await api.delivery.resolvePending(chat.key)).signature, sig3);
    await fs.rename(join(ws(), renamed), join(ws(), plan));
  });

  test('a failed or cancelled send records nothing, and the next message carries the block', async () => {
    const { hooks: h, fake, api } = await hooks();
    fake.reset();
    const chat = new Conversation(h.chatHandler, await model('sk-fake-large'));
    await chat.send('/pins', { command: 'pins' });
    await api.sessions.setPins(chat.key, { notes: [note], plans: [] });

    fake.mode = 'fail';
    const failed = await chat.send('this fails');
    assert.ok(failed.result.errorDetails, 'the failure is reported to the person');
    assert.equal(await api.delivery.delivered(chat.key), '', 'nothing recorded');

    fake.mode = 'slow';
    fake.delayMs = 5000;
    const source = new vscode.CancellationTokenSource();
    setTimeout(() => source.cancel(), 300);
    await chat.send('cancelled', { token: source.token });
    assert.equal(await api.delivery.delivered(chat.key), '', 'a cancelled send records nothing');

    fake.mode = 'ok';
    await chat.send('now it works');
    assert.ok(lastUser(fake).parts[0]!.startsWith(BLOCK_START));
    assert.notEqual(await api.delivery.delivered(chat.key), '');
  });

  test('compaction re-sends the block once, in one message with the pinned messages', async () => {
    const { hooks: h, fake, api } = await hooks();
    fake.reset();
    const small = await model('sk-fake-small'); // 1,500 input tokens: compacts past 900
    const chat = new Conversation(h.chatHandler, small);
    await chat.send('/pins', { command: 'pins' });
    await api.sessions.setPins(chat.key, { notes: [note], plans: [] });
    await chat.send('Remember: the release branch is release/2.0', {});
    await chat.send('', { command: 'pinmessage' }); // pins the previous message
    fake.reply = 'x'.repeat(1200);
    for (let i = 0; i < 3; i++) await chat.send(`long question ${i} ${'detail '.repeat(150)}`);
    const before = fake.requests.length;
    fake.reply = 'fake answer';
    const { result } = await chat.send('and now?');
    const sent = fake.requests.slice(before);
    assert.equal(sent.length, 2, 'one summary request, then the message');
    assert.ok(sent[0]!.messages[0]!.parts[0]!.startsWith('Summarise this conversation'));
    const messages = sent[1]!.messages;
    const synthetic = messages.map((m) => m.parts.some((p) => p.startsWith(BLOCK_START) || p.startsWith('Summary of the earlier conversation')));
    assert.equal(synthetic[0], true, 'the compaction message comes first');
    for (let i = 1; i < synthetic.length; i++) assert.ok(!(synthetic[i] && synthetic[i - 1]), 'never two synthetic messages back to back');
    const first = messages[0]!;
    assert.ok(first.parts.some((p) => p.includes('SUMMARY:')));
    assert.ok(first.parts.some((p) => p.startsWith(BLOCK_START) && p.includes('Tabs, not spaces.')));
    assert.ok(first.parts.some((p) => p.includes('release/2.0')), 'the pinned message travels with the block');
    assert.equal(messages.flatMap((m) => m.parts).filter((p) => p.startsWith(BLOCK_START)).length, 1, 'the block is there once');
    assert.ok((result.metadata as { compaction?: unknown }).compaction);
    assert.notEqual(await api.delivery.delivered(chat.key), '');
  });

  test('a deleted plan is marked unavailable and the rest is still delivered', async () => {
    const { hooks: h, fake, api } = await hooks();
    fake.reset();
    const chat = new Conversation(h.chatHandler, await model('sk-fake-large'));
    await chat.send('/pins', { command: 'pins' });
    const doomed = '.knowledge/plans/doomed.md';
    await fs.writeFile(join(ws(), doomed), '# Doomed\n');
    await api.sessions.setPins(chat.key, { notes: [note], plans: [doomed] });
    await fs.rm(join(ws(), doomed));
    await chat.send('what do you know?');
    const block = lastUser(fake).parts[0]!;
    assert.ok(block.includes('Tabs, not spaces.'));
    assert.match(block, /doomed\.md is unavailable/);
  });

  test("the block's budget is checked with the model's own countTokens: over budget, it is compiled smaller and cut loudly", async () => {
    const { hooks: h, fake, api } = await hooks();
    fake.reset();
    const big = '.knowledge/notes/budget-note.md';
    await fs.writeFile(join(ws(), big), `# Budget note\n\n${'Tokenizers disagree about how long this sentence is. '.repeat(55)}\n`);
    const config = vscode.workspace.getConfiguration('sessionKnowledge');
    await config.update('blockTokenBudget', 1000, vscode.ConfigurationTarget.Workspace);
    try {
      const dense = await model('sk-fake-dense');
      const chat = new Conversation(h.chatHandler, dense);
      await chat.send('/pins', { command: 'pins' });
      await api.sessions.setPins(chat.key, { notes: [big], plans: [] });
      // By our estimate (chars/4) the whole note fits 1,000 tokens; by this model's count it does not.
      assert.equal((await api.delivery.resolvePending(chat.key)).text.includes('Cut to fit'), false);
      await chat.send('summarise the note');
      const block = lastUser(fake).parts[0]!;
      assert.ok(block.startsWith(BLOCK_START));
      assert.match(block, /Cut to fit the \d+-token budget/);
      assert.ok((await dense.countTokens(block)) <= 1000, 'the block sent fits the budget by the model\'s own count');
    } finally {
      await config.update('blockTokenBudget', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('without a model, commands still answer and conversation says it needs a model', async () => {
    const { hooks: h } = await hooks();
    const chat = new Conversation(h.chatHandler, undefined);
    const pins = await chat.send('', { command: 'pins' });
    assert.match(pins.text, /pins/i);
    const talk = await chat.send('hello');
    assert.match(talk.text, /needs a language model/);
    const status = await chat.send('', { command: 'status' });
    assert.match(status.text, /never delivered/);
  });

  test('a scheduled prompt and a dispatched session get the block with no UI', async () => {
    const { hooks: h, fake } = await hooks();
    fake.reset();
    const config = vscode.workspace.getConfiguration('sessionKnowledge');
    await config.update('dispatchModelFamily', 'sk-fake-large', vscode.ConfigurationTarget.Workspace);
    await config.update('scheduledPrompts', [{ name: 'nightly-test', prompt: 'Summarise open plans', pins: [note], everyMinutes: 60 }], vscode.ConfigurationTarget.Workspace);
    const now = new Date();
    await h.scheduler.tick(now);
    assert.equal(fake.requests.length, 1, 'the schedule ran once');
    assert.ok(lastUser(fake).parts[0]!.startsWith(BLOCK_START));
    assert.equal(lastUser(fake).parts[1], 'Summarise open plans');
    await h.scheduler.tick(now);
    assert.equal(fake.requests.length, 1, 'the same slot never runs twice');

    const result = await vscode.lm.invokeTool('knowledge_dispatch', { input: { prompt: 'Check the plan', pins: [note] }, toolInvocationToken: undefined });
    const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(text, /with the pinned knowledge/);
    assert.match(text, /fake answer/);
    assert.equal(fake.requests.length, 2);
    assert.ok(lastUser(fake).parts[0]!.includes('Tabs, not spaces.'));

    const context = await vscode.lm.invokeTool('knowledge_context', { input: { pins: [note] }, toolInvocationToken: undefined });
    const ctxText = context.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.ok(ctxText.startsWith(BLOCK_START) && ctxText.includes('Tabs, not spaces.'));
    await config.update('scheduledPrompts', undefined, vscode.ConfigurationTarget.Workspace);
  });

  test('another extension uses the API: create, resolve, mark delivered, compaction, refusal of secrets', async () => {
    await fs.writeFile(join(ws(), '.env'), 'API_TOKEN=never\n');
    const r = await vscode.commands.executeCommand<Record<string, unknown>>('sktest.apiConsumer.run', { notes: [note], plans: [] });
    assert.equal(r.apiVersion, 1);
    assert.ok(String(r.firstText).includes('Tabs, not spaces.'));
    assert.equal(r.deliveredBefore, '');
    assert.equal(r.deliveredAfter, r.signature);
    assert.equal(r.secondText, '');
    assert.equal(r.compactedText, r.firstText);
    assert.match(String(r.refused), /secret/);
    assert.deepEqual((r.pins as { notes: string[] }).notes, [note]);
  });

  test('phase 1 of the restart test: a delivered session', async () => {
    const { api } = await hooks();
    const key = await api.sessions.create({ pins: { notes: [note], plans: [] }, label: 'restart' });
    const pending = await api.delivery.resolvePending(key);
    await api.delivery.markDelivered(key, pending.signature);
    await fs.writeFile(join(ws(), PHASE2_FILE), JSON.stringify({ key, signature: pending.signature }));
  });
});
