/**
 * Commands on notes, plans and pins: create, pin and unpin (next chat, active session), accept the repository's reviews,
 * refresh, store health. Each works from the tree, the editor title, the Explorer and the keyboard alone.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  AcceptRepositoryReviewRequest,
  AcceptRepositoryReviewsRequest,
  CreateItemRequest,
  RepositoryReviewsRequest,
  ReindexRequest,
  StatsRequest,
  UpdateDraftPinsRequest,
  UpdateSessionPinsRequest,
} from '../shared/protocol';
import type { KnowledgeItem, KnowledgeKind, Stats } from '../shared/schemas';
import type { TreeNode } from './notesTree';
import type { KnowledgeFolders } from './knowledgeFolders';

export interface KnowledgeCommandDeps {
  client: LanguageClient;
  output: vscode.LogOutputChannel;
  folder: vscode.WorkspaceFolder | undefined;
  /** Every folder of the workspace, by the names ids start with. */
  folders?: KnowledgeFolders;
  /** The indexed notes and plans and the draft as the tree last read them. */
  items: () => readonly KnowledgeItem[];
  draftPins: () => readonly string[];
  activeSession: () => string | undefined;
  activeSessionPins: () => Promise<string[]>;
  refresh: () => Promise<void>;
}

/** Asks "are you sure?" with Cancel first and selected, so that Enter never confirms by accident. */
export async function confirmSafely(title: string, confirmLabel: string, detail: string): Promise<boolean> {
  if (testConfirmations.length > 0) return testConfirmations.shift()!;
  const cancel: vscode.QuickPickItem = { label: '$(close) Cancel', detail: 'Change nothing' };
  const confirm: vscode.QuickPickItem = { label: confirmLabel, detail };
  const picked = await vscode.window.showQuickPick([cancel, confirm], { title, placeHolder: 'Cancel is selected: choose the second entry to go ahead', ignoreFocusOut: true });
  return picked === confirm;
}

/** Tests only (SK_TEST_HOOKS): the answers the next confirmations get, in order, instead of asking. */
export const testConfirmations: boolean[] = [];

