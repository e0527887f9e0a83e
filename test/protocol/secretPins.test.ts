/**
 * Secrets, wider (issue 25): a repository that commits a `.knowledge/pins.json` naming its secret files gets none of
 * their contents to an agent. Through the real CLI: Claude Code's hook (`node dist/cli.js hook claude-code`) and the
 * MCP server's `knowledge_context` (the SDK's Client against `node dist/cli.js mcp`). Each refused pin is named for
 * the person on stderr, never its content; the clean pin beside them is still delivered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempWorkspace } from '../helpers/tempWorkspace';

const CLI = resolve(__dirname, '../../dist/cli.js');

const SECRET_FILES = ['.envrc', 'config/production.env', 'credentials.json', 'terraform.tfstate', '.pgpass', '.vault-token', '.kube/config', '.git/config', '.envrc.', 'terraform.tfstate.backup'];
/** A distinct token in each secret file: none may reach any output. */
const token = (i: number) => `SECRETVALUE${i}x9q`;

function setup() {
  const files: Record<string, string> = { '.knowledge/notes/setup.md': '# Setup\nUse pnpm, not npm.\n' };
  SECRET_FILES.forEach((f, i) => (files[f] = `export TOKEN=${token(i)}\n`));
  files['.git/config'] = `[remote "origin"]\n\turl = https://user:${token(SECRET_FILES.indexOf('.git/config'))}@example.com/repo.git\n`;
  files['.knowledge/pins.json'] = JSON.stringify({ pins: ['.knowledge/notes/setup.md', ...SECRET_FILES] });
  return tempWorkspace('sk-secrets-', files);
}

function assertNoSecret(text: string, where: string): void {
  SECRET_FILES.forEach((f, i) => assert.ok(!text.includes(token(i)), `${where} carries the content of ${f}`));
}

test('hook claude-code: a committed pins.json naming secret files delivers none of them, and names each refused pin on stderr', () => {
  const { workspace, storage } = setup();
  const state = mkdtempSync(join(tmpdir(), 'sk-secrets-state-'));
  const input = JSON.stringify({ session_id: 's-1', cwd: workspace, hook_event_name: 'SessionStart', source: 'startup' });
  const r = spawnSync(process.execPath, [CLI, 'hook', 'claude-code'], {
    cwd: workspace,
    input,
    encoding: 'utf8',
    env: { ...process.env, SESSION_KNOWLEDGE_STATE_DIR: state, SESSION_KNOWLEDGE_STORAGE: storage, SESSION_KNOWLEDGE_MEMORY_ENABLE: '', HOME: join(workspace, '..', 'home') },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Use pnpm, not npm/, 'the clean pin is delivered');
  assertNoSecret(r.stdout, 'the hook block');
  assertNoSecret(r.stderr, 'the hook stderr');
  for (const f of SECRET_FILES) assert.ok(r.stderr.includes(`${f} looks like a secret file`), `stderr names ${f}: ${r.stderr}`);
  for (const f of SECRET_FILES) assert.ok(!r.stdout.includes(f), `the block does not print the refused name ${f}`);
});

test('MCP knowledge_context: a committed pins.json naming secret files returns none of them; the server log names each', async (t) => {
  const { workspace, storage } = setup();
  const state = mkdtempSync(join(tmpdir(), 'sk-secrets-state-'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', workspace, '--storage', storage], env: { ...getDefaultEnvironment(), SESSION_KNOWLEDGE_STATE_DIR: state }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const received: string[] = [];
  transport.onmessage = (m) => void received.push(JSON.stringify(m));
  const client = new Client({ name: 'secrets-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());

  const result = (await client.callTool({ name: 'knowledge_context', arguments: {} })) as CallToolResult;
  const text = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  assert.notEqual(result.isError, true, text);
  assert.match(text, /Use pnpm, not npm/);
  assert.match(text, new RegExp(`${SECRET_FILES.length} entries of \\.knowledge/pins\\.json were left out`));
  for (const m of received) assertNoSecret(m, 'an MCP message');
  // Every resource read too: none is a secret file.
  const resources = await client.listResources();
  for (const r of resources.resources) assertNoSecret(JSON.stringify(await client.readResource({ uri: r.uri })), `resource ${r.uri}`);
  assertNoSecret(stderr, 'the server log');
  for (const f of SECRET_FILES) assert.ok(stderr.includes(`${f} looks like a secret file`), `the server log names ${f}: ${stderr}`);
});
