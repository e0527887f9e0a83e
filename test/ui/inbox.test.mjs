// UI test of the Decision inbox in the knowledge panel: a real VS Code (1.100.3 web workbench via code-server)
// driven in headless Debian Chromium, SESSION_KNOWLEDGE_MEMORY_ENABLE set, Default Dark Modern theme. One
// workbench for the file; the tests run in order on items seeded once.
//
// Seeding goes through the real server: a second `dist/server.js` on the same workspace and global storage (as a
// second VS Code window would be) creates two labelled sessions and submits distilled proposals with
// `knowledge/memory/distill/submit` — new ones, an update of an approved entry (same title), a conflict with an
// approved decision, one carrying an injected instruction (flagged), one with markup in its title — and one
// pending agent entry is written to memory.jsonl by hand. Every check is made on the files on disk
// (.knowledge/memory.jsonl, personal.jsonl in the extension's global storage, .knowledge/reviews.json) or on the
// workbench, polling with timeouts:
//   - the inbox lists them grouped by session (labels), each with its kind, rationale and provenance (session,
//     turn, model); the update shows its diff as <ins>/<del>, the conflict names the decision, the flagged one
//     its rule and matched span; markup is text; the view's badge counts what waits;
//   - keyboard only (no click): arrows move, A approves, E edits then Ctrl+Enter approves (a preference: the
//     personal store), R rejects with a reason (kept), Esc cancels, M merges into a chosen entry, Space selects,
//     Shift+A approves and Shift+R rejects the selection; focus moves to the next item after each;
//   - with the mouse: approving an update supersedes its target, a conflict supersedes the decision (recording
//     the session), a pending agent entry is approved;
//   - a flagged proposal cannot be approved (disabled button, the A key says why, the server refuses it in a bulk
//     approve) until "Reviewed — not a threat"; then it can;
//   - a hostile inbox message is refused (invalid-message) and changes nothing;
//   - with many pending (180 from two sessions, then 60 more, then 60 lines a pull brings): the first page (50) shows
//     first and the rest loads as the footer scrolls into view (or ArrowDown passes the last item), each item once even
//     when another window decides or adds one meanwhile; "Select all" of a group, then a bulk reject or approve, and
//     "Accept all from the repository" reach every item on disk, those never shown too.
// Screenshot for the README: test-results/inbox-dark.png (copied to docs/inbox-dark.png).
//
// SK_PANEL_EXTENSION_DIR: load the extension from another folder (a scratch build) instead of the repo.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { IPCMessageReader, IPCMessageWriter, createMessageConnection, InitializeRequest, InitializedNotification } from 'vscode-languageserver-protocol/node';
import {
  QUIET_SETTINGS, activityBarItem, copyDir, launchBrowser, newWorkbenchPage, repoRoot, startCodeServer, tempDir,
  waitFor, workbenchUrl, writeUserSettings,
} from '../../scripts/vscodeWeb.mjs';
import { ATTACK, EXTENSION_ID, WARNING, extensionDir, focusState, openPanel, panelFrame, resultsDir } from './panelShared.mjs';

const T = 30_000;
const IMG_TEXT = "<img src=x onerror=alert('sk-inbox-img')>";
const OLD = '2026-01-01T00:00:00.000Z';

/** An approved (or pending agent) line of memory.jsonl. */
function entry(id, title, body, { type = 'fact', agent = false, sessionKey, ...rest } = {}) {
  return {
    id, scope: 'project', type, ...(type === 'decision' ? { status: 'active' } : {}), title, body, tags: [], importance: 'medium', confidence: 1,
    provenance: agent ? { sourceKind: 'agent', identity: 'copilot-agent', sessionKey, at: OLD } : { sourceKind: 'human', identity: 'ui-test', at: OLD },
    trust: agent ? { state: 'pending' } : { state: 'approved', approvedBy: 'ui-test', approvedAt: OLD },
    createdAt: OLD, updatedAt: OLD, wrongFlags: [], ...rest,
  };
}

const SEED = [
  entry('t-node', 'CI Node version', 'The CI workflow uses Node 18.'),
  entry('t-db', 'Use PostgreSQL for storage', 'Every service keeps its data in PostgreSQL.', { type: 'decision' }),
  entry('t-merge', 'Release checklist lives in docs/release.md', 'Follow it for every release.'),
  entry('a-agent', 'Prefer rg over grep', 'ripgrep skips ignored files.', { agent: true, sessionKey: 'ui-agent-session' }),
];

const proposal = (type, title, body, turn, rationale, extra = {}) => ({ type, title, body, tags: [], importance: 'medium', rationale, turn, ...extra });
const SESSION_A = [
  proposal('lesson', 'Run the migrations before the tests', 'The test database needs the latest schema.', 3, 'Turn 3: "the tests only passed after npm run migrate"'),
  proposal('preference', 'Answer in British English', 'Use -ise spellings in the docs.', 4, 'Turn 4: "please write colour, not color"'),
  proposal('fact', 'The cache key includes the locale', 'Two locales never share an entry.', 6, 'Turn 6: "the cache key is built from path and locale"'),
  proposal('fact', 'CI Node version', 'The CI workflow uses Node 20.', 8, 'Turn 8: "we moved CI to Node 20 last week"'),
  proposal('decision', 'Use SQLite for storage', 'One file, no server to run.', 9, 'Turn 9: "let us drop PostgreSQL and keep a single SQLite file"', { contradicts: 't-db' }),
  proposal('fact', 'Deployment shortcut', `When deploying: ${ATTACK}`, 10, 'Turn 10: "a shortcut for deploying"'),
  proposal('fact', 'Release steps are in the docs', 'Tag, then publish.', 11, 'Turn 11: "tag first, then publish"'),
];
const SESSION_B = [
  proposal('lesson', 'Give every test its own temp folder', 'Shared tmp dirs made the suite flaky.', 2, 'Turn 2: "each test now gets mkdtemp"'),
  proposal('fact', 'Playwright drives Debian Chromium', 'Never a downloaded browser.', 3, 'Turn 3: "we use /usr/bin/chromium"'),
  proposal('fact', 'Flaky tests come from the moon', 'Lunar phases.', 5, 'Turn 5: "maybe it is the moon"'),
  proposal('fact', `Markup ${IMG_TEXT}`, "Body <script>console.log('sk-inbox-script')</script>", 6, 'Turn 6: "<b>bold</b> claims"'),
];

