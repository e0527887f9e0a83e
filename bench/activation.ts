/**
 * Activation bench: how long after its extension host starts does an extension's `activate()` resolve —
 * Session Knowledge beside an empty extension, in the same run, in a real VS Code (the web workbench of
 * VS Code 1.100.3 served by code-server, scripts/vscodeWeb.mjs, in headless Debian Chromium).
 *
 * Each extension is loaded through a probe folder: its own manifest (ours: package.json with `main` swapped;
 * the empty one: a manifest with the same `workspaceContains:.knowledge` activation event and an `activate`
 * that does nothing) whose `main` requires the real module and, when `activate()` resolves, writes the
 * extension host's `process.uptime()`: host start → code loaded → activate resolved, as VS Code counts it.
 * For ours it then also times the language server's first answer (`api.serverStatus()`): the server starts
 * in the background when the workspace has `.knowledge/`, after activation.
 * Runs alternate (ours, empty, ours, …), each in a fresh code-server and user-data-dir on a copy of the
 * fixture workspace. BENCH_ACTIVATION_RUNS (default 5) per extension. BENCH_ACTIVATION_BARE_FOLDERS=N opens a
 * multi-root workspace instead (a .code-workspace file): the fixture folder first, then N folders without
 * `.knowledge/` — what folders without knowledge cost, read beside a run with 0.
 * Runnable alone: `node --import tsx bench/activation.ts` (needs `npm run build` for dist/).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, printTable, quantile } from './harness';

const RUNS = Number(process.env.BENCH_ACTIVATION_RUNS ?? 5);
const BARE_FOLDERS = Number(process.env.BENCH_ACTIVATION_BARE_FOLDERS ?? 0);
const TIMEOUT_MS = 90_000;
const repoRoot = join(__dirname, '..');
/** The extension measured (default: this repository, built); e.g. an unpacked build of another commit. */
const extensionRoot = resolve(process.env.BENCH_ACTIVATION_EXTENSION ?? repoRoot);

interface CodeServer {
  stop(): Promise<void>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  context(): { close(): Promise<void> };
}
/** The parts of scripts/vscodeWeb.mjs used here (it is plain JavaScript, imported at run time). */
interface VscodeWeb {
  isInstalled(): boolean;
  tempDir(prefix: string): string;
  copyDir(src: string, dest: string): string;
  writeUserSettings(userDataDir: string, settings: object): void;
  QUIET_SETTINGS: object;
  startCodeServer(opts: { folder: string; userDataDir: string; env: Record<string, string> }): Promise<CodeServer>;
  launchBrowser(): Promise<{ close(): Promise<void> }>;
  newWorkbenchPage(browser: unknown): Promise<Page>;
  workbenchUrl(server: CodeServer, opts: { folder: string; workspace?: string; extensionDevelopmentPaths: string[] }): string;
}

interface Sample {
  /** Extension host start → `activate()` resolved, ms. */
  activatedMs: number;
  /** Loading the extension's main module (require), ms. */
  loadMs: number;
  /** The `activate()` call alone (code loading excluded), ms. */
  activateCallMs: number;
  /** Extension host start → the language server's first answer, ms (ours only). */
  serverReadyMs?: number;
}

/** `main` of a probe: loads the real module, times its activate(), reports through SK_BENCH_ACTIVATION_OUT. */
const PROBE_MAIN = (realMain: string) => `const { writeFileSync } = require('node:fs');
const loading = process.uptime() * 1000;
const real = require(${JSON.stringify(realMain)});
const loadMs = process.uptime() * 1000 - loading;
const out = process.env.SK_BENCH_ACTIVATION_OUT;
exports.activate = async (context) => {
  const called = process.uptime() * 1000;
  const api = await real.activate(context);
  const activatedMs = process.uptime() * 1000;
  const sample = { activatedMs, loadMs, activateCallMs: activatedMs - called };
  writeFileSync(out + '.activated', JSON.stringify(sample));
  if (api && api.serverStatus) {
    await api.serverStatus();
    sample.serverReadyMs = process.uptime() * 1000;
  }
  writeFileSync(out, JSON.stringify(sample));
  return api;
};
exports.deactivate = () => real.deactivate && real.deactivate();
`;

function oursProbe(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(extensionRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, main: './probe.js' }, null, 2));
  for (const d of ['dist', 'media']) symlinkSync(join(extensionRoot, d), join(dir, d), 'dir');
  writeFileSync(join(dir, 'probe.js'), PROBE_MAIN('./dist/extension.js'));
  return dir;
}

function emptyProbe(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const manifest = { name: 'empty-extension', publisher: 'skbench', version: '0.0.1', engines: { vscode: '^1.100.0' }, activationEvents: ['workspaceContains:.knowledge'], main: './probe.js' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, 'empty.js'), 'exports.activate = () => undefined;\n');
  writeFileSync(join(dir, 'probe.js'), PROBE_MAIN('./empty.js'));
  return dir;
}

