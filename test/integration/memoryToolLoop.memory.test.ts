import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor } from './helpers';
import { ENVELOPE_START, chatHooks, Conversation, fakeModel, lastUser } from './chatDriver';

// @knowledge offers its own memory tools while memory is on; the fake model, scripted to call knowledge_recall,
// gets the recalled entry (inside its envelope) and answers with it.
suite('@knowledge tool loop with memory (SESSION_KNOWLEDGE_MEMORY_ENABLE set)', () => {
  test('memory on: the model calls knowledge_recall and answers with what it got; memory off: no memory tool is offered', async () => {
    const { api, handler, fake } = await chatHooks();
    await waitFor(() => ['knowledge_recall', 'knowledge_read'].every((t) => vscode.lm.tools.some((x) => x.name === t)), 'the memory tools to be listed');
    const wasOn = await api.memory!.isEnabled();
    await api.memory!.setEnabled(true);
    const { id } = await api.memory!.remember({ scope: 'project', type: 'decision', title: 'Payments use idempotency keys', body: 'Every POST to /payments carries an Idempotency-Key header.', source: 'human' });
    try {
      await api.memory!.approve(id).catch(() => undefined); // a person's own entry may be approved already
      fake.reset();
      const chat = new Conversation(handler, await fakeModel('sk-fake-large'));
      const sent = await chat.send('How do payments stay safe? SK_CALL_TOOL:knowledge_recall query=idempotency');
      assert.equal(fake.requests.length, 2, 'the tool round, then the answer');
      const [first, second] = fake.requests;
      assert.ok(first!.tools.includes('knowledge_recall') && first!.tools.includes('knowledge_read'), `our memory tools are offered: ${first!.tools.join(', ')}`);
      assert.ok(!first!.tools.includes('knowledge_context'), 'knowledge_context is not needed: the block rides anyway');
      assert.equal(first!.toolMode, undefined, 'the model chooses (no # reference)');
      const result = lastUser(second!).parts.join('');
      assert.match(result, /^\[tool result call-\d+\] /);
      assert.ok(result.includes(ENVELOPE_START), 'our tool result comes inside its envelope');
      assert.ok(result.includes('Payments use idempotency keys') && result.includes(id), 'the recalled entry');
      assert.match(sent.text, /TOOL ANSWER: .*Payments use idempotency keys/);
      assert.ok(sent.progress.some((l) => l.startsWith('Calling knowledge_recall {"query":"idempotency"}')), 'the call is shown');

      await api.memory!.setEnabled(false);
      fake.reset();
      await chat.send('And now?');
      assert.ok(!fake.requests[0]!.tools.some((t) => t.startsWith('knowledge_')), 'memory off: no memory tool offered');
    } finally {
      await api.memory!.setEnabled(true);
      await api.memory!.forget(id);
      await api.memory!.setEnabled(wasOn);
    }
  });
});