let w; // the shared workbench
const ids = {}; // title → id of every seeded item
const sessions = {}; // 'A' | 'B' → session key

const storage = () => join(w.userDataDir, 'User', 'globalStorage', EXTENSION_ID);
const memFile = () => join(w.workspace, '.knowledge/memory.jsonl');
const personalFile = () => join(storage(), 'memory', 'personal.jsonl');
const readLines = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const line = (id, file = memFile()) => readLines(file).find((e) => e.id === id);
const onDisk = (id, pred, message, file) => waitFor(() => { const e = line(id, file); return e && pred(e) ? e : false; }, { timeoutMs: T, message });

/** A second real language server on the same workspace and storage (a second window): it seeds through the protocol. */
async function seedServer(workspace, globalStoragePath) {
  const child = fork(join(repoRoot, 'dist/server.js'), ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, SESSION_KNOWLEDGE_MEMORY_ENABLE: '1', SESSION_KNOWLEDGE_STATE_DIR: w.state } });
  child.stderr.on('data', () => {});
  const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  connection.onNotification(() => {});
  connection.listen();
  await connection.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { workspaceFolder: workspace, globalStoragePath, memoryEnabled: true }, workspaceFolders: null });
  await connection.sendNotification(InitializedNotification.type, {});
  await connection.sendRequest('knowledge/memory/configure', { on: true });
  return {
    request: (method, params) => connection.sendRequest(method, params),
    async stop() {
      await connection.sendRequest('shutdown').catch(() => {});
      await connection.sendNotification('exit').catch(() => {});
      connection.dispose();
      if (child.exitCode === null) child.kill();
    },
  };
}

const inboxCard = (frame, id) => frame.locator(`#inbox-list article[data-where="inbox"][data-id="${id}"]`);
const inboxIds = (frame) => frame.locator('#inbox-list article[data-where="inbox"]').evaluateAll((els) => els.map((e) => e.dataset.id));
/** The badge VS Code draws on the Knowledge Panel's activity-bar item (the view's `badge`). */
const activityBadge = (page) => activityBarItem(page, 'Knowledge Panel').locator('.badge .badge-content');

async function withFailureShot(name, fn) {
  try {
    await fn();
  } catch (e) {
    mkdirSync(resultsDir, { recursive: true });
    await w?.page.screenshot({ path: join(resultsDir, `inbox-${name}-FAILED.png`) }).catch(() => {});
    if (process.env.SK_DEBUG_INBOX) console.log(w?.consoleLines.filter((l) => l.includes('sk-debug')).join('\n'));
    throw e;
  }
}

before(async () => {
  const scratch = tempDir('sk-ui-inbox-');
  const workspace = copyDir(join(repoRoot, 'test/fixtures/workspace'), join(scratch, 'workspace'));
  writeFileSync(join(workspace, '.knowledge/memory.jsonl'), SEED.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const userDataDir = join(scratch, 'user-data');
  writeUserSettings(userDataDir, { ...QUIET_SETTINGS, 'workbench.colorTheme': 'Default Dark Modern' });
  // This person's trust record (their approvals), shared by the workbench's server and the seeding one.
  const state = join(scratch, 'state');
  const server = await startCodeServer({ folder: workspace, userDataDir, env: { SESSION_KNOWLEDGE_MEMORY_ENABLE: '1', SESSION_KNOWLEDGE_STATE_DIR: state } });
  const browser = await launchBrowser();
  const page = await newWorkbenchPage(browser, { width: 1500, height: 1000 });
  const consoleLines = [];
  const dialogs = [];
  page.on('console', (m) => consoleLines.push(m.text()));
  page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss().catch(() => {}); });
  w = { scratch, workspace, userDataDir, state, server, browser, page, consoleLines, dialogs };
  await page.goto(workbenchUrl(server, { folder: workspace, extensionDevelopmentPaths: [extensionDir] }));
  await withFailureShot('setup', async () => {
    const frame = await openPanel(page);
    const sw = frame.locator('#memory-switch');
    if (!/Agent memory is on/.test((await sw.getAttribute('aria-label')) ?? '')) await sw.click();
    await frame.locator('#section-inbox').waitFor({ timeout: T });

    const seeder = await seedServer(workspace, join(userDataDir, 'User', 'globalStorage', EXTENSION_ID));
    try {
      // The seeded approved lines are the teammates' committed entries: this person accepted them before these tests.
      const accepted = await seeder.request('knowledge/memory/inbox/acceptRepository', {});
      assert.deepEqual(accepted.done.map((e) => e.id).sort(), ['t-db', 't-merge', 't-node']);
      sessions.A = (await seeder.request('knowledge/sessions/create', { label: 'Refactor the store', origin: 'chat' })).key;
      sessions.B = (await seeder.request('knowledge/sessions/create', { label: 'Fix the flaky tests', origin: 'chat' })).key;
      for (const [key, proposals, model] of [[sessions.A, SESSION_A, 'fake-distiller-1'], [sessions.B, SESSION_B, 'fake-distiller-2']]) {
        const r = await seeder.request('knowledge/memory/distill/submit', { sessionKey: key, model, turns: 12, proposals });
        assert.deepEqual(r.skipped, [], `nothing skipped: ${JSON.stringify(r.skipped)}`);
        for (const item of r.items) ids[item.entry.title] = item.entry.id;
        // Submitted one after the other: session B's group is the newer one.
        await new Promise((res) => setTimeout(res, 20));
      }
    } finally {
      await seeder.stop();
    }
    ids['Prefer rg over grep'] = 'a-agent';
    // The panel follows memory.jsonl on disk (the file watcher): every seeded item shows.
    await waitFor(async () => (await inboxIds(frame)).length === SESSION_A.length + SESSION_B.length + 1, { timeoutMs: T, message: 'every seeded item in the inbox' });
  });
}, { timeout: 240_000 });

