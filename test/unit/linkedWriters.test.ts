/**
 * Writers never follow links (issue 25), on real files in temp folders: Write .mcp.json (and Cursor's), the Copilot
 * instruction file through a linked `.github/instructions`, the `.git/info/exclude` offer with a `.git` link or a
 * `.git` file pointing elsewhere, and our own `.knowledge/` files (reviews.json, project memory.jsonl, new notes).
 * Each is refused with an error naming the link, the outside file is untouched and nothing is created outside. The
 * hook's and `pin`'s cases run through the real CLI in test/protocol/linkedWriters.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CURSOR_MCP_CONFIG_FILE, hasMcpEntry, writeMcpConfig } from '../../src/server/core/agents/mcpConfig';
import { addToGitExclude, removeInstructionFile, renderInstructionFile, writeInstructionFile } from '../../src/server/core/agents/copilotInstructions';
import { LinkedPathError, assertConfined } from '../../src/server/core/store/confinedPath';
import { ReviewStore } from '../../src/server/core/review/reviewStore';
import { MemoryService } from '../../src/server/core/memory/memoryService';
import { createKnowledgeFile } from '../../src/server/core/notes/noteIndex';
import { refreshInstalledEntries } from '../../src/server/core/agents/installedEntries';

const CLI = '/opt/sk/dist/cli.js';
const SECRET = `${JSON.stringify({ mcpServers: {}, token: 'SECRET_TOKEN_123' }, null, 2)}\n`;

function pair() {
  const root = mkdtempSync(join(tmpdir(), 'sk-linkw-'));
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  return { ws, outside };
}

const linkError = (at: RegExp) => (err: unknown) => LinkedPathError.is(err) && at.test((err as Error).message) && /symbolic link/.test((err as Error).message);

test('Write .mcp.json: .mcp.json linked to an outside file, and .cursor linked to an outside folder, are refused; nothing outside changes', async () => {
  const { ws, outside } = pair();
  const secret = join(outside, 'auth.json');
  writeFileSync(secret, SECRET);
  symlinkSync(secret, join(ws, '.mcp.json'));
  await assert.rejects(writeMcpConfig(ws, CLI), linkError(/\.mcp\.json is a symbolic link/));
  assert.equal(readFileSync(secret, 'utf8'), SECRET);
  assert.ok(lstatSync(join(ws, '.mcp.json')).isSymbolicLink(), 'no regular file holding the outside bytes replaced the link');
  assert.deepEqual(readdirSync(ws), ['.mcp.json'], 'no lock or temp file left');

  symlinkSync(outside, join(ws, '.cursor'));
  await assert.rejects(writeMcpConfig(ws, CLI, CURSOR_MCP_CONFIG_FILE), linkError(/\.cursor is a symbolic link/));
  assert.deepEqual(readdirSync(outside), ['auth.json'], 'nothing created in the outside folder');

  // The refresh on start-up finds no entry of ours behind a link, even when the outside file holds one.
  writeFileSync(secret, JSON.stringify({ mcpServers: { 'session-knowledge': { command: 'node', args: ['/old/cli.js', 'mcp'] } } }));
  assert.equal(await hasMcpEntry(ws), false);
  assert.deepEqual(await refreshInstalledEntries(ws, CLI), []);
});

test('Copilot instruction file: a linked .github/instructions (or .github) is refused for writing and removing; nothing outside is created or removed', async () => {
  const { ws, outside } = pair();
  mkdirSync(join(ws, '.github'));
  symlinkSync(outside, join(ws, '.github/instructions'));
  await assert.rejects(writeInstructionFile(ws, renderInstructionFile('block')), linkError(/instructions is a symbolic link/));
  assert.deepEqual(readdirSync(outside), []);

  // An outside file that carries our marker is not removed through the link either.
  const theirs = join(outside, 'session-knowledge.instructions.md');
  writeFileSync(theirs, renderInstructionFile('someone else'));
  await assert.rejects(removeInstructionFile(ws), LinkedPathError.is);
  assert.ok(existsSync(theirs));

  const { ws: ws2, outside: out2 } = pair();
  symlinkSync(out2, join(ws2, '.github'));
  await assert.rejects(writeInstructionFile(ws2, renderInstructionFile('block')), linkError(/\.github is a symbolic link/));
  assert.deepEqual(readdirSync(out2), []);
});

test('.git/info/exclude: a .git file pointing at another folder, a .git link, and a linked .git/info are refused; nothing outside is written', async () => {
  // A `.git` file (`gitdir: …`) pointing at a folder that is not this folder's git directory.
  const { ws, outside } = pair();
  mkdirSync(join(outside, 'info'));
  writeFileSync(join(outside, 'info/exclude'), 'mine\n');
  writeFileSync(join(ws, '.git'), `gitdir: ${outside}\n`);
  await assert.rejects(addToGitExclude(ws), (err: unknown) => /\.git points at .*which is not this folder's git directory/.test((err as Error).message));
  assert.equal(readFileSync(join(outside, 'info/exclude'), 'utf8'), 'mine\n');
  assert.deepEqual(readdirSync(join(outside, 'info')), ['exclude']);

  // A relative pointer to an empty folder: nothing created there.
  const b = pair();
  writeFileSync(join(b.ws, '.git'), 'gitdir: ../outside\n');
  await assert.rejects(addToGitExclude(b.ws), /not this folder's git directory/);
  assert.deepEqual(readdirSync(b.outside), []);

  // A worktree-shaped folder whose back-link names another worktree.
  const c = pair();
  mkdirSync(join(c.outside, '.git/worktrees/wt'), { recursive: true });
  writeFileSync(join(c.outside, '.git/worktrees/wt/commondir'), '../..\n');
  writeFileSync(join(c.outside, '.git/worktrees/wt/gitdir'), '/somewhere/else/.git\n');
  writeFileSync(join(c.ws, '.git'), `gitdir: ${join(c.outside, '.git/worktrees/wt')}\n`);
  await assert.rejects(addToGitExclude(c.ws), /not this folder's git directory/);
  assert.ok(!existsSync(join(c.outside, '.git/info')));

  // `.git` itself a link to an outside repository.
  const d = pair();
  mkdirSync(join(d.outside, 'info'));
  writeFileSync(join(d.outside, 'info/exclude'), '');
  symlinkSync(d.outside, join(d.ws, '.git'));
  await assert.rejects(addToGitExclude(d.ws), linkError(/\.git is a symbolic link/));
  assert.equal(readFileSync(join(d.outside, 'info/exclude'), 'utf8'), '');

  // A real `.git` folder whose `info` is a link.
  const e = pair();
  mkdirSync(join(e.ws, '.git'));
  symlinkSync(e.outside, join(e.ws, '.git/info'));
  await assert.rejects(addToGitExclude(e.ws), linkError(/info is a symbolic link/));
  assert.deepEqual(readdirSync(e.outside), []);
});

test('our own files: reviews.json, project memory.jsonl and a new note are never written through a link', async () => {
  const { ws, outside } = pair();
  mkdirSync(join(ws, '.knowledge'));
  const outsideReviews = join(outside, 'reviews.json');
  writeFileSync(outsideReviews, '{"schemaVersion":1,"reviews":[]}\n');
  symlinkSync(outsideReviews, join(ws, '.knowledge/reviews.json'));
  const reviews = new ReviewStore(ws);
  await assert.rejects(reviews.markReviewed({ id: '.knowledge/notes/a.md', contentHash: 'x', rulesetVersion: 'r', rules: [] }), linkError(/reviews\.json is a symbolic link/));
  assert.equal(readFileSync(outsideReviews, 'utf8'), '{"schemaVersion":1,"reviews":[]}\n');

  const outsideMemory = join(outside, 'memory.jsonl');
  writeFileSync(outsideMemory, '');
  symlinkSync(outsideMemory, join(ws, '.knowledge/memory.jsonl'));
  const memory = new MemoryService({ workspaceFolder: ws, globalStoragePath: join(ws, '..', 'global'), scan: () => [], reviews: null });
  await memory.configure({ on: true });
  await assert.rejects(memory.remember({ scope: 'project', type: 'fact', title: 'Uses pnpm', source: 'human' }), /memory\.jsonl is a symbolic link/);
  assert.equal(readFileSync(outsideMemory, 'utf8'), '', 'nothing appended to the outside file');

  const notes = pair();
  mkdirSync(join(notes.ws, '.knowledge'));
  symlinkSync(notes.outside, join(notes.ws, '.knowledge/notes'));
  await assert.rejects(createKnowledgeFile(notes.ws, 'note', 'Hello'), linkError(/notes is a symbolic link/));
  assert.deepEqual(readdirSync(notes.outside), []);
});

test('assertConfined: plain paths pass, a workspace folder opened through a link passes, a path leaving the folder is refused', async () => {
  const { ws, outside } = pair();
  await assertConfined(ws, join(ws, '.claude/settings.local.json'));
  const via = join(outside, 'via');
  symlinkSync(ws, via);
  await assertConfined(via, join(via, '.knowledge/pins.json'));
  await assert.rejects(assertConfined(ws, join(ws, '../outside/x')), (err: unknown) => LinkedPathError.is(err) && (err as LinkedPathError).kind === 'outside');
});
