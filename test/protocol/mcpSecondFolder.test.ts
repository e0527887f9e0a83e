/**
 * `session-knowledge mcp` on two workspace folders follows a teammate's pull into EITHER folder's project memory
 * (`.knowledge/memory.jsonl`): the MCP server and the language server share one files-changed path
 * (`core/knowledgeSources.ts`), which reloads every folder's memory. Before, the MCP server reloaded project memory
 * only for a change in the first folder: a pull into the second went unread until some request happened to read it.
 * What shows it here: a pulled file with a malformed line is said on stderr as soon as it lands, in either folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { waitFor } from '../helpers/waitFor';
import { writeMemorySwitch } from '../../src/server/core/memory/memorySwitch';

const CLI = resolve(__dirname, '../../dist/cli.js');

const entry = (id: string, title: string) =>
  JSON.stringify({ id, scope: 'project', type: 'fact', title, body: `${title}.`, tags: [], importance: 'medium', confidence: 1, provenance: { sourceKind: 'human', identity: 'ann', at: '2026-05-01T10:00:00.000Z' }, trust: { state: 'approved', approvedBy: 'ann', approvedAt: '2026-05-01T10:00:00.000Z' }, createdAt: '2026-05-01T10:00:00.000Z', updatedAt: '2026-05-01T10:00:00.000Z', wrongFlags: [] });

test('mcp on two folders: a pull into the SECOND folder\'s memory.jsonl is read at once, as one into the first is', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'sk-mcp-second-'));
  const folders = ['app', 'infra'].map((name) => join(root, name));
  for (const f of folders) {
    mkdirSync(join(f, '.knowledge', 'notes'), { recursive: true });
    writeFileSync(join(f, '.knowledge', 'notes', 'readme.md'), '# Readme\n\nPlain notes.\n');
    writeFileSync(join(f, '.knowledge', 'memory.jsonl'), `${entry(`mem_${folders.indexOf(f)}`, 'We use pnpm')}\n`);
  }
  const storage = join(root, 'storage');
  await writeMemorySwitch(storage, { on: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...folders.flatMap((f) => ['--workspace', f]), '--storage', storage],
    env: { ...getDefaultEnvironment(), SESSION_KNOWLEDGE_STATE_DIR: join(root, 'state'), SESSION_KNOWLEDGE_MEMORY_ENABLE: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new Client({ name: 'mcp-second-folder', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  // Loaded and memory read (the recall waits for both).
  await client.callTool({ name: 'knowledge_recall', arguments: { query: 'pnpm' } });
  assert.doesNotMatch(stderr, /malformed/);

  // A teammate's pull brings a damaged line into each folder in turn; nothing is asked of the server meanwhile.
  for (const folder of [...folders].reverse()) {
    const file = join(folder, '.knowledge', 'memory.jsonl');
    writeFileSync(file, `${entry('mem_pulled', 'Pulled entry')}\n{"id": "broken"\n`);
    await waitFor(() => stderr.includes(`${file} has 1 malformed line`), `the pull into ${folder} was read (stderr: ${stderr.slice(-400)})`, 8000);
  }
});
