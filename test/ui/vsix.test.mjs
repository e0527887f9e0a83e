// The packaged extension installs cleanly: `npm run package` builds the .vsix (production bundles, the
// .vscodeignore allowlist), code-server's CLI installs it like `code --install-extension`, and a plain workbench
// (no development path) loads it: the Session Knowledge view lists the fixture's notes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  QUIET_SETTINGS, activityBarItem, copyDir, installVsix, launchBrowser, newWorkbenchPage, repoRoot, sideBarTreeItem,
  startCodeServer, tempDir, workbenchUrl, writeUserSettings,
} from '../../scripts/vscodeWeb.mjs';

test('the packaged .vsix installs into VS Code and works without a development path', { timeout: 240_000 }, async () => {
  const scratch = tempDir('sk-vsix-');
  const vsix = join(scratch, 'session-knowledge.vsix');
  const pack = spawnSync('npx', ['vsce', 'package', '--no-dependencies', '--no-rewrite-relative-links', '-o', vsix], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(pack.status, 0, `vsce package failed:\n${pack.stdout}\n${pack.stderr}`);
  assert.ok(existsSync(vsix));

  const workspace = copyDir(join(repoRoot, 'test/fixtures/workspace'), join(scratch, 'workspace'));
  const userDataDir = join(scratch, 'user-data');
  const extensionsDir = join(scratch, 'extensions');
  writeUserSettings(userDataDir, QUIET_SETTINGS);
  installVsix(vsix, { extensionsDir, userDataDir });
  assert.ok(readdirSync(extensionsDir).some((d) => d.startsWith('sessionknowledge.session-knowledge-')), 'installed into the extensions folder');

  const server = await startCodeServer({ folder: workspace, userDataDir, extensionsDir });
  let browser;
  try {
    browser = await launchBrowser();
    const page = await newWorkbenchPage(browser);
    await page.goto(workbenchUrl(server, { folder: workspace }));
    const container = activityBarItem(page, 'Session Knowledge');
    await container.waitFor({ state: 'visible', timeout: 60_000 });
    await container.click();
    await sideBarTreeItem(page, 'Welcome to Session Knowledge').waitFor({ state: 'visible', timeout: 60_000 });
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
});
