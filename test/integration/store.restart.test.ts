import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { RESTART_NOTE, activateApi, waitFor, workspaceFolder } from './helpers';

suite('after an extension-host restart (phase 2: fresh VS Code, same profile and folder)', () => {
  test('draft pins and notes written in phase 1 are still there', async () => {
    const api = await activateApi();
    const pins = await api.getDraftPins();
    assert.ok(pins.includes(RESTART_NOTE), `draft pins after restart: ${pins.join(', ') || '(none)'}`);
    const item = await waitFor(async () => (await api.listItems()).find((i) => i.id === RESTART_NOTE), 'the phase-1 note');
    assert.equal(item.title, 'Survives a restart');
  });

  test('a session delivered in phase 1 still carries its signature and is owed nothing', async () => {
    const saved = JSON.parse(await fs.readFile(join(workspaceFolder(), '.sk-test-session.json'), 'utf8')) as { key: string; signature: string };
    const api = await activateApi();
    assert.equal(await api.delivery.delivered(saved.key), saved.signature);
    assert.equal((await api.delivery.resolvePending(saved.key)).text, '');
  });
});