export function registerKnowledgeCommands(context: vscode.ExtensionContext, deps: KnowledgeCommandDeps): void {
  const { client: lc, output, folder } = deps;

  /** The folder to act in: the only one, or the one the person picks when the workspace has several (undefined: cancelled). */
  const pickFolder = async (placeHolder: string): Promise<{ name: string; path: string } | undefined> => {
    const all = deps.folders?.folders ?? [];
    if (all.length <= 1) return all[0] ?? (folder ? { name: folder.name, path: folder.uri.fsPath } : undefined);
    const picked = await vscode.window.showQuickPick(
      all.map((f) => ({ label: f.name, description: f.path, folder: f })),
      { placeHolder, matchOnDescription: true },
    );
    return picked?.folder;
  };

  const create = async (kind: KnowledgeKind, folderName?: string) => {
    if (!folder) {
      void vscode.window.showWarningMessage('Open a folder first: notes and plans live in its .knowledge/ folder.');
      return undefined;
    }
    // In a workspace of several folders the note goes into one of them: the one named, else the one picked.
    const target = deps.folders?.multi ? (typeof folderName === 'string' ? { name: folderName } : await pickFolder(`The workspace folder to create the ${kind} in`)) : undefined;
    if (deps.folders?.multi && !target) return undefined;
    const title = await vscode.window.showInputBox({
      title: kind === 'note' ? 'New Note' : 'New Plan',
      prompt: `Title of the ${kind}; it becomes the file's first heading`,
      placeHolder: kind === 'note' ? 'e.g. Coding conventions' : 'e.g. Release 1.2',
      validateInput: (v) => (v.trim() === '' ? 'A title is required' : v.length > 200 ? 'At most 200 characters' : undefined),
    });
    if (title === undefined) return undefined;
    const item = await lc.sendRequest(CreateItemRequest.type, { kind, title: title.trim(), ...(target ? { folder: target.name } : {}) });
    await deps.refresh();
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(item.path), { preview: false });
    // The cursor goes to the first body line, below the heading, ready to type.
    const doc = editor.document;
    // `# Title`, a blank line, then the body (a plan's first section heading is skipped too).
    let body = Math.min(doc.lineCount - 1, 2);
    if (doc.lineAt(body).text.startsWith('#')) body = Math.min(doc.lineCount - 1, body + 1);
    const end = doc.lineAt(body).range.end;
    editor.selection = new vscode.Selection(end, end);
    return item.id;
  };

  /** Lets the person choose notes and plans (the draft's pins marked) when a pin command has no target. */
  const pickItems = (title: string, candidates: readonly string[]): Promise<string[] | undefined> =>
    pickKnowledgeItems(deps.items(), title, candidates, {
      empty: title.startsWith('Unpin') ? 'Nothing is pinned.' : 'There are no notes or plans yet: create one with Session Knowledge: New Note.',
      withheld: 'withheld',
    });

  /** Runs a change, refreshes the views, and tells the person why when it was refused. */
  const attempt = async <T>(refused: string, change: () => Promise<T>): Promise<T | undefined> => {
    try {
      const result = await change();
      await deps.refresh();
      return result;
    } catch (err) {
      void vscode.window.showWarningMessage(`${refused}: ${(err as Error).message}`);
      return undefined;
    }
  };

  const updateDraft = async (change: { add?: string[]; remove?: string[] }) => {
    const result = await lc.sendRequest(UpdateDraftPinsRequest.type, change);
    for (const r of result.refused) void vscode.window.showWarningMessage(`Not pinned: ${r.reason}.`);
    await deps.refresh();
    return result;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.newNote', (folderName?: unknown) => create('note', typeof folderName === 'string' ? folderName : undefined)),
    vscode.commands.registerCommand('sessionKnowledge.newPlan', (folderName?: unknown) => create('plan', typeof folderName === 'string' ? folderName : undefined)),
    vscode.commands.registerCommand('sessionKnowledge.pinToNextChat', async (target?: unknown, selection?: unknown) => {
      const draft = new Set(deps.draftPins());
      const refs = pinRefs(target, selection) ?? (await pickItems('Pin to Next Chat', deps.items().map((i) => i.id).filter((id) => !draft.has(id))));
      if (!refs) return undefined;
      const result = await updateDraft({ add: refs });
      if (result.refused.length === 0) vscode.window.setStatusBarMessage(`$(arrow-right) Pinned to the next chat: ${refs.map((r) => vscode.workspace.asRelativePath(r)).join(', ')}`, 4000);
      return result;
    }),
    vscode.commands.registerCommand('sessionKnowledge.unpinFromNextChat', async (target?: unknown, selection?: unknown) => {
      const refs = pinRefs(target, selection) ?? (await pickItems('Unpin from Next Chat', deps.draftPins()));
      if (!refs) return undefined;
      return updateDraft({ remove: refs });
    }),
    // sessionKnowledge.markReviewed (per finding) and removeFlaggedLines: flaggedRemedy.ts.
    // The repository's review (the team's record in .knowledge/reviews.json) counts for this person only once accepted.
    vscode.commands.registerCommand('sessionKnowledge.acceptRepositoryReview', async (id?: string, revision?: string) => {
      if (typeof id !== 'string' || typeof revision !== 'string') return vscode.commands.executeCommand('sessionKnowledge.acceptRepositoryReviews');
      const ok = await confirmSafely(
        `Accept the repository's review of ${id}?`,
        "$(check) Accept the Repository's Review",
        'Someone who can commit to this repository marked it "not a threat". Accepting makes it your review too: it reaches the agent again, for this exact content only.',
      );
      if (!ok) return undefined;
      return attempt('Not accepted', async () => {
        const review = await lc.sendRequest(AcceptRepositoryReviewRequest.type, { id, revision });
        vscode.window.setStatusBarMessage(`$(check) Accepted ${review.reviewedBy}'s review of ${id}`, 5000);
        return review;
      });
    }),
    vscode.commands.registerCommand('sessionKnowledge.acceptRepositoryReviews', async () => {
      const { folders } = await lc.sendRequest(RepositoryReviewsRequest.type, {});
      const withReviews = folders.filter((f) => f.reviews.length > 0);
      if (withReviews.length === 0) {
        void vscode.window.showInformationMessage('The repository has no reviews you have not accepted.');
        return [];
      }
      const folderPick =
        withReviews.length === 1
          ? withReviews[0]!
          : (await vscode.window.showQuickPick(withReviews.map((f) => ({ label: f.folder, description: `${f.reviews.length} review(s)`, f })), { placeHolder: 'The workspace folder whose repository reviews to accept' }))?.f;
      if (!folderPick) return undefined;
      const lines = folderPick.reviews.map((r) => `${r.id} — ${r.rules.join(', ') || 'no rules named'} — reviewed by ${r.reviewedBy}`);
      const ok = await confirmSafely(
        `Accept ${folderPick.reviews.length} review(s) from the repository (${folderPick.folder})?`,
        `$(check) Accept All ${folderPick.reviews.length}`,
        `Anyone who can commit to this repository can write these. Accepting makes them yours: ${lines.join('; ')}`,
      );
      if (!ok) return undefined;
      output.appendLine(`Accepting the repository's reviews in ${folderPick.folder}:\n${lines.map((l) => `  ${l}`).join('\n')}`);
      return attempt('Not accepted', async () => {
        const accepted = await lc.sendRequest(AcceptRepositoryReviewsRequest.type, { folder: folderPick.folder, reviews: folderPick.reviews.map((r) => ({ id: r.id, contentHash: r.contentHash })) });
        vscode.window.setStatusBarMessage(`$(check) Accepted ${accepted.length} review(s) from the repository`, 5000);
        return accepted;
      });
    }),
    vscode.commands.registerCommand('sessionKnowledge.pinToActiveSession', async (target?: unknown, selection?: unknown) => {
      const key = deps.activeSession();
      if (!key) {
        void vscode.window.showInformationMessage('No @knowledge chat in this window yet: use Pin to Next Chat instead.');
        return undefined;
      }
      const current = new Set(await deps.activeSessionPins());
      const refs = pinRefs(target, selection) ?? (await pickItems('Pin to This Chat', deps.items().map((i) => i.id).filter((id) => !current.has(id))));
      if (!refs) return undefined;
      return attempt('Not pinned', async () => {
        const info = await lc.sendRequest(UpdateSessionPinsRequest.type, { key, add: refs });
        vscode.window.setStatusBarMessage(`$(comment-discussion) Pinned to this chat “${info.name}”; its next message sends it`, 4000);
        return info;
      });
    }),
    vscode.commands.registerCommand('sessionKnowledge.unpinFromActiveSession', async (target?: unknown, selection?: unknown) => {
      const key = deps.activeSession();
      if (!key) return undefined;
      const refs = pinRefs(target, selection) ?? (await pickItems('Unpin from This Chat', await deps.activeSessionPins()));
      if (!refs) return undefined;
      const info = await lc.sendRequest(UpdateSessionPinsRequest.type, { key, remove: refs });
      await deps.refresh();
      return info;
    }),
    vscode.commands.registerCommand('sessionKnowledge.refresh', async () => {
      await lc.sendRequest(ReindexRequest.type);
      await deps.refresh();
    }),
    vscode.commands.registerCommand('sessionKnowledge.openKnowledgeFolder', async () => {
      if (!folder) {
        void vscode.window.showWarningMessage('Open a folder first: the knowledge folder is .knowledge/ inside it.');
        return;
      }
      const target = deps.folders?.multi ? await pickFolder('The workspace folder whose .knowledge/ to show') : undefined;
      if (deps.folders?.multi && !target) return;
      const uri = vscode.Uri.joinPath(target ? vscode.Uri.file(target.path) : folder.uri, '.knowledge');
      await vscode.workspace.fs.createDirectory(uri);
      await vscode.commands.executeCommand('revealInExplorer', uri);
    }),
    vscode.commands.registerCommand('sessionKnowledge.showStats', async (): Promise<Stats> => {
      const stats = await lc.sendRequest(StatsRequest.type);
      output.appendLine(formatStats(stats));
      const summary = `Session Knowledge: ${stats.notes} notes, ${stats.plans} plans, ${stats.sessions} sessions; ${stats.problems.length === 0 ? 'no problems' : `${stats.problems.length} problem(s)`}.`;
      void vscode.window.showInformationMessage(summary, 'Show Output').then((c) => c && output.show(true));
      return stats;
    }),
  );
}

