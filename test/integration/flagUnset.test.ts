import * as assert from 'node:assert/strict';
import { activateApi } from './helpers';
import { assertMemoryAbsent, assertNoMemoryRoutes } from './memoryAbsent';

suite('memory is absent when SESSION_KNOWLEDGE_MEMORY_ENABLE is unset', () => {
  test('no memory tools, no memory member on the API, no memory setting', async () => {
    assert.ok(!process.env.SESSION_KNOWLEDGE_MEMORY_ENABLE, 'this phase runs with the flag unset');
    await assertMemoryAbsent(await activateApi());
  });

  test('the server has no memory routes (MethodNotFound)', async () => {
    await assertNoMemoryRoutes(await activateApi());
  });
});
