/**
 * Writers never follow links (issue 25): a repository chooses its own symbolic links, so every file the real CLI
 * writes inside a workspace folder — Claude Code's `.claude/settings.local.json` (`hook install|uninstall
 * claude-code`), `.knowledge/pins.json` (`pin`) — is refused when it, or a folder above it, is a link: the outside
 * file is untouched, nothing is created outside, and nothing is written into the repository. Also: `hook install`
 * and `uninstall` leave a person's own hook groups (and their own command mentioning `hook claude-code`) alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tempWorkspace } from '../helpers/tempWorkspace';

const CLI = resolve(__dirname, '../../dist/cli.js');

function setup() {
  const { workspace, storage } = tempWorkspace('sk-links-', { '.knowledge/notes/setup.md': '# Setup\nUse pnpm.\n' });
  const outside = mkdtempSync(join(tmpdir(), 'sk-outside-'));
  const env = { ...process.env, XDG_STATE_HOME: join(workspace, '..', 'state'), SESSION_KNOWLEDGE_STATE_DIR: '', SESSION_KNOWLEDGE_MEMORY_ENABLE: '', HOME: join(workspace, '..', 'home'), SESSION_KNOWLEDGE_STORAGE: storage };
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, ...args, '--workspace', workspace], { cwd: workspace, env, encoding: 'utf8', timeout: 30_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  return { workspace, outside, cli };
}

const SECRET_JSON = `${JSON.stringify({ registry: 'https://npm.example.com', _authToken: 'npm_SECRET_TOKEN_123' }, null, 2)}\n`;

test('hook install: .claude/settings.local.json committed as a link to an outside JSON file is refused; the outside file is untouched and nothing is written into the repository', () => {
  const t = setup();
  const secret = join(t.outside, 'auth.json');
  writeFileSync(secret, SECRET_JSON);
  mkdirSync(join(t.workspace, '.claude'));
  symlinkSync(secret, join(t.workspace, '.claude/settings.local.json'));

  for (const action of ['install', 'uninstall']) {
    const r = t.cli(['hook', action, 'claude-code']);
    assert.notEqual(r.code, 0, `${action} must fail: ${r.out}`);
    assert.match(r.err, /settings\.local\.json is a symbolic link/, r.err);
    assert.equal(readFileSync(secret, 'utf8'), SECRET_JSON, 'the outside file is untouched');
    assert.ok(lstatSync(join(t.workspace, '.claude/settings.local.json')).isSymbolicLink(), 'the link is still a link: no regular file with outside bytes replaced it');
    assert.deepEqual(readdirSync(join(t.workspace, '.claude')), ['settings.local.json'], 'no lock or temp file left in the repository');
    assert.deepEqual(readdirSync(t.outside), ['auth.json'], 'nothing created beside the outside file');
  }
});

test('hook install: .claude itself linked to an outside folder creates nothing outside', () => {
  const t = setup();
  symlinkSync(t.outside, join(t.workspace, '.claude'));
  const r = t.cli(['hook', 'install', 'claude-code']);
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.err, /\.claude is a symbolic link/, r.err);
  assert.deepEqual(readdirSync(t.outside), [], 'nothing created in the outside folder');
});

test('hook install through a cloned repository whose .claude/settings.local.json is a committed link', () => {
  const t = setup();
  const secret = join(t.outside, 'auth.json');
  writeFileSync(secret, SECRET_JSON);
  const origin = join(t.outside, 'origin');
  mkdirSync(join(origin, '.claude'), { recursive: true });
  symlinkSync(secret, join(origin, '.claude/settings.local.json'));
  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', '-c', 'core.symlinks=true', ...args], { cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  };
  git(origin, 'init', '-q');
  git(origin, 'add', '-A');
  git(origin, 'commit', '-qm', 'link');
  const clone = join(t.outside, 'clone');
  git(t.outside, 'clone', '-q', origin, clone);
  assert.ok(lstatSync(join(clone, '.claude/settings.local.json')).isSymbolicLink());
  const r = spawnSync(process.execPath, [CLI, 'hook', 'install', 'claude-code', '--workspace', clone], { cwd: clone, encoding: 'utf8', env: { ...process.env, HOME: join(t.outside, 'home') } });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /is a symbolic link/);
  assert.equal(readFileSync(secret, 'utf8'), SECRET_JSON);
  assert.equal(spawnSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' }).stdout, '', 'the clone is exactly as checked out');
});

test('pin: .knowledge/pins.json as a link to an outside file, or .knowledge linked outside, is refused and writes nothing outside', () => {
  const t = setup();
  const outsidePins = join(t.outside, 'pins.json');
  const before = '{"pins": []}\n';
  writeFileSync(outsidePins, before);
  symlinkSync(outsidePins, join(t.workspace, '.knowledge/pins.json'));
  const r = t.cli(['pin', '.knowledge/notes/setup.md']);
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.err, /pins\.json is a symbolic link/, r.err);
  assert.equal(readFileSync(outsidePins, 'utf8'), before);
  assert.deepEqual(readdirSync(t.outside), ['pins.json']);

  // `.knowledge` itself linked to an outside folder: pinning a file of the workspace must not create pins.json there.
  const w = setup();
  const real = join(w.outside, 'knowledge');
  mkdirSync(join(real, 'notes'), { recursive: true });
  writeFileSync(join(real, 'notes/x.md'), '# X\n');
  const k = join(w.workspace, '.knowledge');
  rmSync(k, { recursive: true });
  symlinkSync(real, k);
  writeFileSync(join(w.workspace, 'a.md'), '# A\n');
  const p = w.cli(['pin', 'a.md']);
  assert.notEqual(p.code, 0, p.out);
  assert.match(p.err, /\.knowledge is a symbolic link/, p.err);
  assert.ok(!existsSync(join(real, 'pins.json')), 'no pins.json created in the outside folder');
});

test("hook install / uninstall leave a person's own hooks alone: a command that merely mentions hook claude-code, their group's matcher", () => {
  const t = setup();
  const theirs = {
    model: 'opus',
    hooks: {
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'mytool hook claude-code --foo', timeout: 5 }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo hook claude-code' }] }],
    },
  };
  mkdirSync(join(t.workspace, '.claude'));
  const path = join(t.workspace, '.claude/settings.local.json');
  writeFileSync(path, JSON.stringify(theirs, null, 2));

  const i = t.cli(['hook', 'install', 'claude-code']);
  assert.equal(i.code, 0, i.err);
  const installed = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(installed.hooks.SessionStart[0], theirs.hooks.SessionStart[0], "their SessionStart group is exactly as it was (hooks and matcher)");
  assert.deepEqual(installed.hooks.UserPromptSubmit[0], theirs.hooks.UserPromptSubmit[0]);
  for (const event of ['SessionStart', 'UserPromptSubmit']) {
    assert.equal(installed.hooks[event].length, 2, `${event}: our entry is a group of its own`);
    const ours = installed.hooks[event][1];
    assert.equal(ours.hooks.length, 1);
    assert.match(ours.hooks[0].command, /cli\.js'? hook claude-code$/);
  }
  assert.equal(installed.hooks.SessionStart[1].matcher, 'startup|resume|clear|compact');

  // Installing again changes nothing; uninstalling gives back exactly what the person had.
  assert.match(t.cli(['hook', 'install', 'claude-code']).out, /nothing changed/);
  const u = t.cli(['hook', 'uninstall', 'claude-code']);
  assert.equal(u.code, 0, u.err);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), theirs);
});

test('hook install moves our entry out of a group it shares with a person (as an older version wrote it), leaving their hook and matcher', () => {
  const t = setup();
  const cmd = `${process.execPath} ${CLI} hook claude-code`;
  const shared = { matcher: 'startup', hooks: [{ type: 'command', command: 'mytool --x' }, { type: 'command', command: cmd, timeout: 10 }] };
  mkdirSync(join(t.workspace, '.claude'));
  const path = join(t.workspace, '.claude/settings.local.json');
  writeFileSync(path, JSON.stringify({ hooks: { SessionStart: [shared] } }));
  assert.equal(t.cli(['hook', 'install', 'claude-code']).code, 0);
  const s = JSON.parse(readFileSync(path, 'utf8')).hooks.SessionStart;
  assert.deepEqual(s[0], { matcher: 'startup', hooks: [{ type: 'command', command: 'mytool --x' }] });
  assert.equal(s.length, 2);
  assert.equal(s[1].matcher, 'startup|resume|clear|compact');
  assert.equal(t.cli(['hook', 'uninstall', 'claude-code']).code, 0);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')).hooks.SessionStart, [{ matcher: 'startup', hooks: [{ type: 'command', command: 'mytool --x' }] }]);
});