/**
 * What a pin command was invoked on: a tree node (or a multi-selection of them), a file URI (Explorer, editor
 * title), a path string, or the active editor. Undefined when there is nothing: the command then asks.
 */
/**
 * A multi-select quick pick of notes, plans and files by id (flagged ones marked), for a pin command run without a
 * target. Answers the chosen ids, or undefined when none (or nothing to choose from: `texts.empty` is shown).
 */
export async function pickKnowledgeItems(items: readonly KnowledgeItem[], title: string, candidates: readonly string[], texts: { empty: string; withheld: string }): Promise<string[] | undefined> {
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(texts.empty);
    return undefined;
  }
  const byId = new Map(items.map((i) => [i.id, i]));
  const picks = await vscode.window.showQuickPick(
    candidates.map((id) => {
      const item = byId.get(id);
      return {
        label: `$(${item?.flaggedRules.length ? 'warning' : item?.kind === 'plan' ? 'checklist' : item ? 'note' : 'file'}) ${item?.title ?? id}`,
        description: id,
        detail: item?.flaggedRules.length ? `${texts.withheld} — reads as an instruction (${item.flaggedRules.join(', ')})` : undefined,
        id,
      };
    }),
    { title, canPickMany: true, matchOnDescription: true },
  );
  return picks && picks.length > 0 ? picks.map((p) => p.id) : undefined;
}

