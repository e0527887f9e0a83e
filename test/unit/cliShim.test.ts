/**
 * The CLI's command line and its launcher (src/extension/agents/cliShim.ts), on real temp folders: the quoting runs
 * through a real shell, the launcher runs the real built CLI when dist/ is there, and a file that is not ours is
 * never written over.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI_NAME, SHIM_MARKER, cliCommandLine, onPath, refreshShim, shimDirectory, shimState, shimText, writeShim } from '../../src/extension/agents/cliShim';

const posix = process.platform !== 'win32';

test('cliCommandLine quotes the path so a POSIX shell reads it back exactly', { skip: !posix && 'POSIX shells only' }, () => {
  for (const path of ['/home/a/.vscode/extensions/sessionknowledge.session-knowledge-0.1.0/dist/cli.js', "/tmp/it's here/dist/cli.js", '/tmp/a "b" $HOME `x` \\ c/dist/cli.js']) {
    const line = cliCommandLine(path, 'linux');
    assert.match(line, /^node "/);
    // `printf '%s\n'` stands in for node: the shell hands it the one argument it parsed.
    const echoed = execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${line.slice('node '.length)}`], { encoding: 'utf8' });
    assert.equal(echoed, `${path}\n`, line);
  }
  assert.equal(cliCommandLine('C:\\Users\\A B\\.vscode\\extensions\\x\\dist\\cli.js', 'win32'), 'node "C:\\Users\\A B\\.vscode\\extensions\\x\\dist\\cli.js"');
});

test('the launcher goes to $XDG_BIN_HOME, else ~/.local/bin; onPath reads PATH', () => {
  assert.equal(shimDirectory({ XDG_BIN_HOME: '/opt/me/bin' }), '/opt/me/bin');
  assert.match(shimDirectory({ XDG_BIN_HOME: 'relative/bin' }), /[/\\]\.local[/\\]bin$/, 'a relative XDG_BIN_HOME is ignored');
  assert.match(shimDirectory({}), /[/\\]\.local[/\\]bin$/);
  assert.equal(onPath('/home/a/.local/bin', '/usr/bin:/home/a/.local/bin/:/bin'), true);
  assert.equal(onPath('/home/a/.local/bin', '/usr/bin:/bin'), false);
  assert.equal(onPath('/home/a/.local/bin', undefined), false);
});

test('writeShim writes an executable launcher, knows it again, and points it at a moved extension', { skip: !posix && 'POSIX only' }, () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'sk-shim-')), 'new', 'bin');
  const cli = "/ext/session-knowledge-0.1.0/it's/dist/cli.js";
  const first = writeShim(dir, cli);
  assert.deepEqual(first, { outcome: 'written', file: join(dir, CLI_NAME) });
  assert.equal(readFileSync(first.file, 'utf8'), shimText(cli));
  assert.equal(statSync(first.file).mode & 0o777, 0o755);
  assert.deepEqual(shimState(first.file), { kind: 'ours', cliPath: cli });
  assert.deepEqual(writeShim(dir, cli), { outcome: 'unchanged', file: first.file });

  assert.equal(refreshShim(dir, cli), undefined, 'same folder: nothing to do');
  const moved = '/ext/session-knowledge-0.2.0/dist/cli.js';
  assert.deepEqual(refreshShim(dir, moved), { outcome: 'written', file: first.file });
  assert.deepEqual(shimState(first.file), { kind: 'ours', cliPath: moved });
  assert.equal(refreshShim(join(dir, 'none'), moved), undefined, 'refresh never creates a launcher');
  assert.equal(existsSync(join(dir, 'none')), false);
});

test('a file that is not ours (no marker, a link, a folder) is refused and left exactly as it was', { skip: !posix && 'POSIX only' }, () => {
  const root = mkdtempSync(join(tmpdir(), 'sk-shim-foreign-'));
  const cases: [string, (file: string) => void, RegExp][] = [
    ['plain', (f) => writeFileSync(f, '#!/bin/sh\necho mine\n'), /not our launcher/],
    ['marker-elsewhere', (f) => writeFileSync(f, `#!/bin/sh\necho "${SHIM_MARKER}"\n`), /not our launcher/],
    ['link', (f) => symlinkSync('/bin/true', f), /link/],
    ['folder', (f) => mkdirSync(f), /not a file/],
  ];
  for (const [name, make, why] of cases) {
    const dir = join(root, name);
    mkdirSync(dir);
    const file = join(dir, CLI_NAME);
    make(file);
    const before = statSync(file, { throwIfNoEntry: false });
    const text = before?.isFile() ? readFileSync(file, 'utf8') : undefined;
    const r = writeShim(dir, '/ext/dist/cli.js');
    assert.equal(r.outcome, 'refused', name);
    assert.match((r as { why: string }).why, why, name);
    if (text !== undefined) assert.equal(readFileSync(file, 'utf8'), text, name);
    assert.equal(refreshShim(dir, '/ext/dist/cli.js'), undefined, name);
  }
});

test('the launcher runs the built CLI with its arguments', { skip: (!posix && 'POSIX only') || (!existsSync(resolve(__dirname, '../../dist/cli.js')) && 'run npm run build first') }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'sk-shim-run-'));
  const cli = resolve(__dirname, '../../dist/cli.js');
  const { file } = writeShim(dir, cli);
  chmodSync(file, 0o755);
  const r = spawnSync(file, ['--version'], { encoding: 'utf8', env: { ...process.env, PATH: `${resolve(process.execPath, '..')}:/usr/bin:/bin` } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), (JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { version: string }).version);
});
