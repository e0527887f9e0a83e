// Runs the integration tests (out/test/integration, built by `npm run build`) inside a real VS Code
// extension host, in two phases on the same user-data-dir and workspace:
// (both with SK_TEST_HOOKS=1)
//   phase 1: SK_TEST_PHASE=1, every *.test.js
//   phase 2: SK_TEST_PHASE=2, every *.restart.test.js, in a fresh server + browser (a restarted extension
//            host: proves that what phase 1 stored survives). Skipped when there are no such files.
//   phase mrbefore: *.mrbefore.test.js on the first folder of test/fixtures/multiroot alone (a window as it was
//            before multi-root support: plain ids), then
//   phase multiroot: *.multiroot.test.js on test/fixtures/multiroot/multiroot.code-workspace (three folders, a
//            fourth added at run time), memory flag set (the panel exists); the two share the store.
//   phases synca, syncb: *.synca.test.js and *.syncb.test.js, memory flag set, each with its OWN user-data-dir
//            (two machines): A's synced global-state value is handed to B as Settings Sync would deliver it.
//   phase restricted: *.restricted.test.js on test/fixtures/restricted, a folder NOT trusted (workspace trust on, no
//            start-up prompt, no trusted folders: VS Code's Restricted Mode), with its own user-data-dir. Web only:
//            @vscode/test-electron always passes --disable-workspace-trust. A test that logs SK_GRANT_WORKSPACE_TRUST
//            (after opening the Workspace Trust editor) has the person's click on its Trust button made here.
//
// By default VS Code is the web workbench of VS Code 1.100.3 (code-server, scripts/install-vscode-web.sh)
// in headless Debian Chromium. With VSCODE_EXECUTABLE_PATH set to a desktop VS Code, the same phases run
// through @vscode/test-electron instead.
//
// usage: node scripts/run-vscode-tests.mjs [--grep <pattern>]
// env:   SK_PHASES (comma list: only these phases), SK_PHASE_TIMEOUT_MS (default 180000), SK_VERBOSE=1 (echo code-server's own output),
//        SK_DEV_EXTENSION_PATH (extension under test; default: the repository root),
//        anything else (e.g. SESSION_KNOWLEDGE_MEMORY_ENABLE) is passed on to the extension host.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  QUIET_SETTINGS, copyDir, launchBrowser, newWorkbenchPage, repoRoot, startCodeServer, tempDir, workbenchUrl,
  writeUserSettings, ensureInstalled,
} from './vscodeWeb.mjs';

const { values: opts } = parseArgs({ options: { grep: { type: 'string' } } });
const PHASE_TIMEOUT_MS = Number(process.env.SK_PHASE_TIMEOUT_MS ?? 180_000);
const testsDir = join(repoRoot, 'out/test/integration');
const testsIndex = join(testsDir, 'index.js');
const resultsDir = join(repoRoot, 'test-results');
const extensionPath = resolve(process.env.SK_DEV_EXTENSION_PATH ?? repoRoot);
const fixtureExtensionsDir = join(repoRoot, 'test/fixtures/extensions');
const fixtureExtensions = existsSync(fixtureExtensionsDir)
  ? readdirSync(fixtureExtensionsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(fixtureExtensionsDir, d.name, 'package.json')))
    .map((d) => join(fixtureExtensionsDir, d.name))
  : [];
const log = (msg) => console.log(`[run-vscode-tests] ${msg}`);

function listFiles(dir, suffix) {
  return readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith(suffix));
}

if (!existsSync(testsIndex)) {
  log(`missing ${testsIndex}: run \`npm run build\` first`);
  process.exit(1);
}
const phases = ['1'];
if (listFiles(testsDir, '.restart.test.js').length > 0) phases.push('2');
else log('no *.restart.test.js: phase 2 (restart) skipped');
// Phase "memory": SESSION_KNOWLEDGE_MEMORY_ENABLE set (phases 1 and 2 run with it unset: memory absent).
if (listFiles(testsDir, '.memory.test.js').length > 0) phases.push('memory');
// Phase "flag0": SESSION_KNOWLEDGE_MEMORY_ENABLE=0 (means absent) in an empty folder (no server until needed).
if (listFiles(testsDir, '.flag0.test.js').length > 0) phases.push('flag0');
// Phases "mrbefore" and "multiroot": a multi-root workspace, and the window its first folder was before.
if (listFiles(testsDir, '.multiroot.test.js').length > 0) phases.push('mrbefore', 'multiroot');
// Phases "synca" and "syncb": personal memory through Settings Sync between two user-data folders.
if (listFiles(testsDir, '.synca.test.js').length > 0) phases.push('synca', 'syncb');
// Phase "restricted": an untrusted folder (Restricted Mode).
if (listFiles(testsDir, '.restricted.test.js').length > 0) phases.push('restricted');
// SK_PHASES=mrbefore,multiroot: only these phases (for a quick run while working; CI runs them all).
if (process.env.SK_PHASES) {
  const wanted = new Set(process.env.SK_PHASES.split(',').map((p) => p.trim()));
  phases.splice(0, phases.length, ...phases.filter((p) => wanted.has(p)));
  log(`SK_PHASES: running ${phases.join(', ') || 'no phase'}`);
}