async function waitForFile(path: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return readFileSync(path, 'utf8');
}

async function measure(web: VscodeWeb, browser: unknown, scratch: string, probe: string, run: string): Promise<Sample> {
  const folder = web.copyDir(join(repoRoot, 'test/fixtures/workspace'), join(scratch, `ws-${run}`));
  // A multi-root workspace: the fixture first, then folders without .knowledge/ (a few files each).
  let workspace: string | undefined;
  if (BARE_FOLDERS > 0) {
    const bare = Array.from({ length: BARE_FOLDERS }, (_, i) => join(scratch, `bare-${run}-${i}`));
    for (const b of bare) {
      mkdirSync(join(b, 'src'), { recursive: true });
      writeFileSync(join(b, 'src/index.js'), 'module.exports = {};\n');
      writeFileSync(join(b, 'README.md'), '# A folder without .knowledge/\n');
    }
    workspace = join(scratch, `ws-${run}.code-workspace`);
    writeFileSync(workspace, JSON.stringify({ folders: [{ path: folder }, ...bare.map((path) => ({ path }))] }));
  }
  const userDataDir = join(scratch, `user-${run}`);
  web.writeUserSettings(userDataDir, web.QUIET_SETTINGS);
  const out = join(scratch, `sample-${run}.json`);
  const server = await web.startCodeServer({ folder, userDataDir, env: { SK_BENCH_ACTIVATION_OUT: out } });
  const page = await web.newWorkbenchPage(browser);
  try {
    await page.goto(web.workbenchUrl(server, { folder, ...(workspace ? { workspace } : {}), extensionDevelopmentPaths: [probe] }));
    return JSON.parse(await waitForFile(out, TIMEOUT_MS)) as Sample;
  } finally {
    await page.context().close();
    await server.stop();
  }
}

const p50 = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

export async function runActivationBench(): Promise<void> {
  const web = (await import(pathToFileURL(join(repoRoot, 'scripts/vscodeWeb.mjs')).href)) as VscodeWeb;
  if (!existsSync(join(extensionRoot, 'dist/extension.js'))) throw new Error(`bench/activation.ts needs ${extensionRoot}/dist: run \`npm run build\` first`);
  if (!web.isInstalled()) {
    console.log('\nActivation: skipped — VS Code (code-server) is not installed; `npm run setup:vscode` installs it.');
    return;
  }
  // Every workbench URL adds an exit listener to this process (scripts/vscodeWeb.mjs: it removes its dev folder).
  process.setMaxListeners(Math.max(process.getMaxListeners(), 2 * RUNS + 10));
  const scratch = web.tempDir('sk-bench-activation-');
  const probes = { ours: oursProbe(join(scratch, 'probe-ours')), empty: emptyProbe(join(scratch, 'probe-empty')) };
  const samples: Record<keyof typeof probes, Sample[]> = { ours: [], empty: [] };
  const browser = await web.launchBrowser();
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const name of ['ours', 'empty'] as const) samples[name].push(await measure(web, browser, scratch, probes[name], `${name}-${i}`));
    }
  } finally {
    await browser.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  const col = (name: keyof typeof probes, f: (s: Sample) => number) => p50(samples[name].map(f));
  const row = (name: keyof typeof probes) => ({
    activated: col(name, (s) => s.activatedMs),
    load: col(name, (s) => s.loadMs),
    call: col(name, (s) => s.activateCallMs),
    own: col(name, (s) => s.loadMs + s.activateCallMs),
  });
  const ours = row('ours');
  const empty = row('empty');
  const server = col('ours', (s) => s.serverReadyMs ?? NaN);
  printTable(
    `Activation in VS Code 1.100.3 (code-server, a workspace with .knowledge/${BARE_FOLDERS > 0 ? ` and ${BARE_FOLDERS} folders without (multi-root)` : ''}; p50 of ${RUNS} fresh windows each, ms)`,
    ['extension', 'host start → activate() resolved', 'load main', 'activate() call', 'load + activate', 'host start → server answers'],
    [
      ['empty extension (baseline)', fmt(empty.activated), fmt(empty.load), fmt(empty.call), fmt(empty.own), '—'],
      [`Session Knowledge${extensionRoot === repoRoot ? '' : ` (${extensionRoot})`}`, fmt(ours.activated), fmt(ours.load), fmt(ours.call), fmt(ours.own), fmt(server)],
    ],
  );
  console.log(
    `ratio Session Knowledge / empty, host start → activate() resolved: ${(ours.activated / empty.activated).toFixed(2)}× (${ours.activated >= empty.activated ? '+' : ''}${fmt(ours.activated - empty.activated)} ms; ` +
      `the window's own start-up dominates both); the extension's own load + activate: ${fmt(ours.own)} ms against ${fmt(empty.own)} ms`,
  );
}

if (require.main === module) void runActivationBench();
