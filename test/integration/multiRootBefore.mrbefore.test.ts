import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { activateApi, waitFor } from './helpers';

// The window as it was before multi-root support: the multi-root fixture's first folder alone. A session made here
// (plain ids, a delivered signature) is handed to the multi-root phase, which checks it kept both.
suite('before multi-root: a session in the first folder alone', () => {
  test('plain ids; a session is created, delivered and left for the multi-root phase', async () => {
    const api = await activateApi();
    assert.equal(vscode.workspace.workspaceFolders?.length, 1);
    const items = await waitFor(async () => {
      const list = await api.listItems();
      return list.length > 0 ? list : undefined;
    }, 'the first folder indexed');
    assert.deepEqual(items.map((i) => [i.id, i.folder]), [['.knowledge/notes/setup.md', undefined]], 'one folder: ids as ever, no folder named');
    const key = await api.sessions.create({ pins: { notes: ['.knowledge/notes/setup.md'], plans: [] }, label: 'made before multi-root' });
    const block = await api.delivery.resolvePending(key);
    assert.match(block.text, /--- Pinned note: \.knowledge\/notes\/setup\.md ---/);
    await api.delivery.markDelivered(key, block.signature);
    assert.equal((await api.delivery.resolvePending(key)).text, '');
    const state = process.env.SK_MULTIROOT_STATE;
    assert.ok(state, 'the runner names where to leave the session (SK_MULTIROOT_STATE)');
    await fs.writeFile(state, JSON.stringify({ key, signature: block.signature }));
  });
});
