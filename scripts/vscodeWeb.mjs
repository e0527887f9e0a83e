// Shared launcher for a real VS Code: the web workbench of VS Code 1.100.3, served by code-server on
// loopback (installed by scripts/install-vscode-web.sh) and driven by Debian Chromium through
// playwright-core. Used by scripts/run-vscode-tests.mjs, scripts/start.mjs and test/ui/*.
//
//   const server = await startCodeServer({ folder, userDataDir, env: { SK_TEST_PHASE: '1' } });
//   const browser = await launchBrowser();
//   const page = await browser.newPage();
//   await page.goto(workbenchUrl(server, { folder, extensionDevelopmentPaths: [repoRoot] }));
//   ...
//   await browser.close(); await server.stop();
//
// Environment given to startCodeServer (and the caller's own process.env) reaches the remote extension
// host: code-server forks VS Code's server, which forks the extension host with its environment.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CODE_SERVER_VERSION = '4.100.3';
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic',
];

/** Settings that keep the workbench quiet and deterministic (no welcome page, no update/gallery noise). */
export const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'git.enabled': false,
};

export function vscodeWebDir() {
  return resolve(process.env.VSCODE_WEB_DIR ?? join(repoRoot, '.vscode-test/vscode-web'));
}

function entryScript() {
  return join(vscodeWebDir(), 'node_modules/code-server/out/node/entry.js');
}

export function isInstalled() {
  return existsSync(join(vscodeWebDir(), `.installed-code-server-${CODE_SERVER_VERSION}`)) && existsSync(entryScript());
}