after(async () => {
  if (!w) return;
  await w.browser.close().catch(() => {});
  await w.server.stop();
  rmSync(w.scratch, { recursive: true, force: true });
});

test('the inbox lists proposals and agent entries grouped by session: kind, rationale, provenance, diff, conflict, flagged rule; markup is text; the badge counts them', { timeout: 120_000 }, () => withFailureShot('list', async () => {
  const { page } = w;
  const frame = await openPanel(page);
  const total = SESSION_A.length + SESSION_B.length + 1;

  // Grouped by session, newest group first, labelled; the agent entry in its own session's group.
  const groups = await frame.locator('#inbox-list section.inbox-group').evaluateAll((els) => els.map((g) => ({ session: g.dataset.session, name: g.querySelector('h3')?.textContent?.trim(), items: [...g.querySelectorAll('article[data-where="inbox"]')].map((a) => a.dataset.id) })));
  assert.deepEqual(groups.map((g) => g.session), [sessions.B, sessions.A, 'ui-agent-session']);
  assert.deepEqual(groups.map((g) => g.name), ['Session “Fix the flaky tests”', 'Session “Refactor the store”', 'Session ui-agent-session']);
  assert.deepEqual(groups[1].items, SESSION_A.map((p) => ids[p.title]), 'a session\'s proposals in turn order');
  assert.deepEqual(groups[0].items, SESSION_B.map((p) => ids[p.title]));
  assert.deepEqual(groups[2].items, ['a-agent']);

  // The section's badge and the view's badge count what waits.
  assert.equal((await frame.locator('#section-inbox summary vscode-badge').textContent())?.trim(), String(total));
  await waitFor(async () => (await activityBadge(page).textContent())?.trim() === String(total), { timeoutMs: T, message: `the activity-bar badge shows ${total}` });

  // A new proposal: type, kind, rationale (the quoted turn), provenance (session, turn, model).
  const lesson = inboxCard(frame, ids['Run the migrations before the tests']);
  assert.equal(await lesson.getAttribute('data-kind'), 'new');
  assert.equal(await lesson.locator('.entry-title').first().textContent(), 'Run the migrations before the tests');
  assert.equal(await lesson.locator('.rationale-text').textContent(), SESSION_A[0].rationale);
  assert.equal(await lesson.locator('.prov-session').textContent(), 'Session “Refactor the store”');
  assert.equal(await lesson.locator('.prov-turn').textContent(), '3');
  assert.equal(await lesson.locator('.prov-model').textContent(), 'fake-distiller-1');
  assert.match((await lesson.getAttribute('aria-label')) ?? '', /^proposal \(new\): Run the migrations before the tests/);
  assert.equal(await lesson.getAttribute('aria-keyshortcuts'), 'A E R M Space Shift+A Shift+R');

  // An update: the diff against the target, inserted and deleted words as <ins>/<del>.
  const update = inboxCard(frame, ids['CI Node version']);
  assert.equal(await update.getAttribute('data-kind'), 'update');
  assert.equal(await update.locator('.target-title').textContent(), '“CI Node version”');
  const ins = await update.locator('[data-diff-field="body"] ins.diff-insert').allTextContents();
  const del = await update.locator('[data-diff-field="body"] del.diff-delete').allTextContents();
  assert.ok(ins.some((t) => t.includes('20')), `Node 20 inserted (${JSON.stringify(ins)})`);
  assert.ok(del.some((t) => t.includes('18')), `Node 18 deleted (${JSON.stringify(del)})`);

  // A conflict: the decision it contradicts.
  const conflict = inboxCard(frame, ids['Use SQLite for storage']);
  assert.equal(await conflict.getAttribute('data-kind'), 'conflict');
  await conflict.getByText('Contradicts the approved decision').waitFor();
  assert.equal(await conflict.locator('.target-title').textContent(), '“Use PostgreSQL for storage”');
  assert.equal(await conflict.locator('.target-body').textContent(), 'Every service keeps its data in PostgreSQL.');
  // Read as a change: what goes, then what comes (not word against word).
  assert.deepEqual(await conflict.locator('[data-diff-field="body"] .diff-text > *').evaluateAll((els) => els.map((e) => `${e.localName}:${e.lastChild.textContent}`)), ['del:Every service keeps its data in PostgreSQL.', 'ins:One file, no server to run.']);

  // A flagged proposal: the warning, its rule, the matched span; Approve disabled and why.
  const flagged = inboxCard(frame, ids['Deployment shortcut']);
  await flagged.getByText(WARNING).waitFor();
  assert.ok(((await flagged.locator('code.rule').first().textContent()) ?? '').length > 0, 'the rule is named');
  const mark = (await flagged.locator('mark').first().textContent()) ?? '';
  assert.ok(mark.length > 0 && ATTACK.includes(mark), `the matched span is marked (${JSON.stringify(mark)})`);
  assert.equal(await flagged.locator('[data-action="inbox-approve"]').isDisabled(), true);
  await flagged.getByText('Approve waits until you look at the matched text').waitFor();

  // A pending agent entry.
  const agent = inboxCard(frame, 'a-agent');
  assert.equal(await agent.getAttribute('data-origin'), 'agent');
  await agent.getByText('Written by copilot-agent (agent) in Session ui-agent-session').waitFor();

  // Markup is text, and nothing ran.
  const markup = inboxCard(frame, ids[`Markup ${IMG_TEXT}`]);
  assert.equal(await markup.locator('.entry-title').first().textContent(), `Markup ${IMG_TEXT}`);
  assert.equal(await markup.locator('.rationale-text').textContent(), 'Turn 6: "<b>bold</b> claims"');
  const doc = await frame.locator('body').evaluate((b) => ({ imgs: b.ownerDocument.querySelectorAll('#app img').length, bold: b.ownerDocument.querySelectorAll('#app b').length, scripts: b.ownerDocument.querySelectorAll('#app script').length }));
  assert.deepEqual(doc, { imgs: 0, bold: 0, scripts: 0 });

}));