export function pinRefs(target: unknown, selection?: unknown): string[] | undefined {
  // A multi-selection in the tree arrives as the second argument.
  if (Array.isArray(selection) && selection.length > 1) {
    const refs = selection.flatMap((n) => pinRefs(n) ?? []);
    if (refs.length > 0) return refs;
  }
  const node = target as TreeNode | undefined;
  if (node && typeof node === 'object' && 'type' in node) {
    if (node.type === 'item') return [node.item.id];
    if (node.type === 'draftPin' || node.type === 'sessionPin' || node.type === 'agentPin') return [node.id];
  }
  if (target instanceof vscode.Uri) return target.scheme === 'file' ? [target.fsPath] : undefined;
  if (typeof target === 'string') return [target];
  if (Array.isArray(target) && target.every((t) => typeof t === 'string')) return target.length > 0 ? (target as string[]) : undefined;
  if (target !== undefined) return undefined;
  const active = vscode.window.activeTextEditor?.document.uri;
  return active?.scheme === 'file' ? [active.fsPath] : undefined;
}

export function formatStats(stats: Stats): string {
  const lines = [
    `Workspace: ${stats.workspaceFolder ?? '(none)'}`,
    ...(stats.folders ?? []).map((f) => `Folder ${f.name}: ${f.notes} notes, ${f.plans} plans — ${f.path}`),
    `Notes: ${stats.notes}  Plans: ${stats.plans}  Sessions: ${stats.sessions}  Draft pins: ${stats.draftPins}`,
    ...stats.stores.map((s) => `Store ${s.source}: ${s.state}${s.schemaVersion !== null ? ` (schema v${s.schemaVersion})` : ''} — ${s.path}`),
    ...(stats.problems.length === 0 ? ['Problems: none'] : stats.problems.map((p) => `Problem: ${p.message}`)),
  ];
  return lines.join('\n');
}
