// UI test of the Knowledge Panel as it sits in the side bar: a real VS Code (1.100.3 web workbench via code-server)
// in headless Debian Chromium, SESSION_KNOWLEDGE_MEMORY_ENABLE set. One workbench for the file; the tests run in order.
//   - at 300 px (the side bar's sash dragged there) the panel has no horizontal scroll: the panel frame's
//     document.scrollingElement.scrollWidth <= clientWidth, every card and form inside it;
//   - the inbox's groups name what waits by source — distillation, an agent, an import — and the memory list says
//     "from sync" of an entry Settings Sync brought (an import is no longer counted as an "agent entry");
//   - after an approve with the mouse, focus goes to the next card and it stays in view once the panel re-renders
//     (it used to jump to the Flagged section);
//   - Remember… in the memory section's form writes a person's entry as every memory write (approved, from a
//     person); one that reads as an instruction is stored, flagged and shown in Flagged; a secret is refused;
//   - Remember… in the Command Palette: type, title, body and scope through its quick inputs;
//   - screenshots at 300 px and 500 px in the light and dark themes: docs/images/panel-{300,500}-{light,dark}.png;
//   - the demo model (demo/demo-model, as `npm start` loads it) answers `@knowledge /distill` with its "Demo:" proposal,
//     which waits in the inbox: approve it, distil again after another turn (an update with its diff, pictured in
//     docs/images/demo-distill-update-dark.png), reject that.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  QUIET_SETTINGS, copyDir, extensionId, launchBrowser, newWorkbenchPage, openChat, repoRoot, sendChat, startCodeServer, tempDir, waitFor,
  waitForChatAnswer, workbenchUrl, writeUserSettings,
} from '../../scripts/vscodeWeb.mjs';
import { ATTACK, EXTENSION_ID, closeWorkbench, extensionDir, focusState, openPanel, panelFrame, shotOnFailure } from './panelShared.mjs';

const T = 30_000;
const IMAGES = join(repoRoot, 'docs/images');
const DEMO_MODEL = join(repoRoot, 'demo/demo-model');

/** A pending (or approved) memory line as it sits on disk. */
function line(id, title, body, { source = 'agent', identity = 'copilot-agent', session, at = '2026-01-01T00:00:00.000Z', approved = false, scope = 'project', turn } = {}) {
  const distilledFrom = turn ? { sessionKey: session, turn, model: 'sk-demo/demo' } : undefined;
  return JSON.stringify({
    id, scope, type: 'fact', title, body, tags: [], importance: 'medium', confidence: 1,
    provenance: { sourceKind: source, identity: turn ? 'distill:sk-demo/demo' : identity, ...(session ? { sessionKey: session } : {}), at, ...(distilledFrom ? { distilledFrom } : {}) },
    trust: approved ? { state: 'approved', approvedBy: identity, approvedAt: at } : { state: 'pending' },
    ...(distilledFrom ? { proposal: { kind: 'new', rationale: `Turn ${turn}: "${title}"`, distilledFrom } } : {}),
    createdAt: at, updatedAt: at, wrongFlags: [],
  });
}

const PROJECT = [
  line('d-1', 'Money is stored in cents', 'Integers, never floats.', { session: 'ui-distilled', turn: 1, at: '2026-01-05T00:00:00.000Z' }),
  line('d-2', 'Invoices round half to even', 'Banker\'s rounding.', { session: 'ui-distilled', turn: 2, at: '2026-01-05T00:00:00.000Z' }),
  line('a-1', 'The CI cache lives on the runner', 'Cleared by hand when stale.', { session: 'ui-agent', at: '2026-01-04T03:00:00.000Z' }),
  line('a-2', 'Run the migrations before the tests', 'The test database needs the latest schema.', { session: 'ui-agent', at: '2026-01-04T02:00:00.000Z' }),
  line('a-3', 'Prefer rg over grep', 'ripgrep skips ignored files.', { session: 'ui-agent', at: '2026-01-04T01:00:00.000Z' }),
  line('f-1', 'Deployment shortcut', `When deploying: ${ATTACK}`, { session: 'ui-agent', at: '2026-01-04T00:00:00.000Z' }),
  line('i-1', 'Docs are built with mkdocs', 'From the old wiki export.', { source: 'import', identity: 'ui-test', at: '2026-01-03T00:00:00.000Z' }),
];
const PERSONAL = [line('s-1', 'Answer me in short sentences', 'Synced from my laptop.', { source: 'import', identity: 'settings-sync', approved: true, scope: 'personal' })];