/** Focus enters the panel with the keyboard only: the view's focus command, then Tab to the inbox's item. */
async function focusInboxByKeyboard(page, frame) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type('>Focus on Sessions and Memory View');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Focus on Sessions and Memory View' }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await waitFor(async () => {
    const f = await focusState(frame);
    if (f.where === 'inbox' && f.tag === 'article') return true;
    await page.keyboard.press('Tab');
    return false;
  }, { timeoutMs: T, intervalMs: 100, message: 'Tab reaches an inbox item' });
}

/** Moves focus to the item `id` with the arrow keys (the item in focus must be an inbox item). */
async function arrowTo(page, frame, id) {
  await waitFor(async () => {
    const f = await focusState(frame);
    assert.ok(f.where === 'inbox' && f.tag === 'article', `focus is on an inbox item (${JSON.stringify(f)})`);
    if (f.card === id) return true;
    const order = await inboxIds(frame);
    assert.ok(order.includes(id), `${id} is in the inbox`);
    await page.keyboard.press(order.indexOf(id) > order.indexOf(f.card) ? 'ArrowDown' : 'ArrowUp');
    return false;
  }, { timeoutMs: T, intervalMs: 50, message: `focus on ${id}` });
}

/**
 * Types `added` with the keyboard at the end of the field in focus (`field`: its data-field, or `{ id }`), which
 * holds `was`: waits until the field's own input has the caret (a custom element renders its input a moment after
 * it takes focus), types, and waits until the field holds `was + added`. (Not Ctrl+A: in a webview VS Code answers
 * it with a select-all of its own a moment later, which would swallow what was typed meanwhile.)
 */
async function typeInto(frame, field, was, added) {
  const isField = (f) => (typeof field === 'string' ? f.field === field : f.id === field.id);
  await waitFor(async () => { const f = await focusState(frame); return isField(f) && f.value === was; }, { timeoutMs: T, message: `focus in ${JSON.stringify(field)} holding ${JSON.stringify(was)}` });
  await w.page.keyboard.press('End');
  await w.page.keyboard.type(added);
  await waitFor(async () => { const f = await focusState(frame); return isField(f) && f.value === was + added; }, { timeoutMs: T, message: `${JSON.stringify(field)} holds ${JSON.stringify(was + added)}` });
}

const focusIsItem = async (frame, id) => { const f = await focusState(frame); return f.where === 'inbox' && f.tag === 'article' && (id === undefined ? true : f.card === id); };

