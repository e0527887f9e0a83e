/**
 * The three pin targets as a person sees them (src/extension/pinTargetWords.ts): each its own icon, name and tooltip;
 * "Pin…" offers the target chosen last first, and "This chat" only while a chat is active; the package's commands
 * carry the same icons, and the editor title has one pin action, a submenu listing the three targets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PIN_TARGETS, asPinTarget, offeredTargets, targetLabel } from '../../src/extension/pinTargetWords';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  contributes: { commands: { command: string; title: string; icon?: string }[]; submenus: { id: string; icon?: string }[]; menus: Record<string, { command?: string; submenu?: string; when?: string }[]> };
};

test('each target has its own icon, name and tooltip, and the command that pins there shows that icon', () => {
  const targets = Object.values(PIN_TARGETS);
  assert.equal(new Set(targets.map((t) => t.icon)).size, 3, 'three different icons');
  assert.equal(new Set(targets.map((t) => t.tooltip)).size, 3);
  assert.deepEqual(targets.map((t) => t.name), ['This chat', 'Next chat', 'All agents']);
  for (const t of targets) {
    const command = pkg.contributes.commands.find((c) => c.command === t.command);
    assert.equal(command?.icon, `$(${t.icon})`, t.command);
  }
  assert.equal(targetLabel('thisChat', 'Fix the flaky test'), 'This chat — Fix the flaky test');
  assert.equal(targetLabel('thisChat'), 'This chat');
  assert.equal(targetLabel('nextChat', 'ignored'), 'Next chat');
});

test('"Pin…" offers the target chosen last first; without a chat, no "This chat"', () => {
  assert.deepEqual(offeredTargets(true, undefined), ['thisChat', 'nextChat', 'allAgents']);
  assert.deepEqual(offeredTargets(true, 'nextChat'), ['nextChat', 'thisChat', 'allAgents']);
  assert.deepEqual(offeredTargets(true, 'allAgents'), ['allAgents', 'thisChat', 'nextChat']);
  assert.deepEqual(offeredTargets(false, 'thisChat'), ['nextChat', 'allAgents']);
  assert.equal(asPinTarget('thisChat'), 'thisChat');
  assert.equal(asPinTarget('elsewhere'), undefined);
  assert.equal(asPinTarget(undefined), undefined);
});

test('the editor title has one pin action: a submenu whose entries are the three targets (pin or unpin each)', () => {
  const title = pkg.contributes.menus['editor/title'] ?? [];
  const pinActions = title.filter((m) => m.submenu === 'sessionKnowledge.pinTargets' || /pin/i.test(m.command ?? ''));
  assert.deepEqual(pinActions.map((m) => m.submenu), ['sessionKnowledge.pinTargets']);
  assert.equal(pkg.contributes.submenus.find((s) => s.id === 'sessionKnowledge.pinTargets')?.icon, '$(pin)');
  const entries = (pkg.contributes.menus['sessionKnowledge.pinTargets'] ?? []).map((m) => m.command);
  for (const t of Object.values(PIN_TARGETS)) assert.ok(entries.includes(t.command), t.command);
  assert.deepEqual(entries.sort(), [
    'sessionKnowledge.pinForAllAgents', 'sessionKnowledge.pinToActiveSession', 'sessionKnowledge.pinToNextChat',
    'sessionKnowledge.unpinFromActiveSession', 'sessionKnowledge.unpinFromAllAgents', 'sessionKnowledge.unpinFromNextChat',
  ]);
});
