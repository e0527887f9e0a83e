/**
 * Our own JSON files in a repository (`.knowledge/pins.json`, `reviews.json`) are written by whoever can commit: a
 * link to a device or a huge file is refused unread, and a file that will not parse is said — through the real CLI
 * (`node dist/cli.js hook claude-code`, `pins`, `scan`), as a person or Claude Code runs it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempWorkspace } from '../helpers/tempWorkspace';

const CLI = resolve(__dirname, '../../dist/cli.js');

function setup() {
  const { workspace, storage } = tempWorkspace('sk-repodocs-', { '.knowledge/notes/setup.md': '# Setup\nUse pnpm.\n' });
  const env = { ...process.env, SESSION_KNOWLEDGE_STATE_DIR: join(workspace, '..', 'state'), SESSION_KNOWLEDGE_STORAGE: storage, SESSION_KNOWLEDGE_MEMORY_ENABLE: '' };
  const cli = (args: string[], input = '') => {
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: workspace, env, input, encoding: 'utf8', timeout: 20_000 });
    return { code: r.status, out: r.stdout, err: r.stderr, ms: Date.now() - t0 };
  };
  const start = () => cli(['hook', 'claude-code'], JSON.stringify({ session_id: `s${Math.random()}`, cwd: workspace, hook_event_name: 'SessionStart', source: 'startup' }));
  return { workspace, cli, start };
}

test('pins.json and reviews.json linked to /dev/zero are refused unread: the hook, pins and scan answer at once and say why', () => {
  const t = setup();
  symlinkSync('/dev/zero', join(t.workspace, '.knowledge/pins.json'));
  symlinkSync('/dev/zero', join(t.workspace, '.knowledge/reviews.json'));
  const hook = t.start();
  assert.equal(hook.code, 0, hook.err);
  assert.equal(hook.out, '', 'no pins, no block');
  assert.match(hook.err, /pins\.json is not a regular file; it was not read/);
  assert.ok(hook.ms < 8000, `the hook answered in ${hook.ms} ms`);
  const pins = t.cli(['pins']);
  assert.match(pins.err, /pins\.json is not a regular file/);
  const scan = t.cli(['scan']);
  assert.equal(scan.code, 0, `${scan.out}${scan.err}`);
  assert.ok(scan.ms < 8000, `scan answered in ${scan.ms} ms`);
  assert.deepEqual(readdirSync(join(t.workspace, '.knowledge')).sort(), ['notes', 'pins.json', 'plans', 'reviews.json'], 'nothing renamed');
});

test('a pins.json that will not parse is moved aside and the hook says so on stderr (it used to be silent)', () => {
  const t = setup();
  writeFileSync(join(t.workspace, '.knowledge/pins.json'), 'not json');
  const hook = t.start();
  assert.equal(hook.code, 0, hook.err);
  assert.equal(hook.out, '');
  assert.match(hook.err, /pins\.json is malformed .* It was moved to .*pins\.json\.malformed-/);
  const aside = readdirSync(join(t.workspace, '.knowledge')).find((f) => f.startsWith('pins.json.malformed-'))!;
  assert.equal(readFileSync(join(t.workspace, '.knowledge', aside), 'utf8'), 'not json', 'nothing lost');
});
