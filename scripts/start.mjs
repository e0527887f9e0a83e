// `npm start`: builds the extension, serves a real VS Code (1.100.3 web workbench via code-server) on
// 127.0.0.1 with the extension loaded from this repository, on a demo workspace (.demo-workspace/, created
// with sample notes and plans if missing), and prints the URL to open. Runs until Ctrl-C.
//
// The demo model (demo/demo-model, development only, never in the .vsix) is installed by default: it makes
// VS Code's Chat view appear and gives it an offline model that answers by showing what it received, so
// `@knowledge` can be watched delivering the pinned knowledge once, and again after an edit.
//
//   npm start                     # build, serve, print the URL
//   npm start -- --no-demo-model  # without the demo model (and so without the Chat view)
//   npm start -- --check          # same, in a throwaway copy of the demo workspace and profile, then open the
//                                 # URL in headless Chromium: the "Session Knowledge" view lists the demo notes,
//                                 # and (with the demo model) a note pinned to the next chat rides with the first
//                                 # @knowledge message (screenshot test-results/chat-exchange.png); exit 0
//   npm start -- --no-build       # skip `npm run build`
//   SESSION_KNOWLEDGE_MEMORY_ENABLE=1 npm start    # passed through to the extension host
//
// The user-data-dir (.vscode-test/demo-user-data) is kept between runs, so settings you change stay. The port is
// this clone's own (scripts/demoPort.mjs: derived from its path) while it is free, so the URL stays the same too.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { pinFromEditorTitle } from '../test/ui/pinMenu.mjs';
import {
  QUIET_SETTINGS, activityBarItem, cleanupAll, ensureInstalled, extensionId, installVsix, launchBrowser, newWorkbenchPage,
  openChat, openFile, packageExtension, repoRoot, sendChat, sideBarTreeItem, startCodeServer, tempDir, uninstallExtension,
  waitForChatAnswer, workbenchUrl, writeUserSettings,
} from './vscodeWeb.mjs';
import { demoPort } from './demoPort.mjs';

const { values: opts } = parseArgs({ options: { check: { type: 'boolean' }, 'no-build': { type: 'boolean' }, 'no-demo-model': { type: 'boolean' } } });
const say = (msg) => console.log(`[start] ${msg}`);
const demoModel = join(repoRoot, 'demo/demo-model');
const withDemoModel = !opts['no-demo-model'];
// --check runs in a throwaway copy: it pins and chats, and must not touch your demo workspace or profile.
const scratch = opts.check ? tempDir('sk-start-check-') : undefined;
const workspace = scratch ? join(scratch, 'workspace') : join(repoRoot, '.demo-workspace');
const userDataDir = scratch ? join(scratch, 'user-data') : join(repoRoot, '.vscode-test/demo-user-data');
const extensionsDir = scratch ? join(scratch, 'extensions') : join(repoRoot, '.vscode-test/demo-extensions');

if (!opts['no-build']) {
  say('npm run build');
  const r = spawnSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) { say('build failed'); process.exit(1); }
}
if (!existsSync(join(repoRoot, 'dist/extension.js'))) { say('dist/extension.js is missing: the build did not produce it'); process.exit(1); }
ensureInstalled();
createDemoWorkspace(workspace);
if (!existsSync(join(userDataDir, 'User/settings.json'))) writeUserSettings(userDataDir, QUIET_SETTINGS);
mkdirSync(extensionsDir, { recursive: true });
setUpDemoModel();

// One port per clone when it is free (the same URL every start); --check runs beside a running demo on any free port.
const chosen = opts.check ? undefined : await demoPort(repoRoot);
const server = await startCodeServer({
  ...(chosen ? { port: chosen.port } : {}),
  folder: workspace,
  userDataDir,
  extensionsDir,
  extraArgs: withDemoModel ? ['--enable-proposed-api', extensionId(demoModel)] : [],
  onOutput: (line) => { if (process.env.SK_VERBOSE) console.log(`[code-server] ${line}`); },
});
const url = workbenchUrl(server, {
  folder: workspace,
  extensionDevelopmentPaths: [repoRoot],
  // kept in the clone (not a new temp folder each start), so the URL is the same as long as the port is
  ...(scratch ? {} : { extensionDevelopmentFolder: join(repoRoot, '.vscode-test/demo-dev-extensions') }),
});
const memory = process.env.SESSION_KNOWLEDGE_MEMORY_ENABLE ? `set (${process.env.SESSION_KNOWLEDGE_MEMORY_ENABLE})` : 'unset';

if (opts.check) {
  process.exitCode = await check(url) ? 0 : 1;
  await cleanupAll();
  rmSync(scratch, { recursive: true, force: true });
  process.exit(process.exitCode);
}

