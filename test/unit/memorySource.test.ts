/** Where an entry came from, named by source (src/shared/memorySource.ts): what the panel's groups and cards say. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SOURCE_TEXT, SYNC_IDENTITY, memorySource } from '../../src/shared/memorySource';

test('an entry is named by its source: distillation, agent, import, sync, a person, legacy', () => {
  const p = (sourceKind: 'human' | 'agent' | 'import' | 'legacy', identity = 'someone', extra = {}) => ({ provenance: { sourceKind, identity, ...extra } });
  assert.equal(memorySource(p('agent', 'distill:m', { distilledFrom: { sessionKey: 's', turn: 1, model: 'm' } })), 'distillation');
  assert.equal(memorySource({ ...p('agent'), proposal: { kind: 'new' } }), 'distillation', 'a pending proposal');
  assert.equal(memorySource(p('agent')), 'agent');
  assert.equal(memorySource(p('import')), 'import');
  assert.equal(memorySource(p('import', SYNC_IDENTITY)), 'sync', 'Settings Sync stamps its arrivals');
  assert.equal(memorySource(p('human')), 'you');
  assert.equal(memorySource(p('legacy')), 'legacy');
  assert.equal(SOURCE_TEXT.import, 'from an import');
  assert.equal(SOURCE_TEXT.sync, 'from sync');
});
