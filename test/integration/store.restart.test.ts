import * as assert from 'node:assert/strict';
import { RESTART_NOTE, activateApi, waitFor } from './helpers';

suite('after an extension-host restart (phase 2: fresh VS Code, same profile and folder)', () => {
  test('draft pins and notes written in phase 1 are still there', async () => {
    const api = await activateApi();
    const pins = await api.getDraftPins();
    assert.ok(pins.includes(RESTART_NOTE), `draft pins after restart: ${pins.join(', ') || '(none)'}`);
    const item = await waitFor(async () => (await api.listItems()).find((i) => i.id === RESTART_NOTE), 'the phase-1 note');
    assert.equal(item.title, 'Survives a restart');
  });
});
