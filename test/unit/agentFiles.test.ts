/**
 * The files Session Knowledge writes for agents that are not ours, against real files: the MCP configuration
 * (`.mcp.json`, `.cursor/mcp.json`), the Copilot instruction file, and the `.git/info/exclude` line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CURSOR_MCP_CONFIG_FILE, MCP_SERVER_NAME, McpConfigError, writeMcpConfig } from '../../src/server/core/agents/mcpConfig';
import {
  COPILOT_INSTRUCTIONS_FILE,
  GIT_EXCLUDE_LINE,
  InstructionFileError,
  addToGitExclude,
  gitExcludePath,
  isOurInstructionFile,
  removeInstructionFile,
  renderInstructionFile,
  writeInstructionFile,
} from '../../src/server/core/agents/copilotInstructions';
import { wrapInEnvelope } from '../../src/server/core/threat/envelope';

const folder = () => mkdtempSync(join(tmpdir(), 'sk-agent-files-'));
const CLI = '/opt/ext/dist/cli.js';
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;

test('.mcp.json: created with our entry when absent', async () => {
  const ws = folder();
  const r = await writeMcpConfig(ws, CLI);
  assert.deepEqual(r, { path: join(ws, '.mcp.json'), changed: true, created: true });
  assert.deepEqual(readJson(r.path), { mcpServers: { [MCP_SERVER_NAME]: { command: 'node', args: [CLI, 'mcp'] } } });
  assert.equal(statSync(r.path).mode & 0o777, 0o644 & ~process.umask(), 'a project file others may read, not a private store file');
  assert.deepEqual(readdirSync(ws), ['.mcp.json'], 'no temp or lock file left behind');
});

test('.mcp.json: every other server and field is kept; our entry is updated in place, with its extra fields', async () => {
  const ws = folder();
  const path = join(ws, '.mcp.json');
  const other = { command: 'npx', args: ['-y', '@playwright/mcp'], env: { A: '1' } };
  writeFileSync(path, JSON.stringify({ $schema: 'x', mcpServers: { playwright: other, [MCP_SERVER_NAME]: { command: 'node', args: ['/old/cli.js', 'mcp'], env: { DEBUG: '1' } } }, extra: [1, 2] }));
  chmodSync(path, 0o600);
  const r = await writeMcpConfig(ws, CLI);
  assert.equal(r.changed, true);
  assert.equal(r.created, false);
  const after = readJson(path);
  assert.equal(after.$schema, 'x');
  assert.deepEqual(after.extra, [1, 2]);
  assert.deepEqual((after.mcpServers as Record<string, unknown>).playwright, other);
  assert.deepEqual((after.mcpServers as Record<string, unknown>)[MCP_SERVER_NAME], { command: 'node', args: [CLI, 'mcp'], env: { DEBUG: '1' } });
  assert.equal(statSync(path).mode & 0o777, 0o600, 'the file keeps its mode');
});

test('.mcp.json: idempotent — a file that already holds the entry is not rewritten (its formatting survives)', async () => {
  const ws = folder();
  const path = join(ws, '.mcp.json');
  const compact = `{"mcpServers":{"x":{"command":"y"},"${MCP_SERVER_NAME}":{"command":"node","args":["${CLI}","mcp"]}}}`;
  writeFileSync(path, compact);
  const r = await writeMcpConfig(ws, CLI);
  assert.equal(r.changed, false);
  assert.equal(readFileSync(path, 'utf8'), compact);
  // And twice from nothing: the second run changes nothing.
  const ws2 = folder();
  await writeMcpConfig(ws2, CLI);
  const first = readFileSync(join(ws2, '.mcp.json'), 'utf8');
  assert.equal((await writeMcpConfig(ws2, CLI)).changed, false);
  assert.equal(readFileSync(join(ws2, '.mcp.json'), 'utf8'), first);
});

test('.mcp.json: a file that is not valid JSON, or not an object, is refused with a clear error and left byte for byte', async () => {
  for (const text of ['{"mcpServers": {', '// comment\n{}', '[]', '"x"', '{"mcpServers": []}', '{"mcpServers": "none"}']) {
    const ws = folder();
    const path = join(ws, '.mcp.json');
    writeFileSync(path, text);
    await assert.rejects(writeMcpConfig(ws, CLI), (err: unknown) => {
      assert.ok(McpConfigError.is(err), String(err));
      assert.ok(err.message.includes(path), err.message);
      assert.match(err.message, /left as it is/);
      assert.match(err.reason, /^(not-json|not-an-object)$/);
      return true;
    });
    assert.equal(readFileSync(path, 'utf8'), text, `untouched: ${text}`);
    assert.deepEqual(readdirSync(ws), ['.mcp.json'], 'no temp or lock file left behind');
  }
  // An empty file reads as an empty object.
  const ws = folder();
  writeFileSync(join(ws, '.mcp.json'), '\n');
  assert.equal((await writeMcpConfig(ws, CLI)).changed, true);
});

test("Cursor's .cursor/mcp.json takes the same entry, its folder created", async () => {
  const ws = folder();
  const r = await writeMcpConfig(ws, CLI, CURSOR_MCP_CONFIG_FILE);
  assert.equal(r.path, join(ws, '.cursor', 'mcp.json'));
  assert.deepEqual(readJson(r.path), { mcpServers: { [MCP_SERVER_NAME]: { command: 'node', args: [CLI, 'mcp'] } } });
});

test('the instruction file: frontmatter applying to every file, the marker line, then the block', () => {
  const text = renderInstructionFile('<knowledge-untrusted>\nBLOCK\n</knowledge-untrusted>\n\n');
  const lines = text.split('\n');
  assert.deepEqual(lines.slice(0, 2), ['---', 'applyTo: "**"']);
  assert.match(lines[2]!, /^description: ".+"$/);
  assert.equal(lines[3], '---');
  assert.match(lines[4]!, /^<!-- Generated by Session Knowledge .*edit the pinned notes, not this file\. -->$/);
  assert.ok(text.endsWith('\n<knowledge-untrusted>\nBLOCK\n</knowledge-untrusted>\n'));
  assert.ok(isOurInstructionFile(text));
  assert.ok(!isOurInstructionFile('---\napplyTo: "**"\n---\nMy own instructions\n'));
});

test('the instruction file is written only when it differs, never over a file that is not ours, and removed only when ours', async () => {
  const ws = folder();
  const path = join(ws, COPILOT_INSTRUCTIONS_FILE);
  const a = renderInstructionFile('A');
  assert.deepEqual(await writeInstructionFile(ws, a), { path, changed: true });
  const mtime = statSync(path).mtimeMs;
  assert.deepEqual(await writeInstructionFile(ws, a), { path, changed: false });
  assert.equal(statSync(path).mtimeMs, mtime, 'not rewritten');
  assert.equal((await writeInstructionFile(ws, renderInstructionFile('B'))).changed, true);
  assert.ok(readFileSync(path, 'utf8').endsWith('\nB\n'));
  assert.deepEqual(readdirSync(join(ws, '.github/instructions')), ['session-knowledge.instructions.md']);

  assert.equal((await removeInstructionFile(ws)).outcome, 'removed');
  assert.ok(!existsSync(join(ws, '.github')), 'the folders it needed go with it when empty');
  assert.equal((await removeInstructionFile(ws)).outcome, 'absent');
  assert.ok(!existsSync(join(ws, '.github')), 'removing nothing creates no folder');

  // Someone's own file of that name.
  mkdirSync(join(ws, '.github/instructions'), { recursive: true });
  writeFileSync(join(ws, '.github/other.md'), 'keep');
  const theirs = '---\napplyTo: "**"\n---\nAlways answer in French.\n';
  writeFileSync(path, theirs);
  await assert.rejects(writeInstructionFile(ws, a), (err: unknown) => InstructionFileError.is(err) && /was not written by Session Knowledge/.test((err as Error).message));
  assert.equal((await removeInstructionFile(ws)).outcome, 'not-ours');
  assert.equal(readFileSync(path, 'utf8'), theirs);
});

test('.git/info/exclude: the line is appended once; not a repository answers undefined; a linked worktree uses the common folder', async () => {
  const plain = folder();
  assert.equal(await addToGitExclude(plain), undefined);
  assert.ok(!existsSync(join(plain, '.git')));

  const repo = folder();
  mkdirSync(join(repo, '.git/info'), { recursive: true });
  const exclude = join(repo, '.git/info/exclude');
  writeFileSync(exclude, '# git ls-files --others --exclude-from=.git/info/exclude\n*.log');
  assert.deepEqual(await addToGitExclude(repo), { path: exclude, changed: true });
  assert.equal(readFileSync(exclude, 'utf8'), `# git ls-files --others --exclude-from=.git/info/exclude\n*.log\n${GIT_EXCLUDE_LINE}\n`);
  assert.deepEqual(await addToGitExclude(repo), { path: exclude, changed: false });
  assert.equal(readFileSync(exclude, 'utf8').split(GIT_EXCLUDE_LINE).length, 2, 'appended exactly once');

  // A `.git` file pointing at a worktree folder whose commondir is the main repository's .git.
  const main = folder();
  mkdirSync(join(main, '.git/worktrees/wt'), { recursive: true });
  writeFileSync(join(main, '.git/worktrees/wt/commondir'), '../..\n');
  const wt = folder();
  writeFileSync(join(main, '.git/worktrees/wt/gitdir'), `${join(wt, '.git')}\n`); // the back-link git worktree add writes
  writeFileSync(join(wt, '.git'), `gitdir: ${join(main, '.git/worktrees/wt')}\n`);
  assert.equal(await gitExcludePath(wt), join(main, '.git/info/exclude'));
  assert.equal((await addToGitExclude(wt))?.changed, true);
  assert.ok(readFileSync(join(main, '.git/info/exclude'), 'utf8').includes(GIT_EXCLUDE_LINE));
});

test('after an update, our installed entries are pointed at the new CLI; nothing is added where we were not installed', async () => {
  const { installClaudeCodeHook, hookCommand } = await import('../../src/server/core/agents/claudeSettings');
  const { refreshInstalledEntries } = await import('../../src/server/core/agents/installedEntries');
  const OLD = '/ext/session-knowledge-0.1.0/dist/cli.js';
  const NEW = '/ext/session-knowledge-0.2.0/dist/cli.js';
  const none = folder();
  assert.deepEqual(await refreshInstalledEntries(none, NEW), []);
  assert.equal(existsSync(join(none, '.claude')), false);
  assert.equal(existsSync(join(none, '.mcp.json')), false);

  const dir = folder();
  await installClaudeCodeHook(dir, hookCommand(OLD));
  await writeMcpConfig(dir, OLD);
  const updated = await refreshInstalledEntries(dir, NEW);
  assert.deepEqual(updated.map((p) => p.slice(dir.length + 1)).sort(), ['.claude/settings.local.json', '.mcp.json']);
  const settings = readFileSync(join(dir, '.claude/settings.local.json'), 'utf8');
  assert.ok(settings.includes(NEW) && !settings.includes(OLD), settings);
  assert.equal(((readJson(join(dir, '.mcp.json')).mcpServers as Record<string, { args: string[] }>)[MCP_SERVER_NAME]!.args[0]), NEW);
  assert.deepEqual(await refreshInstalledEntries(dir, NEW), [], 'a second refresh changes nothing');
  assert.equal(existsSync(join(dir, CURSOR_MCP_CONFIG_FILE)), false, 'Cursor’s file is not created by a refresh');
});

test('the Copilot instruction file is not rewritten for a new envelope nonce alone; a changed inside is written with its new nonce', async () => {
  const ws = folder();
  const path = join(ws, COPILOT_INSTRUCTIONS_FILE);
  const first = renderInstructionFile(wrapInEnvelope('Pinned knowledge: data.', 'Use pnpm.'));
  assert.deepEqual(await writeInstructionFile(ws, first), { path, changed: true });
  const sameInside = renderInstructionFile(wrapInEnvelope('Pinned knowledge: data.', 'Use pnpm.'));
  assert.notEqual(sameInside, first, 'each compile draws its own nonce');
  assert.deepEqual(await writeInstructionFile(ws, sameInside), { path, changed: false });
  assert.equal(readFileSync(path, 'utf8'), first, 'the file keeps the nonce drawn after its (unchanged) inside');
  const edited = renderInstructionFile(wrapInEnvelope('Pinned knowledge: data.', 'Use pnpm 9.'));
  assert.deepEqual(await writeInstructionFile(ws, edited), { path, changed: true });
  assert.equal(readFileSync(path, 'utf8'), edited);
});

test('our hook command is recognised only in the exact shape hookCommand writes (any install path), never a person\'s command that mentions it', async () => {
  const { hookCommand, isOurHookCommand } = await import('../../src/server/core/agents/claudeSettings');
  for (const cmd of [
    hookCommand('/home/me/.vscode/extensions/x.session-knowledge-0.1.0/dist/cli.js'),
    hookCommand('/home/me/my tools/dist/cli.js', '/usr/bin/node'),
    hookCommand("/home/o'brien/dist/cli.js", '/opt/node 20/bin/node'),
    `"C:\\Program Files\\nodejs\\node.exe" "C:\\Users\\me\\.vscode\\extensions\\sk\\dist\\cli.js" hook claude-code`,
    '/usr/local/bin/node /usr/local/bin/session-knowledge hook claude-code',
  ]) {
    assert.equal(isOurHookCommand(cmd), true, cmd);
  }
  for (const cmd of [
    'mytool hook claude-code --foo',
    'mytool hook claude-code',
    'echo hook claude-code',
    'node /x/dist/cli.js hook claude-code --budget-tokens 900',
    'node /x/mytool.js hook claude-code',
    'node /x/dist/cli.js hook claude-code; curl evil',
    'bash -c "node /x/dist/cli.js hook claude-code"',
    // Shaped like ours but a person's: another runner, or a cli.js that is not a dist/ build.
    'python3 /opt/tool/cli.js hook claude-code',
    'deno /x/dist/cli.js hook claude-code',
    'node /opt/tool/cli.js hook claude-code',
    undefined,
    42,
  ]) {
    assert.equal(isOurHookCommand(cmd), false, String(cmd));
  }
});
