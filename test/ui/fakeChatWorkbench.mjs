// One workbench with VS Code's real Chat view and the fake model fixture (test/fixtures/extensions/fake-model,
// packaged with vsce and installed as a regular extension; its models record every request in SK_FAKE_MODEL_LOG and
// obey SK_FAKE_MODEL_CONTROL), for a UI test file whose cases run in order on it. See test/ui/chat.test.mjs.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import {
  QUIET_SETTINGS, copyDir, extensionId, installVsix, launchBrowser, newWorkbenchPage, openChat, packageExtension, repoRoot,
  sendChat, startCodeServer, tempDir, waitForChatAnswer, workbenchUrl, writeUserSettings,
} from '../../scripts/vscodeWeb.mjs';
import { readSessionsStore } from './panelShared.mjs';

const resultsDir = join(repoRoot, 'test-results');
const fixture = join(repoRoot, 'test/fixtures/extensions/fake-model');

/**
 * Registers `before` (a workspace copied from test/fixtures/workspace with `files` written into it, code-server, a
 * browser, the Chat view open) and `after` (everything stopped and removed). `env`: more for the extension host.
 * Answers the workbench's parts (filled in by `before`) and helpers: `step` (a case whose failure leaves a screenshot),
 * `ask` (a message the model gets once), `requests`, `sessions`, `store`, `meter`, `shot`.
 */
export function fakeChatWorkbench({ prefix, files = {}, env = {}, viewport = { width: 1400, height: 900 } }) {
  const w = { scratch: '', workspace: '', userDataDir: '', server: undefined, browser: undefined, page: undefined, log: '' };
  w.requests = () => (existsSync(w.log) ? readFileSync(w.log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  /** The server's sessions store (src/server/core/store/sessionStore.ts): the next-chat draft and every session. */
  w.store = () => {
    const key = createHash('sha256').update(w.workspace).digest('hex').slice(0, 16);
    return readSessionsStore(join(w.userDataDir, 'User/globalStorage/sessionknowledge.session-knowledge/workspaces', key, 'sessions.json'));
  };
  w.sessions = () => Object.values(w.store().sessions);
  w.meter = (labelStart) => w.page.locator(`.part.statusbar [aria-label^="Session Knowledge: ${labelStart}"]`).first();
  w.shot = async (name, dir = resultsDir) => {
    mkdirSync(dir, { recursive: true });
    await w.page.screenshot({ path: join(dir, name) });
  };
  /** Sends a message that goes to the model; answers the one request the model got for it and what the view shows. */
  w.ask = async (text, { answer = 'fake answer' } = {}) => {
    const count = w.requests().length;
    await sendChat(w.page, `@knowledge ${text}`);
    const shown = await waitForChatAnswer(w.page, answer);
    const sent = w.requests().slice(count);
    assert.equal(sent.length, 1, `the model got ${sent.length} request(s) for "${text}"`);
    return { last: sent[0], shown };
  };
  let cases = 0;
  w.step = (name, fn) => {
    const n = ++cases;
    it(name, async () => {
      try {
        await fn();
      } catch (e) {
        await w.shot(`${prefix}FAILED-${n}.png`).catch(() => {});
        throw e;
      }
    });
  };

  before(async () => {
    w.scratch = tempDir(`sk-ui-${prefix}`);
    w.workspace = copyDir(join(repoRoot, 'test/fixtures/workspace'), join(w.scratch, 'workspace'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(w.workspace, path, '..'), { recursive: true });
      writeFileSync(join(w.workspace, path), text);
    }
    w.userDataDir = join(w.scratch, 'user-data');
    const extensionsDir = join(w.scratch, 'extensions');
    writeUserSettings(w.userDataDir, QUIET_SETTINGS);
    installVsix(packageExtension(fixture, w.scratch), { extensionsDir, userDataDir: w.userDataDir });
    w.log = join(w.scratch, 'requests.jsonl');
    const controlFile = join(w.scratch, 'control.json');
    writeFileSync(controlFile, JSON.stringify({ mode: 'ok' }));
    w.server = await startCodeServer({
      folder: w.workspace, userDataDir: w.userDataDir, extensionsDir,
      env: { SK_FAKE_MODEL_LOG: w.log, SK_FAKE_MODEL_CONTROL: controlFile, SK_TEST_HOOKS: '1', SESSION_KNOWLEDGE_STATE_DIR: `${w.userDataDir}-sk-state`, ...env },
      extraArgs: ['--enable-proposed-api', extensionId(fixture)],
    });
    w.browser = await launchBrowser();
    w.page = await newWorkbenchPage(w.browser, viewport);
    await w.page.goto(workbenchUrl(w.server, { folder: w.workspace, extensionDevelopmentPaths: [repoRoot] }));
    await w.meter('nothing pinned').waitFor({ timeout: 90_000 });
    await openChat(w.page);
  });

  after(async () => {
    await w.browser?.close().catch(() => {});
    await w.server?.stop();
    if (w.scratch) rmSync(w.scratch, { recursive: true, force: true });
  });
  return w;
}
