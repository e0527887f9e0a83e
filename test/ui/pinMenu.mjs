// The editor title's one pin action: a submenu ("Pin to…", package.json `sessionKnowledge.pinTargets`) listing the
// targets — This chat, Next chat, All agents — each as Pin or Unpin. Shared by the UI tests and `npm start`'s check.
import { waitFor } from '../../scripts/vscodeWeb.mjs';

/** The editor title's pin action (the submenu's button). */
export const editorPinMenu = (page) => page.locator('.editor-actions .action-label[aria-label^="Pin to…"]').first();

/** Opens the editor title's pin menu; answers the labels of its entries, in order. */
export async function openEditorPinMenu(page) {
  const items = menuItems(page);
  await waitFor(async () => {
    if ((await items.count()) > 0) return true;
    await editorPinMenu(page).click();
    await items.first().waitFor({ state: 'visible', timeout: 3_000 }).catch(() => {});
    return (await items.count()) > 0;
  }, { timeoutMs: 30_000, intervalMs: 300, message: "the editor title's pin menu" });
  return (await items.locator('.action-label').allTextContents()).map((t) => t.trim()).filter(Boolean);
}

/** The entries of the context menu shown (VS Code renders it in a shadow root; Playwright's CSS pierces it). */
const menuItems = (page) => page.locator('.context-view .monaco-menu .action-menu-item');

/** Runs one entry of the editor title's pin menu, e.g. "Pin to Next Chat" or "Pin to This Chat". */
export async function pinFromEditorTitle(page, entry) {
  await openEditorPinMenu(page);
  await chooseMenuEntry(page, entry);
}

/**
 * Chooses an entry of the context menu shown. A monaco menu can ignore a click that comes right after it opened (a
 * full UI run lost one that way: the menu stayed open and nothing was pinned), so the click waits for the menu to
 * settle and is repeated while the menu stays open.
 */
export async function chooseMenuEntry(page, entry) {
  const item = menuItems(page).filter({ has: page.locator('.action-label', { hasText: new RegExp(`^${entry}$`) }) }).first();
  await item.waitFor({ state: 'visible', timeout: 10_000 });
  await page.waitForTimeout(300);
  await waitFor(async () => {
    if ((await menuItems(page).count()) === 0) return true;
    await item.click({ timeout: 3_000 }).catch(() => {});
    await menuItems(page).first().waitFor({ state: 'detached', timeout: 2_000 }).catch(() => {});
    return (await menuItems(page).count()) === 0;
  }, { timeoutMs: 20_000, intervalMs: 300, message: `the menu entry "${entry}" to be chosen` });
}
