// UI test in a real VS Code (1.100.3 web workbench via code-server) in headless Chromium: the extension is
// loaded from the repository (run `npm run build` first), the fixture workspace is opened, and the
// "Session Knowledge" activity-bar item must show the fixture's notes in the "Notes and Plans" tree.
// Screenshots in both default themes go to test-results/ (workbench-notes-light.png, -dark.png, and
// workbench-notes.png = light).
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  QUIET_SETTINGS, activityBarItem, copyDir, launchBrowser, newWorkbenchPage, repoRoot, sideBarTreeItem,
  startCodeServer, tempDir, workbenchUrl, writeUserSettings,
} from '../../scripts/vscodeWeb.mjs';

const resultsDir = join(repoRoot, 'test-results');
const NOTE_TITLE = 'Welcome to Session Knowledge'; // heading of test/fixtures/workspace/.knowledge/notes/welcome.md
const PLAN_TITLE = 'Roadmap'; // heading of .knowledge/plans/roadmap.md
const THEMES = [
  { name: 'light', theme: 'Default Light Modern', bodyClass: 'vs' },
  { name: 'dark', theme: 'Default Dark Modern', bodyClass: 'vs-dark' },
];

assert.ok(existsSync(join(repoRoot, 'dist/extension.js')), 'dist/extension.js is missing: run `npm run build` first');

for (const { name, theme, bodyClass } of THEMES) {
  test(`Notes and Plans tree lists the fixture notes (${theme})`, { timeout: 150_000 }, async () => {
    const scratch = tempDir('sk-ui-');
    const workspace = copyDir(join(repoRoot, 'test/fixtures/workspace'), join(scratch, 'workspace'));
    const userDataDir = join(scratch, 'user-data');
    writeUserSettings(userDataDir, { ...QUIET_SETTINGS, 'workbench.colorTheme': theme });

    const server = await startCodeServer({ folder: workspace, userDataDir });
    let browser;
    let page;
    try {
      browser = await launchBrowser();
      page = await newWorkbenchPage(browser);
      await page.goto(workbenchUrl(server, { folder: workspace, extensionDevelopmentPaths: [repoRoot] }));

      // The user settings were honoured: the workbench is in the theme we asked for.
      await page.locator(`.monaco-workbench.${bodyClass}`).waitFor({ timeout: 60_000 });

      const container = activityBarItem(page, 'Session Knowledge');
      await container.waitFor({ state: 'visible', timeout: 60_000 });
      await container.click();
      // One view in the container: the side bar's title names both ("SESSION KNOWLEDGE: NOTES AND PLANS").
      await page.locator('.part.sidebar .composite.title', { hasText: 'Notes and Plans' }).waitFor({ timeout: 30_000 });

      // Filled by the extension once it has activated and its language server has indexed .knowledge/.
      const note = sideBarTreeItem(page, NOTE_TITLE);
      await note.waitFor({ state: 'visible', timeout: 60_000 });
      await sideBarTreeItem(page, PLAN_TITLE).waitFor({ state: 'visible', timeout: 30_000 });
      assert.equal(await note.isVisible(), true);
      assert.equal(await container.getAttribute('aria-selected'), 'true', 'the Session Knowledge container is not the selected one');

      // A note written to disk by another process (not through VS Code) appears in the open tree.
      const title = `Written on disk (${name})`;
      writeFileSync(join(workspace, '.knowledge/notes/written-on-disk.md'), `# ${title}\n\nby the UI test\n`);
      await sideBarTreeItem(page, title).waitFor({ state: 'visible', timeout: 30_000 });

      // No hover tooltip over the activity bar in the picture.
      await page.mouse.move(800, 500);
      await page.locator('.workbench-hover-container').waitFor({ state: 'detached', timeout: 5_000 }).catch(() => {});
      mkdirSync(resultsDir, { recursive: true });
      const shot = join(resultsDir, `workbench-notes-${name}.png`);
      await page.screenshot({ path: shot });
      if (name === 'light') copyFileSync(shot, join(resultsDir, 'workbench-notes.png'));
      rmSync(join(resultsDir, `workbench-notes-${name}-FAILED.png`), { force: true });
    } catch (e) {
      mkdirSync(resultsDir, { recursive: true });
      await page?.screenshot({ path: join(resultsDir, `workbench-notes-${name}-FAILED.png`) }).catch(() => {});
      throw e;
    } finally {
      await browser?.close().catch(() => {});
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
}
