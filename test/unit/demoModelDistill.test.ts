/**
 * The demo model (demo/demo-model/extension.js, `npm start`) answers a distillation prompt — the real one,
 * built by distillPrompt.ts — with one deterministic proposal that the product's own reader accepts: a project
 * fact from the first user turn, marked as the demo's. The demo file is plain CommonJS that requires `vscode` at
 * load; it is run here in a `vm` context whose `require('vscode')` answers the one enum the file reads at call time
 * (no part of the product is stubbed: the prompt and the parser are the real ones).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { buildDistillPrompt, parseDistillAnswer } from '../../src/extension/memory/distillPrompt';

type Message = { role: number; content: { value: string }[] };
type DemoResponse = (messages: Message[]) => string;

/** The demo model's provider, as VS Code would call it: the messages in, the text it reports out. */
function demoModel(): DemoResponse {
  const source = readFileSync(join(__dirname, '../../demo/demo-model/extension.js'), 'utf8');
  const exported: { activate?: (c: unknown) => void } = {};
  let provider: { provideLanguageModelResponse: (m: Message[], o: unknown, e: string, p: { report: (x: { part: { value: string } }) => void }) => Promise<void> } | undefined;
  class LanguageModelTextPart {
    constructor(readonly value: string) {}
  }
  const vscode = {
    LanguageModelChatMessageRole: { User: 1, Assistant: 2 },
    LanguageModelTextPart,
    chat: { createChatParticipant: () => ({ dispose() {} }) },
    lm: { registerChatModelProvider: (_id: string, p: typeof provider) => ((provider = p), { dispose() {} }) },
  };
  runInNewContext(source, { require: (name: string) => (name === 'vscode' ? vscode : undefined), exports: exported });
  exported.activate!({ subscriptions: [] });
  return (messages) => {
    let out = '';
    void provider!.provideLanguageModelResponse(messages, {}, 'test', { report: (x) => (out += x.part.value) });
    return out;
  };
}

const user = (text: string): Message => ({ role: 1, content: [{ value: text }] });

test('the demo model answers a distillation prompt with one deterministic Demo: proposal from the first user turn, which the product accepts', async () => {
  const ask = demoModel();
  const turns = [
    { prompt: 'How do we handle money?', response: '*Demo model (offline)…*\n- **Your message:** “How do we handle money?”' },
    { prompt: 'And rounding?', response: 'an answer' },
  ];
  const prompt = buildDistillPrompt(turns, [], 6000).text;
  const first = ask([user(prompt)]);
  await Promise.resolve();
  assert.equal(ask([user(prompt)]), first, 'deterministic');
  const parsed = parseDistillAnswer(first);
  assert.ok(parsed.ok, !parsed.ok ? parsed.problem : '');
  assert.equal(parsed.proposals.length, 1);
  const p = parsed.proposals[0]!;
  assert.equal(p.type, 'fact');
  assert.equal(p.title, 'Demo: How do we handle money?');
  assert.equal(p.turn, 1);
  assert.match(p.body, /^Written by the demo model \(offline\)/);
  assert.match(p.body, /The conversation had 2 turns when it was distilled\./);
  assert.deepEqual(p.tags, ['demo']);

  // Distilled again after one more turn: the same title (so the server proposes an update) with another body (a diff).
  const later = parseDistillAnswer(ask([user(buildDistillPrompt([...turns, { prompt: 'Thanks', response: 'ok' }], [], 6000).text)]));
  assert.ok(later.ok);
  assert.equal(later.proposals[0]!.title, p.title);
  assert.match(later.proposals[0]!.body, /had 3 turns/);

  // A long first message is cut to the title's limit; any other prompt still gets the demo's usual answer.
  const long = parseDistillAnswer(ask([user(buildDistillPrompt([{ prompt: 'word '.repeat(100), response: 'x' }], [], 6000).text)]));
  assert.ok(long.ok && long.proposals[0]!.title.length <= 80 && long.proposals[0]!.title.startsWith('Demo: word'));
  assert.match(ask([user('hello')]), /Demo model \(offline\)/);
});
