import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RESTART_NOTE, activateApi, waitFor, workspaceFolder } from './helpers';

suite('language server round trip', () => {
  test('the API answers from the real server process', async () => {
    const api = await activateApi();
    const status = await api.serverStatus();
    assert.ok(Number.isInteger(status.pid) && status.pid > 0 && status.pid !== process.pid, 'the server runs in its own process');
    const items = await waitFor(async () => {
      const list = await api.listItems();
      return list.length > 0 ? list : undefined;
    }, 'the fixture notes to be indexed');
    assert.ok(items.every((i) => /^\.knowledge\/(notes|plans)\/[^/]+\.md$/.test(i.id)), 'ids are workspace-relative');
    assert.ok(items.every((i) => /^[0-9a-f]{64}$/.test(i.revision)), 'revisions are content hashes');
  });

  test('a note written to disk by another program appears in the index (VS Code file watcher → server)', async () => {
    const api = await activateApi();
    const id = `.knowledge/notes/from-disk-${Date.now()}.md`;
    await fs.writeFile(join(workspaceFolder(), id), '# Written outside VS Code\n\nby the integration test\n');
    const item = await waitFor(async () => (await api.listItems()).find((i) => i.id === id), `${id} in the index`);
    assert.equal(item.title, 'Written outside VS Code');
    await fs.writeFile(join(workspaceFolder(), id), '# Edited outside VS Code\n');
    await waitFor(async () => (await api.listItems()).find((i) => i.id === id && i.title === 'Edited outside VS Code'), 'the edit');
    await fs.rm(join(workspaceFolder(), id));
    await waitFor(async () => !(await api.listItems()).some((i) => i.id === id), 'the deletion');
  });

  test('pinning to the next chat stores the pin and refuses secret files', async () => {
    const api = await activateApi();
    const ws = workspaceFolder();
    await fs.mkdir(join(ws, '.knowledge/notes'), { recursive: true });
    await fs.writeFile(join(ws, RESTART_NOTE), '# Survives a restart\n');
    await fs.writeFile(join(ws, '.env'), 'API_TOKEN=never-pin-me\n');
    await vscode.commands.executeCommand('sessionKnowledge.pinToNextChat', vscode.Uri.file(join(ws, RESTART_NOTE)));
    const refused = await vscode.commands.executeCommand<{ refused: { pin: string }[] }>('sessionKnowledge.pinToNextChat', vscode.Uri.file(join(ws, '.env')));
    assert.equal(refused.refused.length, 1);
    const pins = await api.getDraftPins();
    assert.ok(pins.includes(RESTART_NOTE), `draft pins: ${pins.join(', ')}`);
    assert.ok(!pins.some((p) => p.endsWith('.env')));
  });

  test('a server that dies is restarted and keeps answering', async () => {
    const api = await activateApi();
    const before = await api.serverStatus();
    process.kill(before.pid, 'SIGKILL');
    const after = await waitFor(async () => {
      const s = await api.serverStatus();
      return s.pid !== before.pid ? s : undefined;
    }, 'a restarted server', 30_000);
    assert.notEqual(after.pid, before.pid);
    const pins = await api.getDraftPins();
    assert.ok(pins.includes(RESTART_NOTE), 'the restarted server reads the same store');
  });
});