/** Runs scripts/install-vscode-web.sh unless its stamp file says the install is complete. */
export function ensureInstalled() {
  if (isInstalled()) return;
  const r = spawnSync('bash', [join(repoRoot, 'scripts/install-vscode-web.sh')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`scripts/install-vscode-web.sh failed (exit ${r.status ?? r.signal})`);
}

/**
 * Installs a packaged .vsix into an extensions folder with code-server's own CLI (as `code --install-extension`);
 * `force` reinstalls over the same version.
 */
export function installVsix(vsix, { extensionsDir, userDataDir, force = false }) {
  ensureInstalled();
  const r = spawnSync(process.execPath, [entryScript(), '--install-extension', vsix, ...(force ? ['--force'] : []), '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`installing ${vsix} failed (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
}

/** Uninstalls an extension (`publisher.name`) from an extensions folder with code-server's own CLI. */
export function uninstallExtension(id, { extensionsDir, userDataDir }) {
  ensureInstalled();
  const r = spawnSync(process.execPath, [entryScript(), '--uninstall-extension', id, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`uninstalling ${id} failed (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
}

/**
 * Packages an extension folder into `<outDir>/<name>.vsix` with the repository's vsce (a test fixture or the
 * demo model: no dependencies, no license or repository needed); answers the .vsix path.
 */
export function packageExtension(dir, outDir) {
  const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const vsix = join(outDir, `${name}.vsix`);
  mkdirSync(outDir, { recursive: true });
  const vsce = join(repoRoot, 'node_modules/@vscode/vsce/vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '-o', vsix], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vsce package ${dir} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return vsix;
}

/** `publisher.name` of an extension folder (what `--enable-proposed-api` takes). */
export function extensionId(dir) {
  const { publisher, name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return `${publisher}.${name}`;
}

/** Asks the OS for a free loopback port. */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => res(port));
    });
  });
}

/** A fresh temp directory (caller removes it, or leaves it for inspection). */
export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Copies a folder tree (e.g. a fixture workspace) to dest. */
export function copyDir(src, dest) {
  cpSync(src, dest, { recursive: true });
  return dest;
}

/** Merges settings into <userDataDir>/User/settings.json (the user settings code-server serves). */
export function writeUserSettings(userDataDir, settings) {
  const file = join(userDataDir, 'User', 'settings.json');
  mkdirSync(dirname(file), { recursive: true });
  let current = {};
  try { current = JSON.parse(readFileSync(file, 'utf8')); } catch { /* none yet */ }
  writeFileSync(file, JSON.stringify({ ...current, ...settings }, null, 2));
  return file;
}

/**
 * Polls fn until it returns a truthy value; throws `message` after timeoutMs. An error thrown by fn
 * is retried, unless it has `fatal: true`.
 * @template T
 * @param {() => Promise<T> | T} fn
 */
export async function waitFor(fn, { timeoutMs = 30_000, intervalMs = 200, message = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      if (e?.fatal) throw e;
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}${lastError ? `: ${lastError.message}` : ''}`);
    }
    await sleep(intervalMs);
  }
}

/**
 * Starts code-server on 127.0.0.1:<free port> serving `folder`, and waits for /healthz.
 * Runs in its own process group so stop() takes down the VS Code server, extension hosts and anything
 * they spawned (e.g. our language server).
 * @param {{ folder: string, userDataDir?: string, extensionsDir?: string, env?: Record<string, string|undefined>,
 *   onOutput?: (line: string) => void, healthTimeoutMs?: number, extraArgs?: string[], workspaceTrust?: boolean, port?: number }} opts
 *   port: the port to bind (default: a free one).
 *   workspaceTrust: leave VS Code's workspace trust on (no --disable-workspace-trust); the user settings decide the rest.
 */
export async function startCodeServer(opts) {
  ensureInstalled();
  const scratch = tempDir('sk-code-server-');
  const userDataDir = opts.userDataDir ?? join(scratch, 'user-data');
  const extensionsDir = opts.extensionsDir ?? join(scratch, 'extensions');
  mkdirSync(userDataDir, { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  // Our own config file, so code-server never writes ~/.config/code-server/config.yaml.
  const configFile = join(scratch, 'config.yaml');
  writeFileSync(configFile, 'auth: none\ncert: false\n');

  const port = opts.port ?? await freePort();
  const authority = `127.0.0.1:${port}`;
  const args = [
    entryScript(),
    '--config', configFile,
    '--auth', 'none',
    '--bind-addr', authority,
    '--disable-telemetry',
    '--disable-update-check',
    ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    ...(opts.extraArgs ?? []),
    resolve(opts.folder),
  ];
  const env = { ...process.env, ...opts.env };
  // The per-user state (agent sessions, the person's own record of reviews and approvals) of this user-data folder:
  // beside it, never the real ~/.local/state; a caller (or the environment) naming one keeps it.
  if (!env.SESSION_KNOWLEDGE_STATE_DIR && opts.userDataDir) env.SESSION_KNOWLEDGE_STATE_DIR = `${opts.userDataDir}-sk-state`;
  const child = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  const onData = (d) => {
    for (const line of String(d).split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 5000) output.splice(0, 1000);
      opts.onOutput?.(line);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exited = false;
  let stopped = false;
  const exit = new Promise((res) => child.once('exit', (code, signal) => { exited = true; res({ code, signal }); }));

  const server = {
    port, authority, userDataDir, extensionsDir, child,
    origin: `http://${authority}`,
    /** all lines code-server printed so far */
    output,
    /** Stops code-server and its whole process group; safe to call twice. */
    async stop() {
      if (stopped) return;
      stopped = true;
      const kill = (sig) => { try { process.kill(-child.pid, sig); } catch { /* already gone */ } };
      if (!exited) {
        kill('SIGTERM');
        const done = await Promise.race([exit.then(() => true), sleep(5000).then(() => false)]);
        if (!done) kill('SIGKILL');
      }
      kill('SIGKILL'); // stragglers in the group (extension hosts, language servers)
      rmSync(scratch, { recursive: true, force: true }); // config, and the default user-data/extensions dirs
    },
  };
  registerCleanup(() => server.stop());

  try {
    await waitFor(async () => {
      if (exited) throw Object.assign(new Error(`code-server exited early:\n${output.slice(-30).join('\n')}`), { fatal: true });
      const r = await fetch(`${server.origin}/healthz`);
      return r.ok;
    }, { timeoutMs: opts.healthTimeoutMs ?? 30_000, intervalMs: 150, message: `code-server /healthz on ${authority}` });
  } catch (e) {
    await server.stop();
    throw e;
  }
  return server;
}

/**
 * The one path to give VS Code for the extensions under development: a temp folder holding a symlink to
 * each. VS Code loads every extension in a development folder that has no package.json of its own.
 * Why not one payload entry per extension: the web workbench reads the payload into a Map, so only the
 * last `extensionDevelopmentPath` would survive. Why not the repository itself: VS Code is installed
 * inside it (.vscode-test/vscode-web), and the workbench then takes every built-in theme for one of the
 * extension's own and ignores `workbench.colorTheme`.
 * @param {string[]} paths
 */
export function extensionDevFolder(paths, at) {
  // `at`: a folder kept between runs (npm start: the same URL every start), its links made anew
  if (at) {
    rmSync(at, { recursive: true, force: true });
    mkdirSync(at, { recursive: true });
  }
  const folder = at ?? tempDir('sk-dev-extensions-');
  if (!at) process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  paths.forEach((p, i) => symlinkSync(resolve(p), join(folder, `${i}-${basename(resolve(p))}`), 'dir'));
  return folder;
}

/**
 * The workbench URL for `folder`, with an optional payload (extension development paths, a test runner).
 * @param {{ origin: string, authority: string }} server
 * @param {{ folder: string, workspace?: string, extensionDevelopmentPaths?: string[], extensionTestsPath?: string,
 *   enableProposedApi?: boolean, skipWelcome?: boolean, extensionDevelopmentFolder?: string }} opts
 *   extensionDevelopmentFolder: where extensionDevFolder makes its links (default: a temp folder, new each run).
 */
export function workbenchUrl(server, opts) {
  const remote = (p) => `vscode-remote://${server.authority}${resolve(p)}`;
  const payload = [];
  const dev = opts.extensionDevelopmentPaths ?? [];
  if (dev.length) payload.push(['extensionDevelopmentPath', remote(extensionDevFolder(dev, opts.extensionDevelopmentFolder))]);
  if (opts.extensionTestsPath) payload.push(['extensionTestsPath', remote(opts.extensionTestsPath)]);
  if (opts.enableProposedApi) payload.push(['enableProposedApi', '']);
  if (opts.skipWelcome ?? true) payload.push(['skipWelcome', 'true']);
  const url = new URL(server.origin + '/');
  // A .code-workspace file (a multi-root workspace) opens instead of the folder when given.
  if (opts.workspace) url.searchParams.set('workspace', resolve(opts.workspace));
  else url.searchParams.set('folder', resolve(opts.folder));
  if (payload.length) url.searchParams.set('payload', JSON.stringify(payload));
  return url.toString();
}

/** Launches Debian Chromium (never a downloaded browser) headless through playwright-core. */
export async function launchBrowser({ headless = true } = {}) {
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath, headless, args: CHROMIUM_ARGS });
  registerCleanup(() => browser.close().catch(() => {}));
  return browser;
}

/** A page sized for readable screenshots. With SK_DEBUG_BROWSER=1 the page's console is echoed. */
export async function newWorkbenchPage(browser, { width = 1400, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  if (process.env.SK_DEBUG_BROWSER) {
    page.on('console', (m) => console.log(`[browser:${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => console.log(`[browser:pageerror] ${e.message}`));
  }
  return page;
}

// Locators for the parts of the workbench our tests and checks look for.
/** The activity-bar entry (the tab) of a view container, by its title. */
export const activityBarItem = (page, title) => page.locator(`.activitybar .action-item[role="tab"]:has(> a.action-label[aria-label^="${title}"])`);
/** A row of any tree or list in the side bar whose label contains text. */
export const sideBarTreeItem = (page, text) => page.locator('.part.sidebar .monaco-list-row[role="treeitem"]').filter({ hasText: text });

// VS Code's Chat view. It exists when an installed extension contributes a default chat participant (see
// test/fixtures/extensions/fake-model and demo/demo-model) and code-server runs with --enable-proposed-api for it.
/** The chat input's editor. */
export const chatInput = (page) => page.locator('.interactive-input-part .interactive-input-editor').first();
/** The latest answer in the Chat view (its list renders only the rows in view; the last one always is). */
export const lastChatResponse = (page) => page.locator('.interactive-list .monaco-list-row[data-last-element="true"] .interactive-response');
/** How many rows (requests and answers) the Chat view's conversation has. */
async function chatRows(page) {
  const row = page.locator('.interactive-list .monaco-list-row[aria-setsize]').first();
  return (await row.count()) ? Number(await row.getAttribute('aria-setsize')) : 0;
}

/** Opens the Chat view (Ctrl+Alt+I) and waits for its input. */
export async function openChat(page, { timeoutMs = 60_000 } = {}) {
  await waitFor(async () => {
    if (await chatInput(page).isVisible()) return true;
    await page.keyboard.press('Control+Alt+KeyI');
    await chatInput(page).waitFor({ state: 'visible', timeout: 3_000 });
    return true;
  }, { timeoutMs, intervalMs: 500, message: 'the Chat view (Ctrl+Alt+I)' });
}

/**
 * Types `text` into the chat input as a person would (replacing what is there, e.g. a sticky `@knowledge`),
 * closes the suggestions, sends it and waits until the request and its answer's row show in the view.
 */
export async function sendChat(page, text) {
  const rows = await chatRows(page);
  const input = chatInput(page);
  await input.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await page.keyboard.press('Escape'); // closes the participant / command suggestions
  await page.keyboard.press('Enter');
  const sent = async () => (await chatRows(page)) >= rows + 2;
  try {
    await waitFor(sent, { timeoutMs: 15_000, intervalMs: 100, message: `the chat request "${text}"` });
  } catch (e) {
    // On a loaded machine the Enter can land before the input has taken the typed text (a full CI run lost one
    // this way): if the text is still in the input, it was not sent, so send it again. Either way, wait longer.
    const typed = ((await input.innerText().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
    const again = typed.includes(text.slice(-12));
    if (again) {
      await input.click();
      await page.keyboard.press('End');
      await page.keyboard.press('Enter');
    }
    await waitFor(sent, { timeoutMs: 30_000, intervalMs: 100, message: `the chat request "${text}" (${again ? 'sent again: the first Enter left it in the input' : 'the input was empty: sent, slow to show'}; first wait: ${e.message})` });
  }
}

/** Waits until the answer to the latest request is complete and contains `text` (a string or RegExp); answers its text. */
export async function waitForChatAnswer(page, text, { timeoutMs = 30_000 } = {}) {
  return waitFor(async () => {
    const response = lastChatResponse(page);
    if (!(await response.count()) || (await response.getAttribute('class')).includes('chat-response-loading')) return false;
    const value = (await response.innerText()).replace(/\u00a0/g, ' '); // code blocks render spaces as &nbsp;
    if (typeof text === 'string' ? value.includes(text) : text.test(value)) return value;
    return false;
  }, { timeoutMs, intervalMs: 150, message: `a chat answer with ${text}` });
}

// The Explorer.
/** A row of the Explorer, by its exact name. */
export function explorerRow(page, name) {
  const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  return page.locator('.explorer-folders-view .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
}

/** Shows a workspace file's row in the Explorer (Ctrl+Shift+E), unfolding its folders; answers the row. */
export async function revealInExplorer(page, path) {
  await page.keyboard.press('Control+Shift+E');
  const names = path.split('/');
  for (const folder of names.slice(0, -1)) {
    const row = explorerRow(page, folder);
    await row.waitFor({ timeout: 15_000 });
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  }
  const row = explorerRow(page, names.at(-1));
  await row.waitFor({ timeout: 15_000 });
  return row;
}

/** Opens a workspace file from the Explorer (Quick Open finds no files here: its search needs ripgrep). */
export async function openFile(page, path) {
  await (await revealInExplorer(page, path)).click();
  await page.locator(`.tabs-container .tab.active[aria-label^="${basename(path)}"]`).waitFor({ timeout: 10_000 });
}

// Cleanup on Ctrl-C / kill: whatever was started is stopped before the process goes (exit code 130,
// or process.exitCode if the caller set one, e.g. `npm start` treats Ctrl-C as a normal stop).
const cleanups = new Set();
function registerCleanup(fn) { cleanups.add(fn); }
export async function cleanupAll() {
  const fns = [...cleanups].reverse();
  cleanups.clear();
  for (const fn of fns) { try { await fn(); } catch { /* best effort */ } }
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => { void cleanupAll().finally(() => process.exit(process.exitCode ?? 130)); });
}
