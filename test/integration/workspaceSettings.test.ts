import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi, waitFor, workspaceFolder } from './helpers';
import type { AskWorkspaceSetting, GuardedSettings } from '../../src/extension/guardedSettings';
import { COPILOT_INSTRUCTIONS_FILE } from '../../src/server/core/agents/copilotInstructions';

interface TestHooks {
  scheduler: { tick(now?: Date): Promise<void> };
  guardedSettings: GuardedSettings;
}
interface FakeModel {
  requests: { model: string; messages: { role: string; parts: string[] }[] }[];
  reset(): void;
}
type Question = Parameters<AskWorkspaceSetting>[0] & { answer: (allowed: boolean | undefined) => void };

const NOTE = '.knowledge/notes/welcome.md';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A workspace value (the repository's .vscode/settings.json, written here as a repository would have it) of
// shareWithCopilot or scheduledPrompts takes effect only once this person confirmed it; their own (user) values
// work as ever. The person's answer is given through the question the extension asks (GuardedSettings.ask).
suite('settings a repository must not turn on: shareWithCopilot and scheduledPrompts from the workspace wait for this person', () => {
  const ws = () => workspaceFolder();
  const config = () => vscode.workspace.getConfiguration('sessionKnowledge');
  let h: TestHooks;
  let fake: FakeModel;
  const questions: Question[] = [];
  let ask: AskWorkspaceSetting;

  suiteSetup(async () => {
    const api = await activateApi();
    h = (api as unknown as { __test: TestHooks }).__test;
    fake = await vscode.extensions.getExtension<FakeModel>('sktest.fake-model')!.activate();
    // Each question waits for the test's answer, as a notification waits for the person.
    if (h.guardedSettings) {
      ask = h.guardedSettings.ask;
      h.guardedSettings.ask = (q) => new Promise((answer) => questions.push({ ...q, answer }));
    }
    await config().update('dispatchModelFamily', 'sk-fake-large', vscode.ConfigurationTarget.Workspace);
  });

  suiteTeardown(async () => {
    if (h.guardedSettings) h.guardedSettings.ask = ask;
    await vscode.commands.executeCommand('sessionKnowledge.stopSharingWithCopilot');
    for (const key of ['shareWithCopilot', 'scheduledPrompts', 'dispatchModelFamily']) {
      await config().update(key, undefined, vscode.ConfigurationTarget.Workspace);
      await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    }
    await vscode.commands.executeCommand('sessionKnowledge.unpinFromAllAgents', NOTE);
    await fs.rm(join(ws(), '.github'), { recursive: true, force: true });
  });

  test('a workspace value of shareWithCopilot writes nothing until confirmed; the question names it; once allowed, the file follows', async () => {
    const file = join(ws(), COPILOT_INSTRUCTIONS_FILE);
    await vscode.commands.executeCommand('sessionKnowledge.pinForAllAgents', NOTE);
    questions.length = 0;
    await config().update('shareWithCopilot', true, vscode.ConfigurationTarget.Workspace);
    await sleep(1500); // longer than the share's debounce (250 ms)
    assert.ok(!existsSync(file), 'no instruction file while the question is open');
    const question = await waitFor(() => questions.find((q) => q.setting === 'shareWithCopilot'), 'the question about shareWithCopilot');
    assert.match(question.message, /This workspace's settings \(not your user settings\) turn on sessionKnowledge\.shareWithCopilot/);
    assert.match(question.message, /\.github\/instructions\/session-knowledge\.instructions\.md/);
    question.answer(true);
    await waitFor(async () => existsSync(file) && (await fs.readFile(file, 'utf8')).includes('Welcome to Session Knowledge'), 'the instruction file once allowed');
    assert.equal(questions.filter((q) => q.setting === 'shareWithCopilot').length, 1, 'asked once');
    assert.equal(await vscode.commands.executeCommand('sessionKnowledge.stopSharingWithCopilot'), 'removed');

    // Stopped by the person: the same value arriving again (a git pull) is asked about again; kept off, nothing is written.
    questions.length = 0;
    await config().update('shareWithCopilot', true, vscode.ConfigurationTarget.Workspace);
    const again = await waitFor(() => questions.find((q) => q.setting === 'shareWithCopilot'), 'the question again after Stop');
    again.answer(false);
    await sleep(1000);
    assert.ok(!existsSync(file), 'kept off: no instruction file');
    await config().update('shareWithCopilot', undefined, vscode.ConfigurationTarget.Workspace);
  });

  test('a workspace value of scheduledPrompts does not run until confirmed; Keep Off keeps it off; a changed value asks again', async () => {
    fake.reset();
    questions.length = 0;
    const schedule = { name: 'repo-nightly', prompt: 'Summarise the plans', pins: [NOTE], everyMinutes: 60 };
    await config().update('scheduledPrompts', [schedule], vscode.ConfigurationTarget.Workspace);
    const t0 = Date.now();
    await h.scheduler.tick(new Date(t0));
    assert.equal(fake.requests.length, 0, 'not run before the person decided');
    const question = await waitFor(() => questions.find((q) => q.setting === 'scheduledPrompts'), 'the question about scheduledPrompts');
    assert.match(question.message, /"repo-nightly" every 60 min with pins \.knowledge\/notes\/welcome\.md \("Summarise the plans"\)/);
    question.answer(false); // Keep Off
    await sleep(200);
    await h.scheduler.tick(new Date(t0 + 61 * 60_000));
    assert.equal(fake.requests.length, 0, 'kept off');
    assert.equal(questions.length, 1, 'not asked again for the same value');

    // A changed value is a new question; allowed, it runs.
    await config().update('scheduledPrompts', [{ ...schedule, prompt: 'Summarise the plans and the notes' }], vscode.ConfigurationTarget.Workspace);
    await h.scheduler.tick(new Date(t0 + 122 * 60_000));
    assert.equal(fake.requests.length, 0);
    const again = await waitFor(() => (questions.length === 2 ? questions[1] : undefined), 'a second question for the changed value');
    assert.match(again.message, /Summarise the plans and the notes/);
    again.answer(true);
    await waitFor(async () => {
      await h.scheduler.tick(new Date(t0 + 183 * 60_000));
      return fake.requests.length === 1;
    }, 'the allowed schedule to run');
    assert.equal(fake.requests[0]!.messages.at(-1)!.parts.at(-1), 'Summarise the plans and the notes');
    await config().update('scheduledPrompts', undefined, vscode.ConfigurationTarget.Workspace);
  });

  test("the person's own (user) values work as before, with no question", async () => {
    fake.reset();
    questions.length = 0;
    await config().update('scheduledPrompts', [{ name: 'my-own', prompt: 'Mine', pins: [NOTE], everyMinutes: 30 }], vscode.ConfigurationTarget.Global);
    await h.scheduler.tick(new Date());
    assert.equal(fake.requests.length, 1, 'the user schedule ran');
    assert.equal(questions.length, 0, 'nobody was asked');
    await config().update('scheduledPrompts', undefined, vscode.ConfigurationTarget.Global);

    // The Share command writes the workspace value for the person: theirs, no question.
    const shared = await vscode.commands.executeCommand<{ state: string }>('sessionKnowledge.shareWithCopilot');
    assert.notEqual(shared.state, 'restricted');
    assert.ok(h.guardedSettings.shareWithCopilot(vscode.workspace.workspaceFolders![0]!.uri), 'on');
    assert.equal(questions.length, 0, 'nobody was asked');
    await vscode.commands.executeCommand('sessionKnowledge.stopSharingWithCopilot');
  });
});
