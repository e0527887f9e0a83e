/**
 * Over the real language server: a person who approves an agent's medium-importance lesson sees it reach
 * another session's block (and that session is owed the block again); what does not fit the person's index
 * budget is cut loudly, with a count and a pointer to knowledge_recall.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateSessionRequest, MarkDeliveredRequest, ResolvePendingRequest } from '../../src/shared/protocol';
import { MemoryApproveRequest, MemoryConfigureRequest, MemoryRememberRequest } from '../../src/shared/memoryProtocol';
import { startInMemoryServer } from '../helpers/inMemoryServer';
import { tempWorkspace } from '../helpers/tempWorkspace';
import { ONE_OF_EACH, countMarkers } from '../helpers/envelopeCount';

const config = (indexBudgetTokens: number) => ({ on: true, readonly: false, caps: { session: 200, project: 1000, personal: 1000 }, maxAgeDays: 0, supersedeThreshold: 0.85, indexBudgetTokens });

test('an approved medium lesson reaches other sessions; an index over its budget is cut with a count and a pointer to knowledge_recall', async (t) => {
  const d = tempWorkspace('sk-memindex-', { '.knowledge/notes/setup.md': '# Setup\n\nRun `npm ci`.\n' });
  const server = await startInMemoryServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: true });
  t.after(() => server.stop());
  const c = server.connection;
  await c.sendRequest(MemoryConfigureRequest.type, config(2000));

  const writer = await c.sendRequest(CreateSessionRequest.type, { pins: ['.knowledge/notes/setup.md'], origin: 'chat' });
  const reader = await c.sendRequest(CreateSessionRequest.type, { pins: ['.knowledge/notes/setup.md'], origin: 'chat' });
  const lesson = await c.sendRequest(MemoryRememberRequest.type, { scope: 'project', type: 'lesson', title: 'The upload test needs one retry', importance: 'medium', source: 'agent', sessionKey: writer.key });
  assert.equal(lesson.trust.state, 'pending');
  assert.ok((await c.sendRequest(ResolvePendingRequest.type, { key: writer.key })).text.includes('The upload test needs one retry'), 'the writing session sees its own entry');

  const before = await c.sendRequest(ResolvePendingRequest.type, { key: reader.key });
  assert.ok(!before.text.includes('The upload test needs one retry'), 'pending: not in another session');
  await c.sendRequest(MarkDeliveredRequest.type, { key: reader.key, signature: before.signature });
  assert.equal((await c.sendRequest(ResolvePendingRequest.type, { key: reader.key })).text, '');

  await c.sendRequest(MemoryApproveRequest.type, { id: lesson.id });
  const after = await c.sendRequest(ResolvePendingRequest.type, { key: reader.key });
  assert.notEqual(after.signature, before.signature, 'the approval changes what the other session is owed');
  assert.ok(after.text.includes(`[lesson] The upload test needs one retry (id ${lesson.id})`), after.text);
  assert.deepEqual(countMarkers(after.text), ONE_OF_EACH);

  for (let i = 0; i < 40; i++) {
    await c.sendRequest(MemoryRememberRequest.type, { scope: 'project', type: 'fact', title: `Approved fact ${i} about the release train`, importance: 'low', source: 'human' });
  }
  await c.sendRequest(MemoryConfigureRequest.type, config(100));
  const cut = await c.sendRequest(ResolvePendingRequest.type, { key: reader.key });
  assert.ok(cut.budget.cutMemoryEntries > 0, 'over the index budget');
  assert.ok(cut.text.includes(`[${cut.budget.cutMemoryEntries} more remembered entries not listed — use knowledge_recall to search them.]`), cut.text);
  assert.ok(cut.text.includes('The upload test needs one retry'), 'the medium lesson outranks the low facts');
  assert.ok(cut.text.includes('Run `npm ci`.'), 'the pins still go through');
});
