import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'sessionknowledge.session-knowledge';

suite('activation', () => {
  test('the extension is installed and activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  test('its commands are registered', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('sessionKnowledge.newNote'), 'sessionKnowledge.newNote is not registered');
  });
});