let w;
const storage = () => join(w.userDataDir, 'User', 'globalStorage', EXTENSION_ID);
const readLines = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const memFile = () => join(w.workspace, '.knowledge/memory.jsonl');
const personalFile = () => join(storage(), 'memory', 'personal.jsonl');
const onDisk = (file, pred, message) => waitFor(() => readLines(file).find(pred) ?? false, { timeoutMs: T, message });

async function shot(name) {
  const box = await w.page.locator('.part.sidebar').boundingBox();
  await w.page.mouse.move(1450, 950);
  mkdirSync(IMAGES, { recursive: true });
  await w.page.screenshot({ path: join(IMAGES, name), clip: { x: 0, y: 0, width: Math.round(box.x + box.width + 1), height: 1000 } });
}

const withFailureShot = (name, fn) => shotOnFailure(w?.page, `panel-sidebar-${name}`, fn);

/** Drags the side bar's sash until the side bar is `px` wide (±2). */
async function sideBarWidth(page, px) {
  await waitFor(async () => {
    const bar = await page.locator('.part.sidebar').boundingBox();
    if (Math.abs(bar.width - px) <= 2) return true;
    const sashes = await page.locator('.monaco-sash.vertical').evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2, h: r.height }; }));
    const sash = sashes.find((s) => Math.abs(s.x - (bar.x + bar.width)) < 6 && s.h > 200);
    if (!sash) return false;
    await page.mouse.move(sash.x, sash.y);
    await page.mouse.down();
    await page.mouse.move(sash.x + (px - bar.width), sash.y, { steps: 8 });
    await page.mouse.up();
    return false;
  }, { timeoutMs: T, intervalMs: 300, message: `the side bar ${px} px wide` });
}