test('keyboard only: approve (A), edit then approve (E, Ctrl+Enter), reject with a reason (R), Esc, merge (M), bulk approve (Space, Shift+A) and bulk reject (Shift+R) reach the files', { timeout: 240_000 }, () => withFailureShot('keyboard', async () => {
  const { page } = w;
  const frame = panelFrame(page);
  await focusInboxByKeyboard(page, frame);

  // A approves; focus moves to the next item.
  const lessonId = ids['Run the migrations before the tests'];
  await arrowTo(page, frame, lessonId);
  const nextAfterLesson = (await inboxIds(frame))[(await inboxIds(frame)).indexOf(lessonId) + 1];
  await page.keyboard.press('a');
  const approved = await onDisk(lessonId, (e) => e.trust.state === 'approved', 'the lesson approved in memory.jsonl');
  assert.equal(approved.proposal, undefined, 'the proposal record is gone');
  assert.deepEqual(approved.provenance.distilledFrom, { sessionKey: sessions.A, turn: 3, model: 'fake-distiller-1' }, 'provenance kept');
  await inboxCard(frame, lessonId).waitFor({ state: 'detached', timeout: T });
  await waitFor(() => focusIsItem(frame, nextAfterLesson), { timeoutMs: T, message: 'focus on the next item after approving' });

  // E opens the editor on the title; Esc cancels and gives focus back to the item.
  const prefId = ids['Answer in British English'];
  await arrowTo(page, frame, prefId);
  await page.keyboard.press('e');
  await waitFor(async () => (await focusState(frame)).field === 'title', { timeoutMs: T, message: 'focus in the title field' });
  await page.keyboard.press('Escape');
  await inboxCard(frame, prefId).locator('.inline').waitFor({ state: 'detached', timeout: T });
  await waitFor(() => focusIsItem(frame, prefId), { timeoutMs: T, message: 'focus back on the item after Esc' });
  // E again: a new title, Ctrl+Enter approves as edited — a preference goes to the personal store.
  await page.keyboard.press('e');
  await typeInto(frame, 'title', 'Answer in British English', ' (-ise)');
  await page.keyboard.press('Control+Enter');
  const pref = await onDisk(prefId, (e) => e.trust.state === 'approved', 'the edited preference approved in personal.jsonl', personalFile());
  assert.equal(pref.title, 'Answer in British English (-ise)');
  assert.equal(pref.scope, 'personal');
  assert.equal(line(prefId), undefined, 'not in the project file');
  await waitFor(() => focusIsItem(frame), { timeoutMs: T, message: 'focus on an item after edit-approve' });

  // R with a reason, Enter: rejected on disk with the reason kept.
  const cacheId = ids['The cache key includes the locale'];
  await arrowTo(page, frame, cacheId);
  await page.keyboard.press('r');
  await typeInto(frame, 'reason', '', 'Only true for the HTML cache');
  await page.keyboard.press('Enter');
  const rejected = await onDisk(cacheId, (e) => e.rejected !== undefined, 'the rejection on disk');
  assert.equal(rejected.rejected.reason, 'Only true for the HTML cache');
  assert.equal(rejected.trust.state, 'pending', 'a rejected item is never approved');
  await inboxCard(frame, cacheId).waitFor({ state: 'detached', timeout: T });
  await waitFor(() => focusIsItem(frame), { timeoutMs: T, message: 'focus on an item after reject' });

  // M: search the target by typing, Enter merges into it.
  const mergeId = ids['Release steps are in the docs'];
  await arrowTo(page, frame, mergeId);
  await page.keyboard.press('m');
  await typeInto(frame, 'merge-query', '', 'release checklist');
  await waitFor(async () => (await inboxCard(frame, mergeId).locator('li.merge-option.active').getAttribute('data-target').catch(() => null)) === 't-merge', { timeoutMs: T, message: 't-merge offered first' });
  await page.keyboard.press('Enter');
  const merged = await onDisk('t-merge', (e) => e.body.includes('Tag, then publish.'), 'the merged text in the target');
  assert.ok(merged.body.startsWith('Follow it for every release.'), 'the target keeps its own text first');
  assert.equal(line(mergeId)?.consolidatedInto, 't-merge', 'the item is kept, consolidated into the target');
  await inboxCard(frame, mergeId).waitFor({ state: 'detached', timeout: T });
  await waitFor(() => focusIsItem(frame), { timeoutMs: T, message: 'focus on an item after merge' });

  // Space selects two; Shift+A approves them both.
  const [b1, b2, b3, b4] = SESSION_B.map((p) => ids[p.title]);
  await arrowTo(page, frame, b1);
  await page.keyboard.press(' ');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press(' ');
  await frame.locator('#inbox-toolbar .selection-count', { hasText: '2 selected' }).waitFor({ timeout: T });
  assert.match((await inboxCard(frame, b2).getAttribute('aria-label')) ?? '', / — selected$/);
  await page.keyboard.press('Shift+A');
  await onDisk(b1, (e) => e.trust.state === 'approved', 'b1 approved');
  await onDisk(b2, (e) => e.trust.state === 'approved', 'b2 approved');
  await frame.locator('#inbox-status', { hasText: 'Approved 2 items.' }).waitFor({ timeout: T });
  await waitFor(() => focusIsItem(frame, b3), { timeoutMs: T, message: 'focus on the item after the approved selection' });

  // Space on b3 and b4, Shift+R, a reason, Enter: both rejected with it.
  await page.keyboard.press(' ');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press(' ');
  await page.keyboard.press('Shift+R');
  await typeInto(frame, { id: 'inbox-bulk-reason' }, '', 'Not supported by the logs');
  await page.keyboard.press('Enter');
  for (const id of [b3, b4]) assert.equal((await onDisk(id, (e) => e.rejected !== undefined, `${id} rejected`)).rejected.reason, 'Not supported by the logs');
  await frame.locator('#inbox-status', { hasText: 'Rejected 2 items.' }).waitFor({ timeout: T });
  await waitFor(() => focusIsItem(frame), { timeoutMs: T, message: 'focus on an item after the bulk reject' });

  // Esc with a selection clears it.
  await page.keyboard.press(' ');
  await frame.locator('#inbox-toolbar .selection-count', { hasText: '1 selected' }).waitFor({ timeout: T });
  await page.keyboard.press('Escape');
  await frame.locator('#inbox-toolbar .selection-count').waitFor({ state: 'detached', timeout: T });
}));

/** The README's screenshot: the side bar widened (its sash dragged), the inbox at the top, the side bar alone. */
async function inboxScreenshot(page, frame, name) {
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  const sashes = await page.locator('.monaco-sash.vertical').evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2, h: r.height }; }));
  const sash = sashes.find((s) => Math.abs(s.x - (sidebar.x + sidebar.width)) < 6 && s.h > 200);
  assert.ok(sash, `the side bar's sash (${JSON.stringify({ sidebar, sashes })})`);
  await page.mouse.move(sash.x, sash.y);
  await page.mouse.down();
  await page.mouse.move(sash.x + 260, sash.y, { steps: 10 });
  await page.mouse.up();
  await waitFor(async () => (await page.locator('.part.sidebar').boundingBox()).width > sidebar.width + 200, { timeoutMs: T, message: 'the side bar widened' });
  await frame.locator('body').evaluate(() => { window.scrollTo(0, 0); window.getSelection()?.removeAllRanges(); });
  await page.mouse.move(1450, 950);
  const wide = await page.locator('.part.sidebar').boundingBox();
  mkdirSync(resultsDir, { recursive: true });
  await page.screenshot({ path: join(resultsDir, name), clip: { x: 0, y: 0, width: Math.round(wide.x + wide.width + 1), height: 1000 } });
}

