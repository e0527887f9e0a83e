import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi, waitFor } from './helpers';
import type { PanelState } from '../../src/shared/panelProtocol';

/** The workspace's folders by name (the fixture names them app, infra, docs; the tests add extra). */
function folderPath(name: string): string {
  const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
  if (!f) throw new Error(`no workspace folder ${name}`);
  return f.uri.fsPath;
}

const memoryFile = (folder: string) => join(folderPath(folder), '.knowledge', 'memory.jsonl');

/** One approved line, as a teammate's commit (or a pull) brings it. */
function committedLine(id: string, title: string): string {
  const at = '2026-05-02T10:00:00.000Z';
  return `${JSON.stringify({ id, scope: 'project', type: 'fact', title, body: '', tags: [], importance: 'high', confidence: 1, provenance: { sourceKind: 'human', identity: 'teammate', at }, trust: { state: 'approved', approvedBy: 'teammate', approvedAt: at }, createdAt: at, updatedAt: at, wrongFlags: [] })}\n`;
}

// The same real VS Code on test/fixtures/multiroot/multiroot.code-workspace: each folder's .knowledge/memory.jsonl is
// that folder's project memory (app and infra hold an approved entry, docs a committed attack, extra one more).
suite('a multi-root workspace: project memory per folder', () => {
  async function panelState(): Promise<PanelState> {
    const api = await activateApi();
    const h = (api as unknown as { __test?: { panelState?: () => Promise<PanelState> } }).__test;
    assert.ok(h?.panelState, 'test hooks are on and the panel exists');
    return h.panelState();
  }

  test('with memory off, the attack committed to the third folder\'s memory.jsonl is shown flagged, with its folder', async () => {
    const api = await activateApi();
    assert.ok(api.memory, 'memory exists in this phase (flag set)');
    await api.memory.setEnabled(false);
    const state = await waitFor(async () => {
      const s = await panelState();
      return s.memory.flagged.length > 0 ? s : undefined;
    }, 'the flagged memory entry in the panel');
    assert.deepEqual(state.memory.flagged.map((r) => [r.entry.id, r.entry.folder]), [['mem_docs_poison', 'docs']]);
    assert.ok(state.memory.flagged[0]!.spans.length > 0, 'with the matched span');
  });

  test('with memory on: every folder\'s entries listed with their folder, one status row per folder, the block\'s index names the folder and leaves the attack out', async () => {
    const api = await activateApi();
    await api.memory!.setEnabled(true);
    const entries = await waitFor(async () => {
      const list = await api.memory!.list({ scope: 'project' });
      return list.some((e) => e.id === 'mem_infra_state') ? list : undefined;
    }, 'project memory of every folder');
    const byId = new Map(entries.map((e) => [e.id, e]));
    assert.equal(byId.get('mem_app_pnpm')?.folder, 'app');
    assert.equal(byId.get('mem_infra_state')?.folder, 'infra');
    assert.equal(byId.get('mem_docs_poison')?.folder, 'docs');
    assert.equal(byId.get('mem_docs_poison')?.flagged, true);
    assert.deepEqual((await api.memory!.list({ folder: 'infra' })).map((e) => e.id), ['mem_infra_state']);

    const state = await panelState();
    const rows = state.memory.status?.scopes.filter((r) => r.scope === 'project') ?? [];
    assert.deepEqual(rows.slice(0, 3).map((r) => r.folder), ['app', 'infra', 'docs']);
    assert.equal(rows[1]!.path, memoryFile('infra'));

    // The teammates' committed entries count for this person once accepted (the committed approval is only their claim).
    assert.equal(byId.get('mem_app_pnpm')?.repositoryClaim?.approvedBy, 'dev', 'the fixture\'s committer');
    await api.memory!.approve('mem_app_pnpm');
    await api.memory!.approve('mem_infra_state');
    const key = await api.sessions.create({ pins: { notes: ['app/.knowledge/notes/setup.md'], plans: [] } });
    const block = await waitFor(async () => {
      const b = await api.delivery.resolvePending(key);
      return b.text.includes('mem_infra_state') ? b : undefined;
    }, 'the memory index in the block');
    assert.match(block.text, /\[fact\] App builds with pnpm workspaces \(id mem_app_pnpm, folder app\)/);
    assert.match(block.text, /\[fact\] Terraform state lives in the tf-state S3 bucket \(id mem_infra_state, folder infra\)/);
    assert.doesNotMatch(block.text, /mem_docs_poison|evil\.example/, 'the flagged entry never reaches the model');
  });

  test('a write naming the second folder lands in that folder\'s memory.jsonl, and travels with that repository', async () => {
    const api = await activateApi();
    const before = await fs.readFile(memoryFile('app'), 'utf8');
    const { id } = await api.memory!.remember({ scope: 'project', folder: 'infra', type: 'lesson', title: 'Run terraform plan before every apply', body: '', source: 'human' });
    assert.match(await fs.readFile(memoryFile('infra'), 'utf8'), new RegExp(`"id":"${id}"`));
    assert.equal(await fs.readFile(memoryFile('app'), 'utf8'), before, 'the first folder\'s file is untouched');
    const made = (await api.memory!.list({ folder: 'infra' })).find((e) => e.id === id);
    assert.equal(made?.folder, 'infra');
    await assert.rejects(api.memory!.remember({ scope: 'project', folder: 'nowhere', type: 'fact', title: 'x', body: '', source: 'human' }), /No workspace folder is named "nowhere"/);
  });

  test('a line a teammate\'s pull adds to the second folder\'s memory.jsonl is loaded, judged and listed without a reload', async () => {
    const api = await activateApi();
    await fs.appendFile(memoryFile('infra'), committedLine('mem_infra_pulled', 'Staging lives in eu-west-1'));
    const pulled = await waitFor(async () => (await api.memory!.list({ folder: 'infra' })).find((e) => e.id === 'mem_infra_pulled'), 'the pulled entry');
    assert.equal(pulled.folder, 'infra');
    assert.equal(pulled.flagged, false);
    assert.equal(pulled.repositoryClaim?.approvedBy, 'teammate', 'from the repository: waiting for this person to accept it');
    assert.equal(await api.memory!.read('mem_infra_pulled'), undefined, 'no model reads it until accepted');
  });

  test('a folder added at run time brings its project memory; removed, its entries leave', async () => {
    const api = await activateApi();
    const extra = join(dirname(folderPath('app')), 'extra');
    const change = () =>
      new Promise<void>((resolve) => {
        const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
          sub.dispose();
          resolve();
        });
      });
    if (!vscode.workspace.workspaceFolders!.some((f) => f.name === 'extra')) {
      const added = change();
      assert.ok(vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders!.length, 0, { uri: vscode.Uri.file(extra), name: 'extra' }));
      await added;
    }
    const go = await waitFor(async () => (await api.memory!.list({ scope: 'project' })).find((e) => e.id === 'mem_extra_go'), 'the fourth folder\'s memory');
    assert.equal(go.folder, 'extra');
    const index = vscode.workspace.workspaceFolders!.findIndex((f) => f.name === 'extra');
    const removed = change();
    assert.ok(vscode.workspace.updateWorkspaceFolders(index, 1));
    await removed;
    await waitFor(async () => !(await api.memory!.list({ scope: 'project' })).some((e) => e.id === 'mem_extra_go'), 'the removed folder\'s memory gone');
    assert.ok((await api.memory!.list({ scope: 'project' })).some((e) => e.id === 'mem_infra_state'), 'the other folders keep theirs');
  });
});
