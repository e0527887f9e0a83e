import * as assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, activateApi } from './helpers';

interface Hooks {
  confirmNext: (...answers: boolean[]) => void;
}

const version = (): string => (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { version: string }).version;

// The CLI that comes with the extension, from the Command Palette: Copy CLI Command puts a command line on the real
// clipboard that runs this extension's own dist/cli.js; Install CLI on PATH… writes a launcher only after consent.
suite('Copy CLI Command and Install CLI on PATH…: the real commands, clipboard and files', () => {
  let hooks: Hooks;
  let binDir: string;
  const savedBinHome = process.env.XDG_BIN_HOME;

  suiteSetup(async () => {
    const api = await activateApi();
    hooks = (api as unknown as { __test: Hooks }).__test;
    assert.ok(hooks?.confirmNext, 'test hooks are on (SK_TEST_HOOKS=1)');
    // The launcher's folder for this suite: a temp folder, never the real ~/.local/bin (the command reads it when run).
    binDir = join(mkdtempSync(join(tmpdir(), 'sk-bin-')), 'bin');
    process.env.XDG_BIN_HOME = binDir;
  });
  suiteTeardown(() => {
    if (savedBinHome === undefined) delete process.env.XDG_BIN_HOME;
    else process.env.XDG_BIN_HOME = savedBinHome;
    rmSync(join(binDir, '..'), { recursive: true, force: true });
  });

  test('Copy CLI Command puts node "<extension>/dist/cli.js" on the clipboard, and that command runs', async () => {
    await vscode.env.clipboard.writeText('before');
    const answered = await vscode.commands.executeCommand<string>('sessionKnowledge.copyCliCommand');
    const copied = await vscode.env.clipboard.readText();
    const cli = join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
    assert.equal(copied, `node "${cli}"`);
    assert.equal(answered, copied);
    assert.equal(execSync(`${copied} --version`, { encoding: 'utf8', timeout: 30_000 }).trim(), version());
  });

  test('Install CLI on PATH… writes nothing without consent', async () => {
    hooks.confirmNext(false);
    const file = await vscode.commands.executeCommand<string | undefined>('sessionKnowledge.installCliOnPath');
    assert.equal(file, undefined);
    assert.equal(existsSync(binDir), false, 'not even the folder');
  });

  test('Install CLI on PATH… with consent writes an executable launcher that runs this CLI; a file not ours is left alone', async function () {
    if (process.platform === 'win32') this.skip(); // the command offers the copy instead
    hooks.confirmNext(true);
    const file = await vscode.commands.executeCommand<string | undefined>('sessionKnowledge.installCliOnPath');
    assert.equal(file, join(binDir, 'session-knowledge'));
    assert.equal(statSync(file).mode & 0o111, 0o111, 'executable');
    assert.equal(execSync(`"${file}" --version`, { encoding: 'utf8', timeout: 30_000 }).trim(), version());

    // Someone else's session-knowledge in that folder: refused, left exactly as it was.
    writeFileSync(file, '#!/bin/sh\necho theirs\n');
    hooks.confirmNext(true);
    const again = await vscode.commands.executeCommand<string | undefined>('sessionKnowledge.installCliOnPath');
    assert.equal(again, undefined);
    assert.equal(readFileSync(file, 'utf8'), '#!/bin/sh\necho theirs\n');
  });
});