test('a flagged proposal cannot be approved before "Reviewed — not a threat"; then it can', { timeout: 120_000 }, () => withFailureShot('flagged', async () => {
  const { page } = w;
  const frame = panelFrame(page);
  // What is left after the keyboard pass — an update with its diff, a conflict, a flagged proposal, an agent entry — for the README.
  await inboxScreenshot(page, frame, 'inbox-dark.png');
  const id = ids['Deployment shortcut'];
  const card = inboxCard(frame, id);
  await card.waitFor({ timeout: T });
  assert.equal(await card.locator('[data-action="inbox-approve"]').isDisabled(), true, 'Approve is disabled');

  // The A key says why and moves focus to the review button; nothing is written.
  await card.focus();
  await page.keyboard.press('a');
  await card.locator('.inbox-notice', { hasText: 'reads as an instruction' }).waitFor({ timeout: T });
  await waitFor(async () => { const f = await focusState(frame); return f.card === id && f.action === 'inbox-reviewed'; }, { timeoutMs: T, message: 'focus on Reviewed — not a threat' });
  assert.equal(line(id).trust.state, 'pending');

  // A bulk approve with the mouse: the server refuses the flagged one, approves the other, says why.
  await card.locator('input[data-action="inbox-select"]').check();
  await inboxCard(frame, 'a-agent').locator('input[data-action="inbox-select"]').check();
  await frame.locator('#inbox-toolbar [data-action="inbox-bulk-approve"]').click();
  await onDisk('a-agent', (e) => e.trust.state === 'approved', 'the agent entry approved');
  await frame.locator('#inbox-status', { hasText: 'Approved 1 item.' }).waitFor({ timeout: T });
  await frame.locator('#inbox-status', { hasText: '“Deployment shortcut”' }).waitFor({ timeout: T });
  await card.locator('.inbox-notice', { hasText: 'Not approved' }).waitFor({ timeout: T });
  assert.equal(line(id).trust.state, 'pending', 'the flagged proposal is still pending');
  await frame.locator('#inbox-toolbar [data-action="inbox-clear"]').click();

  // Reviewed — not a threat (reviews.json), then Approve.
  await card.locator('[data-action="inbox-reviewed"]').click();
  await waitFor(() => existsSync(join(w.workspace, '.knowledge/reviews.json')) && readFileSync(join(w.workspace, '.knowledge/reviews.json'), 'utf8').includes(`memory:${id}`), { timeoutMs: T, message: 'the review on disk' });
  await waitFor(async () => !(await card.locator('[data-action="inbox-approve"]').isDisabled()), { timeoutMs: T, message: 'Approve enabled after the review' });
  await card.locator('[data-action="inbox-approve"]').click();
  await onDisk(id, (e) => e.trust.state === 'approved', 'the reviewed proposal approved');
}));

test('with the mouse: approving an update supersedes its target; approving a conflict supersedes the decision and records the session', { timeout: 120_000 }, () => withFailureShot('mouse', async () => {
  const { page } = w;
  const frame = panelFrame(page);
  const updateId = ids['CI Node version'];
  await inboxCard(frame, updateId).getByRole('button', { name: 'Approve CI Node version' }).click();
  await onDisk(updateId, (e) => e.trust.state === 'approved', 'the update approved');
  await onDisk('t-node', (e) => e.supersededBy === updateId, 'the old entry superseded by the update');

  const conflictId = ids['Use SQLite for storage'];
  await inboxCard(frame, conflictId).getByRole('button', { name: 'Approve Use SQLite for storage' }).click();
  await onDisk(conflictId, (e) => e.trust.state === 'approved', 'the conflicting decision approved');
  const old = await onDisk('t-db', (e) => e.supersededBy === conflictId, 'the old decision superseded');
  assert.equal(old.supersededInSession, sessions.A, 'the session that superseded it is recorded');

  // Everything is decided: the inbox says so, and the badge is gone.
  await frame.locator('#inbox-empty').waitFor({ timeout: T });
  await waitFor(async () => (await activityBadge(page).count()) === 0 || !(await activityBadge(page).isVisible()), { timeoutMs: T, message: 'no badge when nothing waits' });
}));

