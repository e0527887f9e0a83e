/**
 * One pin-kind helper (`core/notes/pinKind.ts`) answers for the index, the block, MCP, the extension's API and the
 * Copilot file; one budget default (`core/delivery/budgetDefault.ts`), equal to the setting's default in package.json.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { kindOfId, pinKind } from '../../src/server/core/notes/pinKind';
import { DEFAULT_BUDGET_TOKENS } from '../../src/server/core/delivery/budgetDefault';
import { toPins } from '../../src/extension/pins';

test('pinKind: notes and plans directly under .knowledge/notes and .knowledge/plans; anything else is a file', () => {
  assert.equal(pinKind('.knowledge/notes/a.md'), 'note');
  assert.equal(pinKind('.knowledge/plans/b.md'), 'plan');
  for (const id of ['.knowledge/notes/sub/a.md', '.knowledge/notes/a.txt', 'docs/a.md', 'src/x.ts', 'infra/.knowledge/notes/a.md']) assert.equal(pinKind(id), 'file', id);
  // With a folder's name first (a workspace of several folders), when asked for.
  assert.equal(pinKind('infra/.knowledge/notes/a.md', true), 'note');
  assert.equal(pinKind('infra/.knowledge/plans/a.md', true), 'plan');
  assert.equal(pinKind('.knowledge/plans/a.md', true), 'plan');
  assert.equal(pinKind('a/b/.knowledge/notes/a.md', true), 'file');
  assert.equal(kindOfId('.knowledge/notes/a.md'), 'note');
  assert.equal(kindOfId('src/x.ts'), undefined);
  assert.deepEqual(toPins(['infra/.knowledge/notes/a.md', '.knowledge/plans/p.md', 'src/x.ts']), { notes: ['infra/.knowledge/notes/a.md'], plans: ['.knowledge/plans/p.md'], files: ['src/x.ts'] });
});

test('the block budget default is one number, and the setting\'s default in package.json is that number', () => {
  const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { default?: unknown }> } | { properties: Record<string, { default?: unknown }> }[] } };
  const config = pkg.contributes.configuration;
  const props = Array.isArray(config) ? Object.assign({}, ...config.map((c) => c.properties)) : config.properties;
  assert.equal(props['sessionKnowledge.blockTokenBudget']?.default, DEFAULT_BUDGET_TOKENS);
});
