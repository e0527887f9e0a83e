/**
 * The install path of a fresh clone, as the README gives it, from a clean copy of this checkout (nothing built):
 *  - `npm run package` writes dist-package/session-knowledge.vsix, holding the bundles and the model's data file and
 *    nothing of the sources, the tests or node_modules;
 *  - `npm pack` makes a tarball that `npm install -g` puts on PATH with no registry and no npm cache (a temporary
 *    prefix and an empty cache: everything the CLI runs is bundled into dist/), and the installed
 *    `session-knowledge` works from another folder — a throwaway git repository: --version, scan, pin, hook install
 *    claude-code, and the hook command it wrote, fed Claude Code's input (docs/examples/); `npm install -g .` in the
 *    built clone (a link) gives the same command.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { cleanClone, REPO_ROOT, zipEntries } from '../helpers/cleanClone';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
let clone: string;
const scratches: string[] = [];

function explain(r: SpawnSyncReturns<string>): string {
  return `exit ${r.status} signal ${r.signal}${r.error ? ` error ${r.error.message}` : ''}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
}

/** npm with nothing from this machine's npm setup: no registry (an address that refuses), an empty cache. */
function npmEnv(scratch: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return {
    ...env,
    npm_config_cache: join(scratch, 'npm-cache'),
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_userconfig: join(scratch, 'npmrc'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...extra,
  };
}

before(() => {
  clone = cleanClone('sk-install-');
  scratches.push(dirname(clone));
  assert.ok(!existsSync(join(clone, 'dist')) && !existsSync(join(clone, 'dist-package')), 'the copy starts with nothing built');
});
after(() => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

test('npm run package on a fresh clone writes dist-package/session-knowledge.vsix with the bundles and the model data, and nothing else', { timeout: 240_000 }, () => {
  const r = spawnSync(NPM, ['run', 'package'], { cwd: clone, encoding: 'utf8', env: npmEnv(dirname(clone)), timeout: 200_000 });
  assert.equal(r.status, 0, `npm run package failed on a fresh clone:\n${explain(r)}`);
  const vsix = join(clone, 'dist-package/session-knowledge.vsix');
  assert.ok(existsSync(vsix), 'the README names this file');

  const entries = zipEntries(vsix);
  const shipped = entries.filter((e) => e.startsWith('extension/')).map((e) => e.slice('extension/'.length));
  for (const must of ['package.json', 'dist/extension.js', 'dist/server.js', 'dist/cli.js', 'dist/cli-main.js', 'dist/cli-hook.js', 'dist/threat-model.bin', 'dist/prefilter.generated.json']) {
    assert.ok(shipped.includes(must), `the .vsix holds ${must}: ${shipped.join(', ')}`);
  }
  const unwanted = shipped.filter((e) => /(^|\/)node_modules\//.test(e) || /^(test|src|scripts|bench|demo|docs|out|\.ci)\//.test(e) || /(?<!\.d)\.ts$|\.(map|tgz|vsix)$/.test(e) || /(^|\/)\.knowledge\//.test(e));
  assert.deepEqual(unwanted, [], 'no sources, tests, maps or dependencies in the .vsix');
  assert.ok(entries.includes('extension.vsixmanifest'));
});

test('npm pack + npm install -g into a temporary prefix, offline: session-knowledge runs from another git repository', { timeout: 240_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'sk-global-'));
  scratches.push(scratch);
  const packed = spawnSync(NPM, ['pack', '--pack-destination', scratch], { cwd: clone, encoding: 'utf8', env: npmEnv(scratch), timeout: 200_000 });
  assert.equal(packed.status, 0, `npm pack failed:\n${explain(packed)}`);
  const tarball = join(scratch, `session-knowledge-${VERSION}.tgz`);
  assert.ok(existsSync(tarball), `npm pack wrote ${tarball}: ${readdirSync(scratch).join(', ')}`);

  const prefix = join(scratch, 'prefix');
  const installed = spawnSync(NPM, ['install', '--global', '--offline', tarball], { cwd: scratch, encoding: 'utf8', env: npmEnv(scratch, { npm_config_prefix: prefix }), timeout: 120_000 });
  assert.equal(installed.status, 0, `npm install -g of the tarball failed (no registry, empty cache):\n${explain(installed)}`);
  const bin = process.platform === 'win32' ? prefix : join(prefix, 'bin');
  const pkgDir = process.platform === 'win32' ? join(prefix, 'node_modules/session-knowledge') : join(prefix, 'lib/node_modules/session-knowledge');
  assert.ok(existsSync(join(pkgDir, 'dist/cli.js')), 'the package holds its CLI');
  assert.ok(!existsSync(join(pkgDir, 'node_modules')), 'nothing to install beside it: the CLI is bundled');
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { dependencies?: object };
  assert.deepEqual(Object.keys(manifest.dependencies ?? {}), [], 'the package declares no runtime dependency');
  const files = readdirSync(pkgDir, { recursive: true }).map(String).sort();
  assert.deepEqual(files.filter((f) => /^(src|test|scripts|media)(\/|$)|\.ts$/.test(f)), [], `only the CLI ships: ${files.join(', ')}`);

  // Another folder: a throwaway git repository with a note, PATH = the prefix's bin and this Node only.
  const repo = join(scratch, 'elsewhere');
  mkdirSync(join(repo, '.knowledge/notes'), { recursive: true });
  writeFileSync(join(repo, '.knowledge/notes/setup.md'), '# Setup\nUse pnpm, not npm. The API lives in packages/api.\n');
  assert.equal(spawnSync('git', ['init', '-q'], { cwd: repo }).status, 0);
  const env = {
    PATH: [bin, dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter),
    HOME: join(scratch, 'home'),
    XDG_STATE_HOME: join(scratch, 'state'),
    SESSION_KNOWLEDGE_STATE_DIR: '',
    SESSION_KNOWLEDGE_STORAGE: join(scratch, 'storage'),
    SESSION_KNOWLEDGE_MEMORY_ENABLE: '',
  };
  const sk = (args: string[], input = '') => spawnSync('session-knowledge', args, { cwd: repo, env, input, encoding: 'utf8', timeout: 60_000, shell: process.platform === 'win32' });

  const version = sk(['--version']);
  assert.equal(version.status, 0, explain(version));
  assert.equal(version.stdout.trim(), VERSION);

  const scan = sk(['scan']);
  assert.equal(scan.status, 0, `a clean note scans clean:\n${explain(scan)}`);

  const pin = sk(['pin', '.knowledge/notes/setup.md']);
  assert.equal(pin.status, 0, explain(pin));
  assert.equal(pin.stdout, '.knowledge/notes/setup.md\n');
  assert.deepEqual((JSON.parse(readFileSync(join(repo, '.knowledge/pins.json'), 'utf8')) as { pins: string[] }).pins, ['.knowledge/notes/setup.md']);

  const hook = sk(['hook', 'install', 'claude-code']);
  assert.equal(hook.status, 0, explain(hook));
  const settingsPath = join(repo, '.claude/settings.local.json');
  assert.equal(hook.stdout, `Installed the Session Knowledge hooks in ${settingsPath}\n`);
  const settings = JSON.parse(readFileSync(settingsPath, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  const commands = [...new Set(Object.values(settings.hooks).flat().flatMap((g) => g.hooks.map((h) => h.command)))];
  assert.equal(commands.length, 1, `one command for both events: ${commands.join(' | ')}`);
  const command = commands[0]!;
  assert.ok(command.includes(prefix) || command.includes(realpathSync(prefix)), `the hook runs the installed CLI, not the clone: ${command}`);
  assert.ok(!command.includes(clone), command);

  // The other documented way: `npm install -g .` in the built clone links it (a rebuild updates the command).
  const linkPrefix = join(scratch, 'link-prefix');
  const linked = spawnSync(NPM, ['install', '--global', '--offline', '.'], { cwd: clone, encoding: 'utf8', env: npmEnv(scratch, { npm_config_prefix: linkPrefix }), timeout: 120_000 });
  assert.equal(linked.status, 0, `npm install -g . failed:\n${explain(linked)}`);
  const viaLink = spawnSync('session-knowledge', ['--version'], { cwd: repo, env: { ...env, PATH: [process.platform === 'win32' ? linkPrefix : join(linkPrefix, 'bin'), dirname(process.execPath)].join(delimiter) }, encoding: 'utf8', shell: process.platform === 'win32' });
  assert.equal(viaLink.stdout.trim(), VERSION, explain(viaLink));

  // What Claude Code then runs: the written command, fed its SessionStart input (the README's example).
  const input = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/examples/hook-input.session-start.json'), 'utf8')) as Record<string, unknown>;
  const ran = spawnSync('/bin/sh', ['-c', command], { cwd: repo, env, input: JSON.stringify({ ...input, cwd: repo }), encoding: 'utf8', timeout: 60_000 });
  assert.equal(ran.status, 0, explain(ran));
  assert.equal(ran.stderr, '');
  assert.match(ran.stdout, /<<<BEGIN_UNTRUSTED_KNOWLEDGE [0-9a-f]{24}>>>/);
  assert.match(ran.stdout, /Use pnpm, not npm/);
});
