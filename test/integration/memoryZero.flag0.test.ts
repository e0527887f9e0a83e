/**
 * Phase "flag0" (scripts/run-vscode-tests.mjs): SESSION_KNOWLEDGE_MEMORY_ENABLE=0 in a folder without
 * `.knowledge/`. `0` means absent, in the extension and in the server alike; and the extension, though active,
 * starts no language-server process until something needs one.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as vscode from 'vscode';
import { activateApi, waitFor } from './helpers';
import { assertMemoryAbsent, assertNoMemoryRoutes, hooksOf } from './memoryAbsent';

const STOPPED = 1;
const RUNNING = 2;

/** Child processes of this extension host running our dist/server.js (Linux: /proc). */
function serverChildren(): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dist/server.js')) pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

suite('SESSION_KNOWLEDGE_MEMORY_ENABLE=0: memory is absent, and no server starts before it is needed', () => {
  test('a folder without .knowledge/: active extension, no server process', async function () {
    assert.equal(process.env.SESSION_KNOWLEDGE_MEMORY_ENABLE, '0', 'this phase runs with the flag set to 0');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder && !existsSync(`${folder.uri.fsPath}/.knowledge`), 'this phase opens a folder without .knowledge/');
    const api = await activateApi();
    assert.equal(hooksOf(api).serverState(), STOPPED, 'the client has not started the server');
    if (existsSync('/proc')) assert.deepEqual(serverChildren(), [], 'no dist/server.js process under the extension host');
  });

  test('=0 means absent in the extension: no memory tools, no api.memory, no memory commands, context key false', async () => {
    await assertMemoryAbsent(await activateApi());
  });

  test('=0 means absent in the server: memory requests answer MethodNotFound (the first request starts it)', async () => {
    const api = await activateApi();
    await assertNoMemoryRoutes(api);
    assert.equal(hooksOf(api).serverState(), RUNNING);
    if (existsSync('/proc')) await waitFor(() => serverChildren().length === 1, 'one dist/server.js process under the extension host');
  });
});
