// UI test of the knowledge panel on a multi-root workspace (test/fixtures/multiroot/multiroot.code-workspace: app, infra,
// docs, each with its own .knowledge/memory.jsonl) in a real VS Code (1.100.3 web workbench via code-server) driven
// in headless Debian Chromium. Proves: the committed attack in the third folder's project memory shows flagged with
// its folder while memory is off; with memory on, one status row per folder, each entry names its folder, and the
// export/import picker offers each folder's project memory. Screenshot: test-results/panel-multiroot-dark.png (the
// README's docs/memory-folders-dark.png).
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { QUIET_SETTINGS, copyDir, launchBrowser, newWorkbenchPage, repoRoot, startCodeServer, tempDir, workbenchUrl, writeUserSettings } from '../../scripts/vscodeWeb.mjs';
import { WARNING, extensionDir, openPanel, resultsDir } from './panelShared.mjs';

test('the panel on a multi-root workspace: each folder\'s project memory, named', { timeout: 300_000 }, async () => {
  const scratch = tempDir('sk-ui-multiroot-');
  const root = copyDir(join(repoRoot, 'test/fixtures/multiroot'), join(scratch, 'multiroot'));
  const workspaceFile = join(root, 'multiroot.code-workspace');
  const userDataDir = join(scratch, 'user-data');
  writeUserSettings(userDataDir, { ...QUIET_SETTINGS, 'workbench.colorTheme': 'Default Dark Modern' });
  const server = await startCodeServer({ folder: join(root, 'app'), userDataDir, env: { SESSION_KNOWLEDGE_MEMORY_ENABLE: '1' } });
  const browser = await launchBrowser();
  const page = await newWorkbenchPage(browser, { width: 1500, height: 1000 });
  try {
    await page.goto(workbenchUrl(server, { folder: join(root, 'app'), workspace: workspaceFile, extensionDevelopmentPaths: [extensionDir] }));
    const frame = await openPanel(page);

    // Memory off: only the flagged entry shows, with its folder.
    const off = frame.locator('#flagged-memory article[data-id="mem_docs_poison"]');
    await off.waitFor({ timeout: 60_000 });
    await off.getByText(WARNING).first().waitFor();
    assert.equal((await off.locator('.tag-folder').textContent())?.trim(), 'docs');

    // Memory on: a status row per folder, a folder badge on each project entry.
    await frame.locator('#memory-switch').click();
    await frame.locator('#section-memory').waitFor({ timeout: 30_000 });
    for (const folder of ['app', 'infra', 'docs']) await frame.locator(`#section-memory li[data-scope="project"][data-folder="${folder}"]`).waitFor({ timeout: 30_000 });
    assert.match((await frame.locator('#section-memory li[data-folder="infra"]').textContent()) ?? '', /project · infra 1 active/);
    assert.match((await frame.locator('#memory-count').textContent()) ?? '', /3 active entries in 3 scopes \(5 files\)/);
    const infra = frame.locator('#memory-list article.entry[data-id="mem_infra_state"]');
    await infra.waitFor({ timeout: 30_000 });
    assert.equal((await infra.locator('.tag-folder').textContent())?.trim(), 'infra');
    const app = frame.locator('#memory-list article.entry[data-id="mem_app_pnpm"]');
    assert.equal((await app.locator('.tag-folder').textContent())?.trim(), 'app');
    const flagged = frame.locator('#section-flagged article.entry[data-id="mem_docs_poison"]');
    await flagged.getByText(WARNING).first().waitFor();
    assert.equal((await flagged.locator('.tag-folder').textContent())?.trim(), 'docs');

    // Export / import: each folder's project memory is its own choice.
    const options = await frame.locator('#exchange-scope vscode-option').evaluateAll((els) => els.map((e) => [e.getAttribute('value'), e.textContent?.trim()]));
    assert.deepEqual(options, [['project:app', 'project · app'], ['project:infra', 'project · infra'], ['project:docs', 'project · docs'], ['session', 'session'], ['personal', 'personal']]);

    mkdirSync(resultsDir, { recursive: true });
    await frame.locator('#section-memory').evaluate((el) => el.scrollIntoView());
    await page.mouse.move(900, 600);
    const shot = join(resultsDir, 'panel-multiroot-dark.png');
    await page.screenshot({ path: shot });
  } catch (e) {
    await page.screenshot({ path: join(resultsDir, 'panel-multiroot-FAILED.png') }).catch(() => {});
    throw e;
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
});