console.log(`
  Session Knowledge in VS Code ${'1.100.3'} (web) — workspace ${workspace}
  SESSION_KNOWLEDGE_MEMORY_ENABLE: ${memory}
  ${withDemoModel
    ? `Chat: the offline demo model (demo/demo-model) shows what @knowledge sent it. Pin a note (the pin on its
  editor's title bar), open Chat (Ctrl+Alt+I), ask "@knowledge …", ask again, edit the note, ask again.
  Without it: npm start -- --no-demo-model`
    : 'Chat: no demo model (--no-demo-model), so no Chat view; pins and the knowledge block preview still work.'}

  Open this URL (it loads the extension from ${repoRoot}; ${chosen?.stable
    ? `port ${chosen.port} is this clone's, so the URL stays the same from one start to the next`
    : `this clone's port ${chosen?.taken} is in use, so this time it is ${server.port}`}):

    ${url}

  Ctrl-C to stop. After \`npm run build\` in another terminal, reload the page (Developer: Reload Window).
`);
process.exitCode = 0; // Ctrl-C is the normal way to stop: exit 0 after cleaning up
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { stopping = true; say('stopping…'); });
server.child.once('exit', (code, signal) => {
  if (stopping) return;
  say(`code-server exited unexpectedly (${code ?? signal}); last output:\n${server.output.slice(-20).join('\n')}`);
  process.exitCode = 1;
  void cleanupAll().finally(() => process.exit(1));
});

/**
 * Installs the demo model into the extensions folder like any extension (a .vsix), again only when its files
 * changed; with --no-demo-model, takes it out.
 */