/** The panel frame's widths, and the elements that reach past its right edge (none, when it fits). */
const overflow = (frame) => frame.locator('body').evaluate((b) => {
  const doc = b.ownerDocument;
  const s = doc.scrollingElement;
  const wide = [...doc.querySelectorAll('#app *')]
    .filter((el) => el.getClientRects().length > 0 && el.getBoundingClientRect().right > s.clientWidth + 0.5)
    .map((el) => `${el.localName}${el.id ? `#${el.id}` : ''}.${String(el.className).split(' ').join('.')}`)
    .slice(0, 8);
  return { scrollWidth: s.scrollWidth, clientWidth: s.clientWidth, wide };
});

async function assertFits(frame, what) {
  const o = await overflow(frame);
  assert.ok(o.scrollWidth <= o.clientWidth, `${what}: no horizontal scroll (scrollWidth ${o.scrollWidth} > clientWidth ${o.clientWidth}; past the edge: ${o.wide.join(', ')})`);
  assert.deepEqual(o.wide, [], `${what}: nothing reaches past the right edge`);
  return o;
}

/** The label a vscode-single-select shows; picks one of its options with the keyboard (a click opens it). */
async function choose(frame, id, label) {
  const select = frame.locator(`#${id}`);
  const face = select.locator('.select-face');
  const shown = () => select.evaluate((el) => el.shadowRoot?.querySelector('.select-face .text')?.textContent?.trim() ?? '');
  const labels = await select.locator('vscode-option').evaluateAll((els) => els.map((o) => o.textContent.trim()));
  assert.ok(labels.includes(label), `${id} offers ${label} (${labels.join(', ')})`);
  await waitFor(async () => {
    if ((await shown()) === label) return true;
    if ((await face.getAttribute('aria-expanded')) !== 'true') await face.click();
    const now = labels.indexOf(await shown());
    for (let i = 0; i < Math.abs(labels.indexOf(label) - now); i++) await face.press(labels.indexOf(label) > now ? 'ArrowDown' : 'ArrowUp');
    await face.press('Enter');
    return (await shown()) === label;
  }, { timeoutMs: T, intervalMs: 300, message: `${id} shows ${label}` });
}

before(async () => {
  const scratch = tempDir('sk-ui-sidebar-');
  const workspace = copyDir(join(repoRoot, 'test/fixtures/workspace'), join(scratch, 'workspace'));
  writeFileSync(join(workspace, '.knowledge/memory.jsonl'), `${PROJECT.join('\n')}\n`);
  const userDataDir = join(scratch, 'user-data');
  writeUserSettings(userDataDir, { ...QUIET_SETTINGS, 'workbench.colorTheme': 'Default Light Modern' });
  const personal = join(userDataDir, 'User', 'globalStorage', EXTENSION_ID, 'memory');
  mkdirSync(personal, { recursive: true });
  writeFileSync(join(personal, 'personal.jsonl'), `${PERSONAL.join('\n')}\n`);
  // The demo model as `npm start` has it (its proposed chat APIs enabled): the last test distils with it.
  const server = await startCodeServer({ folder: workspace, userDataDir, env: { SESSION_KNOWLEDGE_MEMORY_ENABLE: '1', SESSION_KNOWLEDGE_STATE_DIR: join(scratch, 'state') }, extraArgs: ['--enable-proposed-api', extensionId(DEMO_MODEL)] });
  const browser = await launchBrowser();
  const page = await newWorkbenchPage(browser, { width: 1500, height: 1000 });
  w = { scratch, workspace, userDataDir, server, browser, page };
  await page.goto(workbenchUrl(server, { folder: workspace, extensionDevelopmentPaths: [extensionDir, DEMO_MODEL], enableProposedApi: true }));
  await withFailureShot('setup', async () => {
    const frame = await openPanel(page);
    const sw = frame.locator('#memory-switch');
    if (!/Agent memory is on/.test((await sw.getAttribute('aria-label')) ?? '')) await sw.click();
    await waitFor(async () => (await frame.locator('#inbox-list article[data-where="inbox"]').count()) === PROJECT.length, { timeoutMs: 60_000, message: 'every seeded item in the inbox' });
  });
}, { timeout: 240_000 });

after(() => closeWorkbench(w));

test('at 300 px the panel has no horizontal scroll; groups are named by source (distillation, agent, import, sync)', { timeout: 120_000 }, () => withFailureShot('300', async () => {
  const frame = panelFrame(w.page);
  await sideBarWidth(w.page, 300);
  await frame.locator('#section-memory article[data-where="list"]').first().waitFor({ timeout: T });
  const o = await assertFits(frame, 'at 300 px');
  assert.ok(o.clientWidth >= 250, `the panel is the side bar's width (${o.clientWidth})`);
  // Cards are not cramped: each one takes the panel's width, its title on a line of its own width.
  const cards = await frame.locator('#app article').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
  assert.ok(cards.length > 0 && cards.every((cw) => cw >= o.clientWidth * 0.85), `cards span the panel (${cards.join(', ')} of ${o.clientWidth})`);

  const group = (session) => frame.locator(`#inbox-list section.inbox-group[data-session="${session}"] .inbox-group-head`);
  assert.match(await group('ui-distilled').innerText(), /2 from distillation/);
  assert.match(await group('ui-agent').innerText(), /4 from an agent/);
  const imported = await group('').innerText();
  assert.match(imported, /1 from an import/);
  assert.doesNotMatch(imported, /agent/, 'an import is not called an agent entry');
  assert.match(await frame.locator('#inbox-list article[data-id="i-1"] .entry-head').innerText(), /import/);
  assert.match(await frame.locator('#memory-list article[data-id="s-1"] .entry-meta').first().innerText(), /from sync/);
  await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
  await shot('panel-300-light.png');
}));

test('after an approve with the mouse, focus and scroll stay on the next card, also once the panel re-renders', { timeout: 120_000 }, () => withFailureShot('approve', async () => {
  const frame = panelFrame(w.page);
  const card = (id) => frame.locator(`#inbox-list article[data-where="inbox"][data-id="${id}"]`);
  await card('a-1').evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await card('a-1').locator('[data-action="inbox-approve"]').click();
  await onDisk(memFile(), (e) => e.id === 'a-1' && e.trust.state === 'approved', 'a-1 approved on disk');
  await waitFor(async () => (await focusState(frame)).card === 'a-2', { timeoutMs: T, message: 'focus on the next card (a-2)' });
  // The host pushes its state after a change (the whole panel is rebuilt): focus and scroll must survive it.
  const visible = () => card('a-2').evaluate((el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < el.ownerDocument.documentElement.clientHeight; });
  for (let i = 0; i < 6; i++) {
    await w.page.waitForTimeout(500);
    const f = await focusState(frame);
    assert.equal(f.card, 'a-2', `focus stays on a-2 (${JSON.stringify(f)})`);
    assert.equal(await visible(), true, 'a-2 stays in view (no jump to another section)');
  }
  await assertFits(frame, 'after the approve');

  // The same in the memory list: Approve on a pending entry's card leaves focus on that card (its Edit), in view.
  const row = frame.locator('#memory-list article[data-where="list"][data-id="a-3"]');
  await row.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await row.locator('[data-action="mem-approve"]').click();
  await onDisk(memFile(), (e) => e.id === 'a-3' && e.trust.state === 'approved', 'a-3 approved on disk');
  await waitFor(async () => { const f = await focusState(frame); return f.card === 'a-3' && f.where === 'list'; }, { timeoutMs: T, message: 'focus on the approved card in the list' });
  for (let i = 0; i < 6; i++) {
    await w.page.waitForTimeout(500);
    const f = await focusState(frame);
    assert.ok(f.card === 'a-3' && f.where === 'list', `focus stays on a-3 in the list (${JSON.stringify(f)})`);
    assert.equal(await row.evaluate((el) => { const r = el.getBoundingClientRect(); return r.bottom > 0 && r.top < el.ownerDocument.documentElement.clientHeight; }), true, 'a-3 stays in view');
  }
}));

test('Remember… in the panel\'s form: a person\'s entry, approved; one that reads as an instruction is flagged and withheld; a secret is refused', { timeout: 120_000 }, () => withFailureShot('form', async () => {
  const frame = panelFrame(w.page);
  const form = frame.locator('#remember');
  await form.scrollIntoViewIfNeeded();
  await choose(frame, 'remember-type', 'decision');
  await frame.locator('#remember-title input').fill('Money is never a float');
  await frame.locator('#remember-body textarea').fill('Store cents as integers.');
  await form.getByRole('button', { name: 'Remember this entry' }).click();
  const e = await onDisk(memFile(), (x) => x.title === 'Money is never a float', 'the remembered entry on disk');
  assert.equal(e.type, 'decision');
  assert.equal(e.provenance.sourceKind, 'human');
  assert.equal(e.trust.state, 'approved');
  assert.equal(e.body, 'Store cents as integers.');
  await frame.locator('#remember-outcome', { hasText: 'Remembered “Money is never a float” in project memory.' }).waitFor({ timeout: T });
  await waitFor(async () => (await focusState(frame)).id === 'remember-title', { timeoutMs: T, message: 'focus back in the title, for the next one' });
  assert.equal(await frame.locator('#remember-title').evaluate((el) => el.value), '', 'the form is cleared');

  await frame.locator('#remember-title input').fill('Shortcut typed by hand');
  await frame.locator('#remember-body textarea').fill(ATTACK);
  await form.getByRole('button', { name: 'Remember this entry' }).click();
  const flagged = await onDisk(memFile(), (x) => x.title === 'Shortcut typed by hand', 'the flagged entry is stored');
  await frame.locator('#remember-outcome', { hasText: 'reads as an instruction' }).waitFor({ timeout: T });
  await frame.locator(`#flagged-memory article[data-id="${flagged.id}"]`).waitFor({ timeout: T });

  const count = readLines(memFile()).length;
  await frame.locator('#remember-title input').fill('Staging key');
  await frame.locator('#remember-body textarea').fill('AKIAIOSFODNN7EXAMPLE is the access key id');
  await form.getByRole('button', { name: 'Remember this entry' }).click();
  await frame.locator('#errors', { hasText: 'secrets are never remembered' }).waitFor({ timeout: T });
  assert.equal(readLines(memFile()).length, count, 'nothing written');
  await frame.locator('#errors').getByRole('button', { name: 'Dismiss' }).click();
  await assertFits(frame, 'with the form used');
}));

test('Remember… in the Command Palette: type, title, body and scope through its quick inputs', { timeout: 120_000 }, () => withFailureShot('palette', async () => {
  const { page } = w;
  await page.locator('.part.editor').click({ position: { x: 400, y: 300 } });
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill('>Session Knowledge: Remember…');
  const row = (text) => page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  await row('Session Knowledge: Remember…').waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget', { hasText: 'what kind of entry?' }).waitFor({ timeout: T });
  await input.fill('Preference');
  await row('Preference').waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget', { hasText: 'title' }).waitFor({ timeout: T });
  await input.fill('Reply in British English');
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget', { hasText: 'body (optional)' }).waitFor({ timeout: T });
  await input.fill('colour, not color');
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget', { hasText: 'keep it where?' }).waitFor({ timeout: T });
  await input.fill('Personal');
  await row('Personal (you)').waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  const e = await onDisk(personalFile(), (x) => x.title === 'Reply in British English', 'the entry in personal memory');
  assert.equal(e.type, 'preference');
  assert.equal(e.body, 'colour, not color');
  assert.equal(e.provenance.sourceKind, 'human');
  assert.equal(e.trust.state, 'approved');
  assert.equal(readLines(memFile()).some((x) => x.title === 'Reply in British English'), false, 'not in the repository');
}));

test('screenshots at 500 px and in the dark theme; no horizontal scroll there either', { timeout: 180_000 }, () => withFailureShot('themes', async () => {
  const { page } = w;
  const frame = panelFrame(page);
  await sideBarWidth(page, 500);
  await assertFits(frame, 'at 500 px');
  await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
  await shot('panel-500-light.png');

  // As a person switches: F1, Preferences: Toggle between Light/Dark Themes (to Default Dark Modern).
  await page.locator('.part.editor').click({ position: { x: 400, y: 300 } });
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill('>Toggle between Light/Dark Themes');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Toggle between Light/Dark Themes' }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.locator('.monaco-workbench.vs-dark').waitFor({ timeout: 60_000 });
  await waitFor(async () => (await frame.locator('body').getAttribute('class'))?.includes('vscode-dark'), { timeoutMs: T, message: 'the panel in the dark theme' });
  await assertFits(frame, 'at 500 px, dark');
  await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
  await shot('panel-500-dark.png');
  await sideBarWidth(page, 300);
  await assertFits(frame, 'at 300 px, dark');
  await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
  await shot('panel-300-dark.png');
}));

test('the demo model distils into the inbox: a "Demo:" proposal, approved; distilled again, an update with its diff, rejected', { timeout: 180_000 }, () => withFailureShot('demo', async () => {
  const { page } = w;
  const frame = panelFrame(page);
  const demoCard = (kind) => frame.locator(`#inbox-list article[data-where="inbox"][data-kind="${kind}"]`, { hasText: 'Demo: How do we store money?' });
  await openChat(page);
  await sendChat(page, '@knowledge How do we store money?');
  await waitForChatAnswer(page, 'Demo model (offline)');
  await sendChat(page, '@knowledge /distill');
  const said = await waitForChatAnswer(page, 'wait in the memory inbox', { timeoutMs: 60_000 });
  assert.match(said, /1 proposal\(s\) wait in the memory inbox/);
  assert.doesNotMatch(said, /not valid JSON|Unexpected token|Nothing was stored/);

  await demoCard('new').waitFor({ timeout: T });
  assert.match(await demoCard('new').innerText(), /Written by the demo model \(offline\)/);
  await demoCard('new').locator('[data-action="inbox-approve"]').click();
  const approved = await onDisk(memFile(), (e) => e.title === 'Demo: How do we store money?' && e.trust.state === 'approved', 'the demo proposal approved on disk');
  assert.match(approved.body, /had 1 turn when it was distilled/);

  // One more turn, then distil again: the same title with another turn count — an update of the approved entry.
  await sendChat(page, '@knowledge And how do we round?');
  await waitForChatAnswer(page, 'Demo model (offline)');
  await sendChat(page, '@knowledge /distill');
  await waitForChatAnswer(page, '1 update(s)', { timeoutMs: 60_000 });
  const update = demoCard('update');
  await update.waitFor({ timeout: T });
  assert.ok((await update.locator('ins.diff-insert').count()) > 0 && (await update.locator('del.diff-delete').count()) > 0, 'the diff shows what changed');
  await update.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await shot('demo-distill-update-dark.png');
  await update.locator('[data-action="inbox-reject"]').click();
  await update.getByRole('button', { name: /^Confirm: reject/ }).click();
  await onDisk(memFile(), (e) => e.title === 'Demo: How do we store money?' && e.trust.state === 'pending' && e.rejected, 'the update rejected on disk');
  assert.ok(readLines(memFile()).some((e) => e.id === approved.id && e.trust.state === 'approved' && !e.supersededBy), 'the approved entry stays');
}));
