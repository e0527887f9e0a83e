import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { activateApi, waitFor } from './helpers';
import { PERSONAL_SYNC_KEY, type PersonalSync } from '../../src/extension/memory/settingsSyncBridge';
import type { SyncedState } from '../../src/shared/personalSyncSchemas';

interface Hooks {
  personalSync?: PersonalSync;
  globalState(key: string): unknown;
}

// Machine A (its own user-data folder): approved personal memory goes into the synced key; what Settings Sync would
// upload is handed to machine B (phase syncb) through SK_SYNC_EXCHANGE.
suite('personal memory through Settings Sync — machine A', () => {
  test('turned on: an approved personal entry is written to the synced key by itself; a pending one is not', async () => {
    const api = await activateApi();
    const hooks = (api as unknown as { __test: Hooks }).__test;
    assert.ok(api.memory && hooks.personalSync, 'memory and sync exist with the flag');
    await api.memory.setEnabled(true);
    await hooks.personalSync.setOn(true);
    await api.memory.remember({ scope: 'personal', type: 'preference', title: 'Indentation', body: 'Two spaces, never tabs.', source: 'human' });
    await api.memory.remember({ scope: 'personal', type: 'preference', title: 'A guess', body: 'The user may like dark themes.', source: 'agent' });
    // The extension syncs after a memory change by itself (no call from the test).
    const value = await waitFor(() => {
      const v = hooks.globalState(PERSONAL_SYNC_KEY) as SyncedState | undefined;
      return v?.entries.some((e) => e.title === 'Indentation') ? v : undefined;
    }, 'the synced key written after the change');
    assert.deepEqual(value.entries.map((e) => e.title), ['Indentation'], 'pending entries never leave this machine');
    await fs.writeFile(process.env.SK_SYNC_EXCHANGE!, JSON.stringify(value));
  });
});