function setUpDemoModel() {
  const id = extensionId(demoModel);
  const installed = () => readdirSync(extensionsDir).some((d) => d.startsWith(`${id}-`));
  const stamp = join(extensionsDir, '.demo-model-stamp');
  if (!withDemoModel) {
    if (installed()) {
      say('taking the demo model out (--no-demo-model)');
      uninstallExtension(id, { extensionsDir, userDataDir });
      rmSync(stamp, { force: true });
    }
    return;
  }
  const hash = createHash('sha256');
  for (const f of ['package.json', 'extension.js']) hash.update(readFileSync(join(demoModel, f)));
  const digest = hash.digest('hex');
  if (installed() && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  say('installing the demo model (demo/demo-model)');
  const out = tempDir('sk-demo-model-');
  try {
    installVsix(packageExtension(demoModel, out), { extensionsDir, userDataDir, force: true });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  writeFileSync(stamp, digest);
}

/**
 * Opens the workbench in headless Chromium and waits for our activity-bar item and the demo notes; with the
 * demo model, pins a note to the next chat, sends the first @knowledge message and checks that the note rode
 * with it (the answer, the footer and the status bar), then saves test-results/chat-exchange.png.
 */
async function check(workbench) {
  const started = Date.now();
  const browser = await launchBrowser();
  const page = await newWorkbenchPage(browser, { width: 1400, height: 1000 });
  const results = join(repoRoot, 'test-results');
  let shot = join(results, 'start-check.png');
  mkdirSync(results, { recursive: true });
  try {
    await page.goto(workbench);
    const item = activityBarItem(page, 'Session Knowledge');
    await item.waitFor({ state: 'visible', timeout: 60_000 });
    await item.click();
    await sideBarTreeItem(page, 'Architecture overview').waitFor({ state: 'visible', timeout: 60_000 });
    await page.screenshot({ path: shot });
    say(`the workbench loaded the extension and lists the demo notes (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    if (withDemoModel) {
      shot = join(results, 'chat-exchange.png');
      const meter = (label) => page.locator(`.part.statusbar [aria-label^="Session Knowledge: ${label}"]`).first();
      await openFile(page, '.knowledge/notes/coding-conventions.md');
      await pinFromEditorTitle(page, 'Pin to Next Chat');
      await meter('1 pinned · next chat').waitFor({ timeout: 30_000 });
      await openChat(page);
      await widenChat(page);
      await sendChat(page, '@knowledge How do I add a column to the invoices table?');
      const answer = await waitForChatAnswer(page, 'Session knowledge: delivered 1 pinned item with this message');
      for (const expected of ['Demo model (offline)', 'Knowledge block with this message: yes', 'note .knowledge/notes/coding-conventions.md', 'Withheld or unavailable: nothing']) {
        if (!answer.includes(expected)) throw new Error(`the demo model's answer lacks "${expected}":\n${answer}`);
      }
      await meter('1 pinned · delivered (this chat “How do I add a column').waitFor({ timeout: 30_000 });
      // The whole exchange in the picture: the list scrolled to its end (the footer), no hover.
      const scrollDown = page.locator('.interactive-session .chat-scroll-down').first();
      if (await scrollDown.isVisible()) await scrollDown.click();
      await page.locator('.interactive-list .monaco-list-row[data-last-element="true"] .chat-footer-toolbar').first().waitFor({ timeout: 5_000 }).catch(() => {});
      await page.mouse.move(5, 5);
      await page.waitForTimeout(300); // the scroll settles
      await page.screenshot({ path: shot });
      say(`the Chat view's first @knowledge message carried the pinned note to the demo model (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    say(`check passed in ${((Date.now() - started) / 1000).toFixed(1)} s (${shot})`);
    return true;
  } catch (e) {
    await page.screenshot({ path: shot }).catch(() => {});
    say(`check FAILED: ${e instanceof Error ? e.message : e} (screenshot ${shot})`);
    return false;
  } finally {
    await browser.close().catch(() => {});
  }
}

/** Hides the side bar and drags the sash between the editor and the Chat view so the chat takes about half the window. */
async function widenChat(page) {
  await page.keyboard.press('Control+B');
  await page.locator('.part.sidebar').waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
  const chat = await page.locator('.part.auxiliarybar').boundingBox();
  const viewport = page.viewportSize();
  if (!chat || !viewport) return;
  await page.mouse.move(chat.x + 1, chat.y + chat.height / 2);
  await page.mouse.down();
  await page.mouse.move(viewport.width * 0.45, chat.y + chat.height / 2, { steps: 5 });
  await page.mouse.up();
}

function createDemoWorkspace(workspace) {
  if (existsSync(join(workspace, '.knowledge'))) return;
  say(`creating demo workspace ${workspace}`);
  const files = {
    'README.md': `# Ledgerline

A small invoicing service: a REST API (Node 20, Fastify, PostgreSQL) and a job runner that sends
invoices and payment reminders. This folder is the demo workspace of Session Knowledge: open the
"Session Knowledge" view in the activity bar to see its notes and plans.

The Chat view (Ctrl+Alt+I) greets you with "Ask Copilot… Copilot is powered by AI": that text is VS Code's own.
No Copilot is installed here and nothing leaves this machine: the offline "demo model" answers instead, and it
does not answer your question — it shows what \`@knowledge\` sent it (the knowledge block, attachments, tools).
`,
    '.knowledge/notes/architecture.md': `# Architecture overview

Ledgerline is two processes that share one PostgreSQL database.

## API (\`services/api\`)

- Fastify 4, one plugin per resource: \`customers\`, \`invoices\`, \`payments\`.
- Every request is validated with a JSON schema at the route; handlers never see unchecked input.
- Money is stored as integer minor units (\`amount_cents\`) with an ISO 4217 \`currency\` column.
  Never use floating point for amounts.

## Job runner (\`services/jobs\`)

- Polls the \`jobs\` table with \`SELECT … FOR UPDATE SKIP LOCKED\`; at most 8 jobs at once.
- Jobs are idempotent: each carries an \`idempotency_key\`, and the e-mail provider receives it too.
- A failed job is retried with exponential back-off (1 min, 5 min, 30 min, 2 h), then parked.

## Data flow for an invoice

1. \`POST /invoices\` writes the invoice in state \`draft\`.
2. \`POST /invoices/:id/send\` moves it to \`sent\` and enqueues \`send-invoice\`.
3. The runner renders the PDF, e-mails it, and records the provider's message id.
4. Webhooks from the payment provider move it to \`paid\` (\`POST /webhooks/payments\`).
`,
    '.knowledge/notes/coding-conventions.md': `# Coding conventions

- TypeScript strict mode everywhere; no \`any\` in exported signatures.
- Errors: throw \`AppError(code, message)\` from domain code; the API maps codes to HTTP statuses in one
  place (\`services/api/src/errors.ts\`). Never send stack traces to clients.
- Database access only through the repositories in \`packages/db\`; no SQL in route handlers.
- Migrations are forward-only and must run on a live database: add columns as nullable, backfill in a
  job, then add the constraint in a later release.
- Tests: unit tests beside the code (\`*.test.ts\`), API tests in \`services/api/test\` against a real
  PostgreSQL started by \`npm run db:test\`.
- Commit messages: imperative mood, a short subject, and the why in the body.
`,
    '.knowledge/notes/glossary.md': `# Glossary

| term | meaning |
|---|---|
| draft | an invoice that can still be edited; no number assigned yet |
| invoice number | assigned when an invoice is sent: \`LL-<year>-<sequence>\`, never reused |
| dunning | the reminder sequence for an overdue invoice (7, 14 and 30 days after the due date) |
| credit note | a negative invoice that cancels all or part of a sent invoice |
`,
    '.knowledge/plans/release-0-9.md': `# Release 0.9: partial payments

## Goal

Customers can pay an invoice in several instalments; the invoice shows what is still due, and
reminders stop once it is fully paid.

## Steps

- [x] Add \`payments.amount_cents\` and allow several payments per invoice
- [x] Compute \`amount_due_cents\` in the invoice repository
- [ ] Show instalments on the invoice PDF
- [ ] Dunning: skip reminders when \`amount_due_cents = 0\`
- [ ] Webhook: handle the provider's \`payment.partially_refunded\` event
- [ ] Release notes and a migration guide for API clients
`,
    '.knowledge/plans/tech-debt.md': `# Tech debt, next quarter

## Goal

Cut the job runner's p95 latency in half and remove the last raw SQL from route handlers.

## Steps

- [ ] Replace the PDF renderer's headless browser with a template renderer
- [ ] Move \`reports.ts\` queries into \`packages/db\`
- [ ] Add an index on \`jobs (state, run_at)\`
`,
  };
  for (const [rel, text] of Object.entries(files)) {
    const file = join(workspace, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}