// One workspace and one user-data-dir for both phases.
const scratch = tempDir('sk-integration-');
const workspace = copyDir(join(repoRoot, 'test/fixtures/workspace'), join(scratch, 'workspace'));
const userDataDir = join(scratch, 'user-data');
/** Two machines for the sync phases: their own user-data folders (profiles). */
const phaseUserData = (phase) => (phase === 'synca' ? join(scratch, 'user-data-machine-a') : phase === 'syncb' ? join(scratch, 'user-data-machine-b') : phase === 'restricted' ? join(scratch, 'user-data-restricted') : userDataDir);
/** What machine A's Settings Sync would upload: the value of the synced key, handed to machine B. */
const syncExchange = join(scratch, 'settings-sync-exchange.json');
const extensionsDir = join(scratch, 'extensions');
const emptyFolder = join(scratch, 'empty-folder');
mkdirSync(emptyFolder);
const multiRoot = copyDir(join(repoRoot, 'test/fixtures/multiroot'), join(scratch, 'multiroot'));
const multiRootWorkspace = join(multiRoot, 'multiroot.code-workspace');
/** Where the "before" phase leaves the session it made, for the multi-root phase to check. */
const multiRootState = join(scratch, 'multiroot-before.json');
/** The untrusted repository: its .vscode/settings.json turns on shareWithCopilot and a scheduled prompt. */
const restrictedFolder = copyDir(join(repoRoot, 'test/fixtures/restricted'), join(scratch, 'restricted'));
const phaseFolder = (phase) => (phase === 'flag0' ? emptyFolder : phase === 'mrbefore' ? join(multiRoot, 'app') : phase === 'multiroot' ? multiRoot : phase === 'restricted' ? restrictedFolder : workspace);
/** A .code-workspace file to open instead of the phase's folder. */
const phaseWorkspaceFile = (phase) => (phase === 'multiroot' ? multiRootWorkspace : undefined);
for (const dir of [userDataDir, phaseUserData('synca'), phaseUserData('syncb')]) writeUserSettings(dir, QUIET_SETTINGS);
// Restricted Mode: trust on, never asked at start-up, no folder trusted (trust decisions live in the browser's storage, fresh per phase).
writeUserSettings(phaseUserData('restricted'), { ...QUIET_SETTINGS, 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.banner': 'never' });
mkdirSync(resultsDir, { recursive: true });
log(`workspace ${workspace}`);
log(`extensions under development: ${[extensionPath, ...fixtureExtensions].join(', ')}`);

// SK_TEST_HOOKS=1: the extension exposes its test hooks (api.__test) to the integration tests.
const phaseEnv = (phase) => ({
  SK_TEST_PHASE: phase,
  // The per-user state folder (agent sessions, the person's own reviews and approvals): one per user-data folder, so
  // phases sharing user data share it, and nothing writes to the real ~/.local/state.
  SESSION_KNOWLEDGE_STATE_DIR: `${phaseUserData(phase)}-sk-state`,
  SESSION_KNOWLEDGE_MEMORY_ENABLE: ['memory', 'multiroot', 'synca', 'syncb'].includes(phase) ? '1' : phase === 'flag0' ? '0' : '',
  SK_SYNC_EXCHANGE: syncExchange,
  SK_TEST_HOOKS: '1',
  SK_MULTIROOT_STATE: multiRootState,
  ...(opts.grep ? { SK_TEST_GREP: opts.grep, SK_TEST_ALLOW_EMPTY: '1' } : {}),
});

// Workbench chatter that is expected offline (gallery lookups, connection set-up); SK_VERBOSE=1 shows it.
const NOISE = [/open-vsx\.org/, /vsda/, /^Resolv(ing|ed) connection token/, /^Creating a socket/, /^\[Service Worker\]/,
  /^Updating additional builtin extensions cache/, /^ChatSessionStore: Migrating 0/];
const isNoise = (text) => !process.env.SK_VERBOSE && NOISE.some((re) => re.test(text));

/** What a test logs to have the person grant workspace trust: the launcher clicks Trust in the open Workspace Trust editor. */
const GRANT_TRUST = 'SK_GRANT_WORKSPACE_TRUST';
async function grantTrust(page) {
  try {
    await page.locator('.workspace-trust-buttons-row .monaco-button').filter({ hasText: /^Trust/ }).first().click({ timeout: 30_000 });
    log('granted workspace trust (clicked Trust in the Workspace Trust editor)');
  } catch (e) {
    log(`could not grant workspace trust: ${e instanceof Error ? e.message : e}`);
  }
}

/** Totals from the runner's `SK_MOCHA_RESULT {json}` lines. */
const totals = { passes: 0, failures: 0 };
function noteResult(line) {
  const m = /SK_MOCHA_RESULT (\{.*\})/.exec(line);
  if (!m) return;
  try {
    const r = JSON.parse(m[1]);
    totals.passes += r.passes;
    totals.failures += r.failures;
  } catch { /* not ours */ }
}

async function runPhaseInWeb(phase) {
  const started = Date.now();
  const serverLog = join(resultsDir, `integration-phase-${phase}.server.log`);
  const server = await startCodeServer({
    folder: phaseFolder(phase), userDataDir: phaseUserData(phase), extensionsDir, env: phaseEnv(phase), workspaceTrust: phase === 'restricted',
    onOutput: (line) => { if (process.env.SK_VERBOSE) console.log(`[code-server] ${line}`); },
  });
  let browser;
  try {
    browser = await launchBrowser();
    const page = await newWorkbenchPage(browser);
    let finish;
    const exited = new Promise((r) => { finish = r; });
    // The workbench calls these when it runs extension tests: every log line, then the exit code.
    await page.exposeFunction('codeAutomationLog', (_level, message) => {
      const text = Array.isArray(message) ? message.join(' ') : String(message);
      noteResult(text);
      if (text.includes(GRANT_TRUST)) void grantTrust(page);
      if (!isNoise(text)) console.log(text);
    });
    await page.exposeFunction('codeAutomationExit', (code) => finish(code));
    await page.goto(workbenchUrl(server, {
      folder: phaseFolder(phase),
      workspace: phaseWorkspaceFile(phase),
      extensionDevelopmentPaths: [extensionPath, ...fixtureExtensions],
      extensionTestsPath: testsIndex,
      enableProposedApi: true,
      skipWelcome: true,
    }));
    let timer;
    const timeout = new Promise((r) => { timer = setTimeout(() => r('timeout'), PHASE_TIMEOUT_MS); });
    const code = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    if (code !== 0) {
      const shot = join(resultsDir, `integration-phase-${phase}.png`);
      await page.screenshot({ path: shot }).catch((e) => log(`screenshot failed: ${e.message}`));
      log(code === 'timeout'
        ? `phase ${phase} TIMED OUT after ${PHASE_TIMEOUT_MS / 1000} s (no codeAutomationExit); screenshot ${shot}`
        : `phase ${phase} exited with code ${code}; screenshot ${shot}`);
    }
    return { ok: code === 0, ms: Date.now() - started };
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
    writeFileSync(serverLog, server.output.join('\n') + '\n');
  }
}

async function runPhaseInDesktop(phase) {
  if (phase === 'restricted') {
    log('phase restricted skipped in desktop VS Code: @vscode/test-electron always passes --disable-workspace-trust');
    return { ok: true, ms: 0 };
  }
  const { runTests } = await import('@vscode/test-electron');
  const started = Date.now();
  const proposed = fixtureExtensions.map((d) => {
    const { publisher, name } = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'));
    return `--enable-proposed-api=${publisher}.${name}`;
  });
  try {
    await runTests({
      vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH,
      extensionDevelopmentPath: [extensionPath, ...fixtureExtensions],
      extensionTestsPath: testsIndex,
      extensionTestsEnv: phaseEnv(phase),
      // test-electron itself adds --skip-welcome, --disable-workspace-trust, --disable-updates, ...
      launchArgs: [phaseWorkspaceFile(phase) ?? phaseFolder(phase), '--user-data-dir', phaseUserData(phase), '--extensions-dir', extensionsDir, ...proposed],
    });
    return { ok: true, ms: Date.now() - started };
  } catch (e) {
    log(`phase ${phase} failed: ${e instanceof Error ? e.message : e}`);
    return { ok: false, ms: Date.now() - started };
  }
}

const desktop = Boolean(process.env.VSCODE_EXECUTABLE_PATH);
if (!desktop) ensureInstalled();
log(desktop ? `desktop VS Code: ${process.env.VSCODE_EXECUTABLE_PATH}` : 'VS Code 1.100.3 web workbench (code-server) in Chromium');
let failed = false;
for (const phase of phases) {
  log(`phase ${phase} (SK_TEST_PHASE=${phase})${opts.grep ? ` --grep ${opts.grep}` : ''}`);
  let result;
  try {
    result = desktop ? await runPhaseInDesktop(phase) : await runPhaseInWeb(phase);
  } catch (e) {
    log(`phase ${phase} could not run: ${e instanceof Error ? e.stack : e}`);
    result = { ok: false, ms: 0 };
  }
  log(`phase ${phase} ${result.ok ? 'passed' : 'FAILED'} in ${(result.ms / 1000).toFixed(1)} s`);
  if (!result.ok) { failed = true; break; }
}
if (!desktop && !failed && opts.grep && totals.passes + totals.failures === 0) {
  log(`no test matched --grep ${opts.grep}`);
  failed = true;
}
if (failed) log(`kept the workspace and user-data-dir for inspection: ${scratch}`);
else rmSync(scratch, { recursive: true, force: true });
if (!desktop) log(`${totals.passes} passed, ${totals.failures} failed${failed ? ' — FAILED' : ''}`);
else log(failed ? 'FAILED' : 'passed');
process.exit(failed ? 1 : 0);
