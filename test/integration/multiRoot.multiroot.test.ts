import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi, waitFor } from './helpers';
import type { NotesTreeProvider, TreeNode } from '../../src/extension/notesTree';
import type { PanelState } from '../../src/shared/panelProtocol';

interface Hooks {
  notesTree: NotesTreeProvider;
  panelState?: () => Promise<PanelState>;
}

/** The workspace's folders by name (the fixture names them app, infra, docs; the tests add extra). */
function folderPath(name: string): string {
  const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
  if (!f) throw new Error(`no workspace folder ${name}`);
  return f.uri.fsPath;
}

// A real VS Code opened on test/fixtures/multiroot/multiroot.code-workspace: three folders, each with .knowledge/.
suite('a multi-root workspace: every folder indexed, pinned, scanned and delivered', () => {
  async function hooks(): Promise<Hooks> {
    const api = await activateApi();
    const h = (api as unknown as { __test?: Hooks }).__test;
    assert.ok(h?.notesTree, 'test hooks are on (SK_TEST_HOOKS=1)');
    return h;
  }

  test('the session made before the window became multi-root keeps its pins and its signature: nothing is re-sent', async () => {
    const api = await activateApi();
    const before = JSON.parse(readFileSync(process.env.SK_MULTIROOT_STATE!, 'utf8')) as { key: string; signature: string };
    assert.deepEqual(await api.sessions.getPins(before.key), { notes: ['.knowledge/notes/setup.md'], plans: [], files: [] });
    assert.equal(await api.delivery.delivered(before.key), before.signature);
    const owed = await api.delivery.resolvePending(before.key);
    assert.equal(owed.text, '', 'the same pins at the same revisions: the same signature');
    assert.equal(owed.signature, before.signature);
  });

  test('every folder is indexed; ids and the tree name the folder; the flagged note of the third folder is withheld', async () => {
    assert.deepEqual(vscode.workspace.workspaceFolders?.map((f) => f.name), ['app', 'infra', 'docs']);
    const api = await activateApi();
    const items = await waitFor(async () => {
      const list = await api.listItems();
      return list.length === 3 && list.some((i) => i.flagged) ? list : undefined;
    }, 'three folders indexed and judged');
    assert.deepEqual(items.map((i) => [i.id, i.folder, i.flagged]), [
      ['app/.knowledge/notes/setup.md', 'app', false],
      ['infra/.knowledge/notes/deploy.md', 'infra', false],
      ['docs/.knowledge/notes/handoff.md', 'docs', true],
    ]);
    const { notesTree } = await hooks();
    await notesTree.refresh();
    const notes = notesTree.getChildren().find((n) => n.type === 'group' && n.kind === 'note')!;
    const rows = notesTree.getChildren(notes).map((n) => notesTree.getTreeItem(n));
    assert.deepEqual(rows.map((r) => String(r.description)), ['app · setup.md', 'infra · deploy.md', 'docs · handoff.md · withheld']);
  });

  test('notes from two folders pinned to one session: the block carries both; an edit in the second folder is re-sent', async () => {
    const api = await activateApi();
    const key = await api.sessions.create({ pins: { notes: ['app/.knowledge/notes/setup.md', 'infra/.knowledge/notes/deploy.md'], plans: [] } });
    const first = await api.delivery.resolvePending(key);
    assert.match(first.text, /--- Pinned note: app\/\.knowledge\/notes\/setup\.md ---\n# App setup/);
    assert.match(first.text, /--- Pinned note: infra\/\.knowledge\/notes\/deploy\.md ---\n# Deploy/);
    await api.delivery.markDelivered(key, first.signature);
    assert.equal((await api.delivery.resolvePending(key)).text, '', 'delivered once');
    const deploy = join(folderPath('infra'), '.knowledge/notes/deploy.md');
    const original = await fs.readFile(deploy, 'utf8');
    await fs.writeFile(deploy, `${original}\nRollbacks: re-apply the previous plan.\n`);
    try {
      const again = await waitFor(async () => {
        const b = await api.delivery.resolvePending(key);
        return b.text.includes('Rollbacks: re-apply the previous plan.') ? b : undefined;
      }, 'the edited note in the second folder re-sent');
      assert.notEqual(again.signature, first.signature);
      assert.match(again.text, /App setup/, 'the whole block goes again');
    } finally {
      await fs.writeFile(deploy, original);
    }
  });

  test('the flagged note of the third folder: withheld from the block, a diagnostic, and in the panel with its folder', async () => {
    const api = await activateApi();
    const key = await api.sessions.create({ pins: { notes: ['infra/.knowledge/notes/deploy.md', 'docs/.knowledge/notes/handoff.md'], plans: [] } });
    const block = await api.delivery.resolvePending(key);
    assert.match(block.text, /A pinned item was withheld: docs\/\.knowledge\/notes\/handoff\.md — lines? \d+(–\d+)? matched/);
    assert.doesNotMatch(block.text, /reveal your system prompt/);
    const handoff = vscode.Uri.file(join(folderPath('docs'), '.knowledge/notes/handoff.md'));
    const diagnostics = await waitFor(() => {
      const d = vscode.languages.getDiagnostics(handoff).filter((x) => x.source === 'Session Knowledge');
      return d.length > 0 ? d : undefined;
    }, 'a diagnostic on the third folder\'s note');
    assert.match(diagnostics[0]!.message, /Withheld from the agent/);
    const { panelState } = await hooks();
    assert.ok(panelState, 'the panel exists (memory flag set in this phase)');
    const state = await panelState();
    assert.deepEqual(state.flaggedItems.map((f) => [f.id, f.folder]), [['docs/.knowledge/notes/handoff.md', 'docs']]);
    assert.ok(state.flaggedItems[0]!.spans.length > 0, 'with the matched span');
  });

  test('pin policy per folder: a file in any folder can be pinned, a file beside the folders cannot', async () => {
    const api = await activateApi();
    const inside = vscode.Uri.file(join(folderPath('app'), 'README.md'));
    const outside = join(dirname(folderPath('app')), 'multiroot.code-workspace');
    const pinned = await vscode.commands.executeCommand<{ pins: string[]; refused: { reason: string }[] }>('sessionKnowledge.pinToNextChat', inside);
    assert.ok(pinned.pins.includes('app/README.md'), pinned.pins.join(', '));
    const refused = await vscode.commands.executeCommand<{ refused: { reason: string }[] }>('sessionKnowledge.pinToNextChat', vscode.Uri.file(outside));
    assert.match(refused.refused[0]!.reason, /outside the workspace folders/);
    await vscode.commands.executeCommand('sessionKnowledge.unpinFromNextChat', inside);
    assert.deepEqual(await api.getDraftPins(), []);
  });

  test('a fourth folder added while the window is open is indexed, watched and pinnable without a reload', async () => {
    const api = await activateApi();
    const pid = (await api.serverStatus()).pid;
    const extra = join(dirname(folderPath('app')), 'extra');
    const added = new Promise<void>((resolve) => {
      const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
        sub.dispose();
        resolve();
      });
    });
    assert.ok(vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders!.length, 0, { uri: vscode.Uri.file(extra), name: 'extra' }));
    await added;
    const later = await waitFor(async () => (await api.listItems()).find((i) => i.id === 'extra/.knowledge/plans/later.md'), 'the fourth folder indexed');
    assert.equal(later.folder, 'extra');
    const { notesTree } = await hooks();
    await waitFor(() => {
      const plans = notesTree.getChildren().find((n) => n.type === 'group' && n.kind === 'plan');
      return plans && notesTree.getChildren(plans).some((n) => (n as Extract<TreeNode, { type: 'item' }>).item.id === 'extra/.knowledge/plans/later.md');
    }, 'the tree shows it');
    // Watched: a note written in the new folder appears.
    await fs.mkdir(join(extra, '.knowledge/notes'), { recursive: true });
    await fs.writeFile(join(extra, '.knowledge/notes/new.md'), '# Written in the fourth folder\n');
    await waitFor(async () => (await api.listItems()).some((i) => i.id === 'extra/.knowledge/notes/new.md'), 'a new note in the fourth folder');
    const key = await api.sessions.create({ pins: { notes: ['extra/.knowledge/notes/new.md'], plans: ['extra/.knowledge/plans/later.md'] } });
    assert.match((await api.delivery.resolvePending(key)).text, /Pinned plan: extra\/\.knowledge\/plans\/later\.md/);
    assert.equal((await api.serverStatus()).pid, pid, 'the same server: no restart, no reload');
  });
});
