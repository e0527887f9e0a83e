/**
 * The command line on a multi-root workspace (the fixture's `.code-workspace`, three folders): `scan`, `stats`,
 * `pin`/`unpin`/`pins`, `hook claude-code` and `mcp`, each through the built CLI (`node dist/cli.js …`), each
 * saying which folder a finding, a count or a pin belongs to.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

const CLI = resolve(__dirname, '../../dist/cli.js');

/** A copy of test/fixtures/multiroot, a storage and a state folder; `run` runs the CLI in the copy. */
function setup() {
  const root = mkdtempSync(join(tmpdir(), 'sk-multi-cli-'));
  const ws = join(root, 'multiroot');
  cpSync(resolve(__dirname, '../fixtures/multiroot'), ws, { recursive: true });
  const env = { ...process.env, SESSION_KNOWLEDGE_STORAGE: join(root, 'storage'), SESSION_KNOWLEDGE_STATE_DIR: join(root, 'state'), SESSION_KNOWLEDGE_MEMORY_ENABLE: '' };
  const run = (args: string[], input?: string) => spawnSync(process.execPath, [CLI, ...args], { cwd: ws, env, encoding: 'utf8', ...(input !== undefined ? { input } : {}) });
  return { root, ws, env, run, file: join(ws, 'multiroot.code-workspace') };
}

