import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MEMORY_FLAG, parseMemoryFlag, readMemoryFlag } from '../../src/server/core/memory/memoryFlag';

test('unset, empty, 0 and false (any case, trimmed) mean absent, without a warning', () => {
  for (const v of [undefined, '', '   ', '0', ' 0 ', 'false', 'FALSE', 'False', '\tfalse\n']) {
    assert.deepEqual(parseMemoryFlag(v), { present: false }, JSON.stringify(v));
  }
});

test('1 and true (any case, trimmed) mean present', () => {
  for (const v of ['1', ' 1', 'true', 'TRUE', 'True', ' true \n']) {
    assert.deepEqual(parseMemoryFlag(v), { present: true }, JSON.stringify(v));
  }
});

test('any other value means absent, with a warning that names the variable and the value', () => {
  for (const v of ['yes', 'on', '2', '01', 'enabled', 'truee', '-1', 'true false']) {
    const r = parseMemoryFlag(v);
    assert.equal(r.present, false, v);
    assert.ok(r.warning?.includes(MEMORY_FLAG), v);
    assert.ok(r.warning?.includes(JSON.stringify(v)), v);
  }
  const long = parseMemoryFlag('x'.repeat(500));
  assert.ok(long.warning && long.warning.length < 300, 'a long value is shortened in the warning');
});

test('readMemoryFlag reads only SESSION_KNOWLEDGE_MEMORY_ENABLE from the environment it is given', () => {
  assert.equal(readMemoryFlag({}).present, false);
  assert.equal(readMemoryFlag({ [MEMORY_FLAG]: '1' }).present, true);
  assert.equal(readMemoryFlag({ [MEMORY_FLAG]: '0' }).present, false);
  assert.equal(readMemoryFlag({ OTHER: '1' }).present, false);
});
