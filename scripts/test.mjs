// `npm test`: every check, in order, stopping at the first failure:
//   typecheck, lint, build, unit tests, protocol tests, integration tests (real VS Code extension host),
//   UI tests (real VS Code workbench in Chromium).
// Prints one summary line per stage with its time, then a last line `N passed, N failed` counting tests
// (node:test counts from a TAP copy of the output, mocha counts from the runner's SK_MOCHA_RESULT lines).
// A stage that fails without running tests (typecheck, lint, build, a crash) counts as one failure.
// Non-interactive throughout, so CI=true needs nothing special.
//
//   node scripts/test.mjs                      # everything
//   node scripts/test.mjs --only unit,protocol # some stages (names as in the summary)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(join(tmpdir(), 'sk-test-'));
// The per-user state (agent sessions, the person's own record of reviews and approvals) of every test process: a
// temp folder of this run, never the real ~/.local/state. Tests that need their own still name one.
process.env.SESSION_KNOWLEDGE_STATE_DIR ||= join(scratch, 'state');

/** Every file under dir (relative to the repo) whose name ends with suffix; no shell globs. */
function findFiles(dir, suffix) {
  let entries;
  try { entries = readdirSync(join(root, dir), { recursive: true, withFileTypes: true }); } catch { return []; }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => relative(root, join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/** node --test with the spec reporter on stdout and a TAP copy in a file, for the counts. */
function nodeTest(name, files, { tsx, concurrency }) {
  const tap = join(scratch, `${name}.tap`);
  return {
    files,
    cmd: process.execPath,
    args: [...(tsx ? ['--import', 'tsx'] : []), '--test', ...(concurrency ? [`--test-concurrency=${concurrency}`] : []),
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
    counts: () => {
      let text = '';
      try { text = readFileSync(tap, 'utf8'); } catch { return null; }
      const pass = /^# pass (\d+)/m.exec(text);
      const fail = /^# fail (\d+)/m.exec(text);
      return pass && fail ? { passed: Number(pass[1]), failed: Number(fail[1]) } : null;
    },
  };
}

const { values: opts } = parseArgs({ options: { only: { type: 'string' } } });
const only = opts.only ? new Set(opts.only.split(',').map((s) => s.trim())) : null;

const npm = (script) => ({ cmd: 'npm', args: ['run', '--silent', script] });
const stages = [
  { name: 'typecheck', ...npm('typecheck') },
  { name: 'lint', ...npm('lint') },
  { name: 'build', ...npm('build') },
  { name: 'unit', ...nodeTest('unit', findFiles('test/unit', '.test.ts'), { tsx: true }) },
  { name: 'protocol', ...nodeTest('protocol', findFiles('test/protocol', '.test.ts'), { tsx: true }) },
  {
    name: 'integration',
    cmd: process.execPath,
    args: [join(root, 'scripts/run-vscode-tests.mjs')],
    capture: true,
    counts: (out) => {
      const results = [...out.matchAll(/SK_MOCHA_RESULT (\{.*\})/g)].map((m) => JSON.parse(m[1]));
      if (results.length === 0) return null;
      return results.reduce((t, r) => ({ passed: t.passed + r.passes, failed: t.failed + r.failures }), { passed: 0, failed: 0 });
    },
  },
  // One browser test file at a time: each starts its own VS Code, and the .vsix test rebuilds dist/.
  { name: 'ui', ...nodeTest('ui', findFiles('test/ui', '.test.mjs'), { tsx: false, concurrency: 1 }) },
];

/**
 * The browser stages need Debian's Chromium and the VS Code build. On a fresh machine, install them here so
 * `npm ci && npm test` is enough (as root, with apt-get); otherwise say exactly what to run.
 */
function ensureBrowserDeps() {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    const root = typeof process.getuid === 'function' && process.getuid() === 0;
    if (!root || spawnSync('which', ['apt-get']).status !== 0) {
      console.error(`[test] Chromium is missing at ${chromium}. Install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
      return false;
    }
    console.log('[test] installing Debian chromium (once)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (spawnSync('apt-get', ['update'], { stdio: 'inherit', env }).status !== 0) return false;
    if (spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env }).status !== 0) return false;
  }
  return spawnSync('bash', [join(root, 'scripts/install-vscode-web.sh')], { stdio: 'inherit', cwd: root }).status === 0;
}

function run(stage) {
  return new Promise((res) => {
    const child = spawn(stage.cmd, stage.args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let out = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      if (stage.capture) out += d;
    });
    child.on('error', (e) => { console.error(`[test] ${stage.name}: ${e.message}`); res({ code: 1, out }); });
    child.on('close', (code, signal) => res({ code: code ?? (signal ? 1 : 0), out }));
  });
}

if (only) {
  const unknown = [...only].filter((n) => !stages.some((s) => s.name === n));
  if (unknown.length) { console.error(`[test] unknown stage(s): ${unknown.join(', ')}; stages: ${stages.map((s) => s.name).join(', ')}`); process.exit(2); }
}

const summary = [];
let passed = 0;
let failed = 0;
let stopped = false;
let browserDepsChecked = false;
for (const stage of stages) {
  if (only && !only.has(stage.name)) continue;
  if (stopped) { summary.push({ name: stage.name, status: 'not run', ms: 0 }); continue; }
  if (stage.files && stage.files.length === 0) {
    summary.push({ name: stage.name, status: 'skipped (no test files)', ms: 0 });
    continue;
  }
  console.log(`\n[test] ── ${stage.name} ──`);
  const started = Date.now();
  if ((stage.name === 'integration' || stage.name === 'ui') && !browserDepsChecked) {
    browserDepsChecked = true;
    if (!ensureBrowserDeps()) {
      failed += 1;
      summary.push({ name: stage.name, status: 'FAILED (Chromium or VS Code could not be installed)', ms: Date.now() - started });
      stopped = true;
      continue;
    }
  }
  const { code, out } = await run(stage);
  const ms = Date.now() - started;
  const counts = stage.counts?.(out) ?? null;
  if (counts) { passed += counts.passed; failed += counts.failed; }
  const ok = code === 0;
  if (!ok && (!counts || counts.failed === 0)) failed += 1; // failed without a failing test: count the stage
  const detail = counts ? ` (${counts.passed} passed, ${counts.failed} failed)` : '';
  summary.push({ name: stage.name, status: `${ok ? 'passed' : `FAILED (exit ${code})`}${detail}`, ms });
  if (!ok) stopped = true;
}
rmSync(scratch, { recursive: true, force: true });

console.log('\n[test] summary');
for (const s of summary) console.log(`  ${s.name.padEnd(12)} ${s.status.padEnd(40)} ${s.ms ? `${(s.ms / 1000).toFixed(1)} s` : ''}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(stopped ? 1 : 0);