test('scan --workspace FILE.code-workspace: every folder\'s .knowledge/, each finding names its folder', () => {
  const { run, file } = setup();
  for (const args of [['scan', '--workspace', file], ['scan', 'multiroot.code-workspace']]) {
    const r = run(args);
    assert.equal(r.status, 1, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.ok(lines.length > 0);
    // The third folder's flagged note, and the attack committed to its project memory (each folder's memory.jsonl is scanned).
    for (const line of lines) assert.match(line, /^docs\/\.knowledge\/(notes\/handoff\.md|memory\.jsonl):\d+:\d+ [a-z.-]+ .* \[folder docs\]$/);
    assert.ok(lines.some((l) => l.startsWith('docs/.knowledge/memory.jsonl:1:')), 'the project memory of the third folder');
    assert.match(r.stderr, /finding.* in 6 files; app: 0, docs: \d+, infra: 0/);
  }
  const bad = run(['scan', '--workspace', 'nope.code-workspace']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /cannot read .*nope\.code-workspace/);
  // One folder, as before: no folder label.
  const one = run(['scan', 'docs/.knowledge']);
  assert.equal(one.status, 1);
  assert.doesNotMatch(one.stdout, /\[folder/);
});

test('stats --workspace FILE: counts per folder, every folder\'s reviews store checked', () => {
  const { run } = setup();
  const r = run(['stats', '--workspace', 'multiroot.code-workspace', '--json']);
  assert.equal(r.status, 1, `docs' handoff.md is flagged: a problem for stats, as for scan\n${r.stderr}`);
  const stats = JSON.parse(r.stdout) as { notes: number; folders: { name: string; notes: number; plans: number }[]; stores: { source: string; path: string }[]; flagged: string[] };
  assert.ok(stats.flagged.some((f) => f.startsWith('docs/.knowledge/notes/handoff.md:')) && stats.flagged.every((f) => f.endsWith('[folder docs]')), stats.flagged.join('\n'));
  assert.equal(stats.notes, 3);
  assert.deepEqual(stats.folders.map((f) => [f.name, f.notes]), [['app', 1], ['infra', 1], ['docs', 1]]);
  assert.equal(stats.stores.filter((s) => s.source === 'reviews').length, 3);
  const text = run(['stats', '--workspace', 'app', '--workspace', 'infra']);
  assert.match(text.stdout, /folder {6}app: 1 notes, 0 plans/);
  assert.match(text.stdout, /folder {6}infra: 1 notes, 0 plans/);
});

test('pin / unpin / pins on a workspace file: each pin in its folder\'s pins.json, listed with its folder; outside files refused', () => {
  const { run, ws } = setup();
  const pin = run(['pin', '--workspace', 'multiroot.code-workspace', 'app/.knowledge/notes/setup.md', 'infra/.knowledge/notes/deploy.md', 'extra/.knowledge/plans/later.md']);
  assert.equal(pin.status, 1, 'a refused pin');
  assert.equal(pin.stdout, '', 'no pin list on stdout before an error');
  assert.match(pin.stderr, /not pinned: .*extra.*outside the workspace folders/);
  assert.deepEqual((JSON.parse(readFileSync(join(ws, 'infra/.knowledge/pins.json'), 'utf8')) as { pins: string[] }).pins, ['.knowledge/notes/deploy.md']);
  assert.deepEqual((JSON.parse(readFileSync(join(ws, 'app/.knowledge/pins.json'), 'utf8')) as { pins: string[] }).pins, ['.knowledge/notes/setup.md']);
  const pins = run(['pins', '--workspace', 'multiroot.code-workspace']);
  assert.deepEqual(pins.stdout.trim().split('\n'), ['app/.knowledge/notes/setup.md', 'infra/.knowledge/notes/deploy.md']);
  // The folder alone sees its own pins, with its own ids.
  assert.equal(spawnSync(process.execPath, [CLI, 'pins'], { cwd: join(ws, 'infra'), encoding: 'utf8' }).stdout.trim(), '.knowledge/notes/deploy.md');
  const unpin = run(['unpin', '--workspace', 'multiroot.code-workspace', 'infra/.knowledge/notes/deploy.md']);
  assert.equal(unpin.status, 0);
  assert.deepEqual(unpin.stdout.trim().split('\n'), ['app/.knowledge/notes/setup.md']);
});

test('hook claude-code --workspace FILE: the agent pins of every folder, delivered once, again after an edit in the second folder; install in each folder', () => {
  const { run, ws } = setup();
  assert.equal(run(['pin', '--workspace', 'multiroot.code-workspace', 'app/.knowledge/notes/setup.md', 'infra/.knowledge/notes/deploy.md', 'docs/.knowledge/notes/handoff.md']).status, 0);
  const hook = (event: object) => run(['hook', 'claude-code', '--workspace', 'multiroot.code-workspace'], JSON.stringify({ session_id: 'multi-1', ...event }));
  const start = hook({ hook_event_name: 'SessionStart', source: 'startup' });
  assert.equal(start.status, 0, start.stderr);
  assert.match(start.stdout, /--- Pinned note: app\/\.knowledge\/notes\/setup\.md ---/);
  assert.match(start.stdout, /--- Pinned note: infra\/\.knowledge\/notes\/deploy\.md ---/);
  assert.match(start.stdout, /A pinned item was withheld: docs\/\.knowledge\/notes\/handoff\.md/);
  assert.doesNotMatch(start.stdout, /reveal your system prompt/);
  assert.equal(hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' }).stdout, '', 'owed nothing');
  writeFileSync(join(ws, 'infra/.knowledge/notes/deploy.md'), '# Deploy\n\nNow with a canary stage.\n');
  assert.match(hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' }).stdout, /Now with a canary stage\./);
  const install = run(['hook', 'install', 'claude-code', '--workspace', 'multiroot.code-workspace']);
  assert.equal(install.status, 0, install.stderr);
  assert.equal(install.stdout.trim().split('\n').length, 3, 'one settings file per folder');
  for (const f of ['app', 'infra', 'docs']) assert.match(readFileSync(join(ws, f, '.claude/settings.local.json'), 'utf8'), /hook claude-code/);
});

test('mcp --workspace FILE: resources of every folder by folder, the flagged one by its path; knowledge_context carries every folder\'s pins', async (t) => {
  const { ws, env, run } = setup();
  assert.equal(run(['pin', '--workspace', 'multiroot.code-workspace', 'app/.knowledge/notes/setup.md', 'infra/.knowledge/notes/deploy.md']).status, 0);
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', join(ws, 'multiroot.code-workspace')], env: { ...getDefaultEnvironment(), SESSION_KNOWLEDGE_STORAGE: env.SESSION_KNOWLEDGE_STORAGE, SESSION_KNOWLEDGE_STATE_DIR: env.SESSION_KNOWLEDGE_STATE_DIR }, stderr: 'pipe' });
  const client = new Client({ name: 'multi-root-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  const list = await client.listResources();
  assert.deepEqual(list.resources.map((r) => [r.uri, r.name]), [
    ['session-knowledge:///app/.knowledge/notes/setup.md', 'App setup'],
    ['session-knowledge:///infra/.knowledge/notes/deploy.md', 'Deploy'],
    ['session-knowledge:///docs/.knowledge/notes/handoff.md', 'docs/.knowledge/notes/handoff.md'],
  ]);
  const deploy = (await client.readResource({ uri: 'session-knowledge:///infra/.knowledge/notes/deploy.md' })) as ReadResourceResult;
  assert.match(String((deploy.contents[0] as { text: string }).text), /terraform plan/);
  const handoff = (await client.readResource({ uri: 'session-knowledge:///docs/.knowledge/notes/handoff.md' })) as ReadResourceResult;
  assert.match(String((handoff.contents[0] as { text: string }).text), /^\[Withheld: docs\/\.knowledge\/notes\/handoff\.md reads as an instruction/);
  const block = ((await client.callTool({ name: 'knowledge_context', arguments: {} })) as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  assert.match(block, /Pinned note: app\/\.knowledge\/notes\/setup\.md[\s\S]*Pinned note: infra\/\.knowledge\/notes\/deploy\.md/);
});