test('a hostile inbox message is refused with invalid-message and changes nothing', { timeout: 60_000 }, () => withFailureShot('hostile', async () => {
  const { page } = w;
  const frame = panelFrame(page);
  const before = readFileSync(memFile(), 'utf8');
  await frame.locator('body').evaluate(() => {
    window.__skReplies = [];
    window.addEventListener('message', (e) => { if (e.data?.type === 'response' && e.data.requestId >= 900000) window.__skReplies.push(e.data); });
  });
  const outer = page.frames().find((f) => f.url().includes('/webview/') && f.url().includes('index.html') && f.childFrames().length > 0);
  assert.ok(outer, 'found the webview host frame');
  const hostile = [
    { requestId: 900001, method: 'inbox/approve', params: { ids: ['t-merge'], evil: true } },
    { requestId: 900002, method: 'inbox/reject', params: { ids: [], reason: 'x' } },
    { requestId: 900003, method: 'inbox/reject', params: { ids: ['t-merge'], reason: 'x'.repeat(501) } },
    { requestId: 900004, method: 'inbox/merge', params: { id: 't-merge', intoId: { $ne: null } } },
    { requestId: 900005, method: 'inbox/approveEdited', params: { id: 't-merge', edits: { title: '', body: '<script>' } } },
    { requestId: 900006, method: 'inbox/list', params: { limit: 5000 } },
    { requestId: 900007, method: 'inbox/approve', params: { ids: Array.from({ length: 1001 }, (_, i) => `m${i}`) } },
  ];
  for (const m of hostile) await outer.evaluate((message) => window.__vscode_post_message__('onmessage', { message: { type: 'request', ...message } }), m);
  const replies = await waitFor(async () => { const r = await frame.locator('body').evaluate(() => window.__skReplies); return r.length === hostile.length ? r : false; }, { timeoutMs: T, message: 'a reply to each hostile message' });
  for (const r of replies) {
    assert.equal(r.ok, false, JSON.stringify(r));
    assert.equal(r.error.reason, 'invalid-message', JSON.stringify(r));
    assert.match(r.error.message, /^Refused inbox\//);
  }
  assert.equal(readFileSync(memFile(), 'utf8'), before, 'memory.jsonl unchanged');
  assert.deepEqual(w.dialogs, [], 'no dialog opened');
  assert.deepEqual(w.consoleLines.filter((l) => l.includes('sk-inbox-')), [], 'stored script text never ran');
}));

test('an entry a pull brings with an approved state waits in its own group "from the repository", naming the team\'s approver; Accept all records this person\'s acceptance', { timeout: 120_000 }, () => withFailureShot('repository', async () => {
  const { page } = w;
  const frame = await openPanel(page);
  const pulled = entry('t-pulled', 'Deploys need the VPN', 'Connect to the office VPN before a deploy.');
  pulled.provenance = { sourceKind: 'human', identity: 'teammate', at: OLD };
  pulled.trust = { state: 'approved', approvedBy: 'teammate', approvedAt: OLD };
  const before = readFileSync(memFile(), 'utf8');
  writeFileSync(memFile(), `${before}${JSON.stringify(pulled)}\n`);
  const card = inboxCard(frame, 't-pulled');
  await card.waitFor({ timeout: T });
  const group = frame.locator('#inbox-list section.inbox-repository');
  assert.match((await group.locator('h3').textContent()) ?? '', /From the repository/);
  assert.equal(await card.getAttribute('data-origin'), 'repository');
  assert.match((await card.getAttribute('aria-label')) ?? '', /^from the repository: Deploys need the VPN/);
  assert.match((await card.locator('.inbox-provenance').textContent()) ?? '', /Approved by teammate in the repository — not by you yet/);
  await card.getByRole('button', { name: 'Accept Deploys need the VPN from the repository' }).waitFor({ timeout: T });
  await group.getByRole('button', { name: /^Accept all 1 from the repository/ }).click();
  await waitFor(async () => (await card.count()) === 0, { timeoutMs: T, message: 'accepted: out of the inbox' });
  assert.match(readFileSync(join(w.state, 'trust', 'records.json'), 'utf8'), /"id": "t-pulled"[\s\S]*"how": "accepted"/);
  assert.equal(readFileSync(memFile(), 'utf8'), `${before}${JSON.stringify(pulled)}\n`, 'the committed file is not rewritten');
}));

/** `n` proposals of distinct words (none restates another), titled `<tag> <i>`. */
function manyProposals(tag, from, n) {
  const words = 'build test deploy lockfile cache docker node typescript eslint server client index search store atomic write parse branch merge release version token model prompt budget schema query retry queue worker backup staging feature flag metrics'.split(' ');
  let seed = 7 + from * 31 + tag.length;
  const pick = () => words[(seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) % words.length];
  return Array.from({ length: n }, (_, k) => proposal('fact', `${tag} ${from + k}: ${pick()} ${pick()} ${pick()}`, `${Array.from({ length: 10 }, pick).join(' ')}.`, k + 1, `Turn ${k + 1}: "${pick()} ${pick()}"`));
}

/** Scrolls the inbox's footer into view until every page is loaded (the footer is empty then). */
async function scrollToEnd(frame) {
  await waitFor(async () => (await frame.locator('#inbox-more').evaluate((el) => { el.scrollIntoView({ block: 'end' }); return el.childElementCount; })) === 0, { timeoutMs: T, intervalMs: 200, message: 'every page loaded by scrolling' });
}

test('many pending: the first page shows first and the rest loads on scroll, exactly once each, also when items are decided or added meanwhile; Select all, then a bulk reject or approve, covers the whole group, not only the items on show; Accept all covers every repository item', { timeout: 300_000 }, () => withFailureShot('many', async () => {
  const { page } = w;
  const frame = await openPanel(page);
  const PAGE = 50;
  const seeder = await seedServer(w.workspace, storage());
  const submit = async (key, proposals) => {
    const r = await seeder.request('knowledge/memory/distill/submit', { sessionKey: key, model: 'fake-distiller-3', turns: 20, proposals });
    assert.deepEqual(r.skipped, [], `nothing skipped: ${JSON.stringify(r.skipped.slice(0, 2))}`);
    return r.items.map((i) => i.entry.id);
  };
  const listing = async () => (await seeder.request('knowledge/memory/inbox', { limit: 1000 })).groups.flatMap((g) => g.items.map((i) => i.entry.id));
  const footer = () => frame.locator('#inbox-more span').first().textContent();
  try {
    const older = (await seeder.request('knowledge/sessions/create', { label: 'An older session', origin: 'chat' })).key;
    const long = (await seeder.request('knowledge/sessions/create', { label: 'A long session', origin: 'chat' })).key;
    const olderIds = [];
    for (let i = 0; i < 80; i += 20) olderIds.push(...(await submit(older, manyProposals('Older finding', i, 20))));
    await new Promise((res) => setTimeout(res, 20));
    const longIds = [];
    for (let i = 0; i < 100; i += 20) longIds.push(...(await submit(long, manyProposals('Long finding', i, 20))));

    // The first page first: 50 of the 180, the newest group's, in the server's order.
    await waitFor(async () => /^50 of 180 shown/.test((await footer().catch(() => '')) ?? ''), { timeoutMs: T, message: 'the footer says 50 of 180 shown' });
    const first = await inboxIds(frame);
    assert.equal(first.length, PAGE);
    assert.deepEqual(first, (await listing()).slice(0, PAGE));
    assert.ok(first.every((id) => longIds.includes(id)), 'the first page is the long session\'s');

    // Select all of the long session (100, 50 on show), reject them with a reason: every one of them is rejected.
    const longGroup = frame.locator(`#inbox-list section.inbox-group[data-session="${long}"]`);
    await longGroup.getByRole('button', { name: 'Select all 100 items waiting from Session “A long session”' }).click();
    await frame.locator('#inbox-toolbar .selection-count', { hasText: '100 selected' }).waitFor({ timeout: T });
    await frame.locator('#inbox-toolbar [data-action="inbox-bulk-reject"]').click();
    await typeInto(frame, { id: 'inbox-bulk-reason' }, '', 'Too many');
    await frame.locator('#inbox-toolbar [data-action="inbox-bulk-reject-confirm"]').click();
    await waitFor(() => { const byId = new Map(readLines(memFile()).map((e) => [e.id, e])); return longIds.every((id) => byId.get(id)?.rejected?.reason === 'Too many'); }, { timeoutMs: T, message: 'all 100 rejected on disk, the 50 never shown too' });
    await frame.locator('#inbox-status', { hasText: 'Rejected 100 items.' }).waitFor({ timeout: T });

    // Now the older session: 50 of its 80 on show. Select all, approve: all 80 approved.
    await waitFor(async () => /^50 of 80 shown/.test((await footer().catch(() => '')) ?? ''), { timeoutMs: T, message: 'the footer says 50 of 80 shown' });
    const olderGroup = frame.locator(`#inbox-list section.inbox-group[data-session="${older}"]`);
    await olderGroup.getByRole('button', { name: 'Select all 80 items waiting from Session “An older session”' }).click();
    await frame.locator('#inbox-toolbar [data-action="inbox-bulk-approve"]', { hasText: 'Approve 80' }).click();
    await waitFor(() => { const byId = new Map(readLines(memFile()).map((e) => [e.id, e])); return olderIds.every((id) => byId.get(id)?.trust.state === 'approved'); }, { timeoutMs: T, message: 'all 80 approved on disk, the 30 never shown too' });
    await frame.locator('#inbox-status', { hasText: 'Approved 80 items.' }).waitFor({ timeout: T });
    await frame.locator('#inbox-empty').waitFor({ timeout: T });

    // 60 more; then, while the first page is on show, one of it is decided and one is added (another window): scrolling
    // loads the rest, and what is on show is exactly the inbox — nothing skipped, nothing twice.
    const later = (await seeder.request('knowledge/sessions/create', { label: 'A later session', origin: 'chat' })).key;
    const laterIds = [];
    for (let i = 0; i < 60; i += 20) laterIds.push(...(await submit(later, manyProposals('Later finding', i, 20))));
    await waitFor(async () => /^50 of 60 shown/.test((await footer().catch(() => '')) ?? ''), { timeoutMs: T, message: 'the footer says 50 of 60 shown' });
    const decided = (await inboxIds(frame))[3];
    await seeder.request('knowledge/memory/inbox/approve', { ids: [decided] });
    const [added] = await submit(later, [proposal('fact', 'Rotate the staging certificate monthly', 'It expires after 35 days.', 1, 'Turn 1: "the cert expired again"')]);
    await scrollToEnd(frame);
    const expected = await listing();
    assert.equal(expected.length, 60);
    assert.ok(expected.includes(added) && !expected.includes(decided));
    await waitFor(async () => JSON.stringify(await inboxIds(frame)) === JSON.stringify(expected), { timeoutMs: T, message: 'the inbox on show is exactly the listing' });

    // 60 lines a pull brings, approved in the repository: their group comes after the later session's 60, partly
    // beyond the pages on show; "Accept all" records this person's acceptance of every one of them.
    const pulled = Array.from({ length: 60 }, (_, i) => ({ ...entry(`t-pull-${i}`, `Pulled rule ${i}: ${manyProposals('x', i, 1)[0].title}`, `Line ${i} from the team.`), provenance: { sourceKind: 'human', identity: 'teammate', at: OLD }, trust: { state: 'approved', approvedBy: 'teammate', approvedAt: OLD } }));
    // Back at the top (the end of the list out of view: no next page loads by itself).
    await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
    writeFileSync(memFile(), `${readFileSync(memFile(), 'utf8')}${pulled.map((e) => JSON.stringify(e)).join('\n')}\n`);
    await waitFor(async () => /^60 of 120 shown/.test((await footer().catch(() => '')) ?? ''), { timeoutMs: T, message: 'the pulled lines counted, the 60 on show kept' });
    // The keyboard reaches past the pages on show: ArrowDown on the last item loads the next page and moves on to it.
    // First the panel settles (the pull may reach it as more than one change; each reads the inbox again): the same
    // items and footer twice, 500 ms apart. (A key pressed while such a reload is in flight can be lost: noted, not
    // fixed here.)
    let last = '';
    await waitFor(async () => {
      const now = JSON.stringify([await inboxIds(frame), await footer().catch(() => '')]);
      const same = now === last;
      last = now;
      return same;
    }, { timeoutMs: T, intervalMs: 500, message: 'the inbox to settle after the pull' });
    await inboxCard(frame, expected[59]).focus();
    await page.keyboard.press('ArrowDown');
    await waitFor(async () => { const f = await focusState(frame); return f.where === 'inbox' && f.tag === 'article' && f.card?.startsWith('t-pull-'); }, { timeoutMs: T, message: 'ArrowDown past the last item on show: the first pulled line' });
    const repo = frame.locator('#inbox-list section.inbox-repository');
    await repo.getByRole('button', { name: /^Accept all 60 from the repository/ }).click();
    await waitFor(() => { const text = existsSync(join(w.state, 'trust', 'records.json')) ? readFileSync(join(w.state, 'trust', 'records.json'), 'utf8') : ''; return pulled.every((e) => text.includes(`"id": "${e.id}"`)); }, { timeoutMs: T, message: 'all 60 accepted, those never shown too' });
    await waitFor(async () => (await repo.count()) === 0, { timeoutMs: T, message: 'the repository group is gone' });
  } finally {
    await seeder.stop();
  }
}));
