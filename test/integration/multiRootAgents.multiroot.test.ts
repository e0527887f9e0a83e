import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi } from './helpers';

const EXTENSION_ID = 'sessionknowledge.session-knowledge';

/** The three folders of the fixture's .code-workspace (a fourth may have come and gone in another suite). */
const FOLDERS = ['app', 'infra', 'docs'];

function folderPath(name: string): string {
  const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
  if (!f) throw new Error(`no workspace folder ${name}`);
  return f.uri.fsPath;
}

const settingsFile = (name: string) => join(folderPath(name), '.claude', 'settings.local.json');
const exists = (path: string) => fs.stat(path).then(() => true, () => false);
const hookCommands = async (name: string): Promise<string[]> => {
  if (!(await exists(settingsFile(name)))) return [];
  const json = JSON.parse(await fs.readFile(settingsFile(name), 'utf8')) as { hooks?: Record<string, { hooks: { command: string }[] }[]> };
  return Object.values(json.hooks ?? {}).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command)));
};

interface Result {
  path: string;
  changed: boolean;
}

// The same real VS Code on the three-folder .code-workspace: the commands that wire Claude Code and MCP act on every
// folder (each folder's repository gets its own .claude/settings.local.json and .mcp.json), or on the folder of the
// file they were run on.
suite('a multi-root workspace: Claude Code hook and .mcp.json in every folder', () => {
  suiteTeardown(async () => {
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      await fs.rm(join(f.uri.fsPath, '.claude'), { recursive: true, force: true });
      await fs.rm(join(f.uri.fsPath, '.mcp.json'), { force: true });
    }
  });

  test('Install Claude Code Hook installs in each folder; Remove takes it out of each; run on a file, only that file\'s folder', async () => {
    await activateApi();
    const installed = await vscode.commands.executeCommand<Result[]>('sessionKnowledge.installClaudeCodeHook');
    assert.ok(Array.isArray(installed), 'several folders: one result per folder');
    const current = vscode.workspace.workspaceFolders!.map((f) => f.name);
    assert.deepEqual(installed.map((r) => r.path), current.map(settingsFile));
    assert.ok(installed.every((r) => r.changed));
    const cli = join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
    for (const name of FOLDERS) assert.ok((await hookCommands(name)).some((c) => c.includes(cli) && c.includes('hook claude-code')), `${name} has the hook`);

    const removed = await vscode.commands.executeCommand<Result[]>('sessionKnowledge.removeClaudeCodeHook');
    assert.ok(removed.every((r) => r.changed));
    for (const name of FOLDERS) assert.deepEqual(await hookCommands(name), [], `${name} has no hook left`);

    // Run on a file (the Explorer's context menu): that file's folder alone.
    const one = await vscode.commands.executeCommand<Result[] | Result>('sessionKnowledge.installClaudeCodeHook', vscode.Uri.file(join(folderPath('infra'), '.knowledge/notes/deploy.md')));
    assert.deepEqual(Array.isArray(one) ? one.map((r) => r.path) : one.path, settingsFile('infra'));
    assert.ok((await hookCommands('infra')).length > 0);
    assert.deepEqual(await hookCommands('app'), []);
    await vscode.commands.executeCommand('sessionKnowledge.removeClaudeCodeHook');
  });

  test('an invalid settings file in one folder is left byte for byte; the other folders still get the hook', async () => {
    await activateApi();
    const broken = '{"permissions": {"allow": [';
    await fs.mkdir(join(folderPath('infra'), '.claude'), { recursive: true });
    await fs.writeFile(settingsFile('infra'), broken);
    const installed = await vscode.commands.executeCommand<Result[]>('sessionKnowledge.installClaudeCodeHook');
    assert.ok(!installed.some((r) => r.path === settingsFile('infra')), 'no result for the invalid file');
    assert.equal(await fs.readFile(settingsFile('infra'), 'utf8'), broken, 'left as it is');
    assert.ok((await hookCommands('app')).length > 0);
    assert.ok((await hookCommands('docs')).length > 0);
    await fs.rm(settingsFile('infra'));
    await vscode.commands.executeCommand('sessionKnowledge.removeClaudeCodeHook');
  });

  test('Write .mcp.json writes each folder\'s own file (Claude Code runs the server in that folder)', async () => {
    await activateApi();
    const results = await vscode.commands.executeCommand<Result[]>('sessionKnowledge.writeMcpJson');
    const current = vscode.workspace.workspaceFolders!.map((f) => f.name);
    assert.deepEqual(results.map((r) => r.path), current.map((n) => join(folderPath(n), '.mcp.json')));
    for (const name of FOLDERS) {
      const config = JSON.parse(await fs.readFile(join(folderPath(name), '.mcp.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
      assert.deepEqual(config.mcpServers['session-knowledge']?.args.slice(-1), ['mcp'], `${name}'s .mcp.json runs the MCP server`);
    }
    const again = await vscode.commands.executeCommand<Result[]>('sessionKnowledge.writeMcpJson');
    assert.ok(again.every((r) => !r.changed), 'again: nothing changes');
    assert.ok(await exists(join(folderPath('docs'), '.mcp.json')));
  });
});
