/**
 * The two remedies for a flagged note, from the quick fix and the panel alike:
 * - **Remove the flagged lines…** shows the exact lines (numbers and text) that will go, asks, and edits the note
 *   through a WorkspaceEdit (Undo in the editor brings them back), then saves it: the server judges it again and the
 *   next `@knowledge` message carries the clean remainder.
 * - **Mark as reviewed…**, per finding: it shows the exact text that will reach the model (the finding's lines, or the
 *   whole note when it clears the last finding), names every rule it clears, and clears only those findings
 *   (`knowledge/threat/markReviewed` with their keys). Whole-note withholding stays the default until none stands.
 * Lines are told as the server tells them (`core/review/findingLines.ts`): the block's withheld notice names the same.
 * The note's text is the editor's (an unsaved or changed note is refused: the lines judged are the lines shown).
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { JudgeFileRequest, ListItemsRequest, MarkReviewedRequest } from '../shared/protocol';
import type { JudgeFileResult, ReviewRecord } from '../shared/reviewSchemas';
import { findingLines, groupLabel, linesLabel, numberedLines, withheldByLines, type FindingGroup } from '../server/core/review/findingLines';
import { sha256Hex } from '../server/core/sha256Hex';
import { testConfirmations } from './knowledgeCommands';

export interface FlaggedRemedyDeps {
  client: LanguageClient;
  output: vscode.LogOutputChannel;
  refresh: () => Promise<void>;
}

/** A flagged note as judged now, with the editor's document of it (the same revision). */
interface Judged {
  judged: JudgeFileResult;
  doc: vscode.TextDocument;
  text: string;
  groups: FindingGroup[];
  name: { rules: string[]; keys: string[] } | null;
}

/** What Remove the flagged lines did (the command's answer: tests and the panel read it). */
export interface RemovedLines {
  id: string;
  removed: { line: number; text: string }[];
}

/** What the last remedy confirmations showed, and refusals (tests only: what the person was shown). */
export const lastRemedyShown: { title: string; confirm: string; lines: string[]; refused?: string }[] = [];

/** Asks with Cancel first and selected; the lines shown below the two choices are what the decision is about. */
async function confirmWithLines(title: string, confirmLabel: string, detail: string, heading: string, lines: readonly { line: number; text: string }[]): Promise<boolean> {
  const shown = lines.map((l) => `${l.line}: ${l.text}`);
  lastRemedyShown.push({ title, confirm: `${confirmLabel} — ${detail}`, lines: shown });
  if (lastRemedyShown.length > 20) lastRemedyShown.shift();
  if (testConfirmations.length > 0) return testConfirmations.shift()!;
  const cancel: vscode.QuickPickItem = { label: '$(close) Cancel', detail: 'Change nothing' };
  const confirm: vscode.QuickPickItem = { label: confirmLabel, detail };
  const items: vscode.QuickPickItem[] = [cancel, confirm, { label: heading, kind: vscode.QuickPickItemKind.Separator }, ...lines.map((l) => ({ label: `${l.line}: ${l.text.replace(/\$\(/g, '$\u200b(')}` }))];
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: 'Cancel is selected: choose the second entry to go ahead', ignoreFocusOut: true, matchOnDescription: true });
  return picked === confirm;
}

export function registerFlaggedRemedy(context: vscode.ExtensionContext, deps: FlaggedRemedyDeps): void {
  const lc = deps.client;

  /** Judges the note now and opens its document; refuses when the editor's text is not what was judged. */
  const judgeNow = async (id: string, revision?: string): Promise<Judged> => {
    const judged = await lc.sendRequest(JudgeFileRequest.type, { id });
    if (!judged) throw new Error(`${id} cannot be read.`);
    if (revision !== undefined && judged.revision !== revision) throw new Error(`${id} changed since it was judged; look at it again.`);
    const item = (await lc.sendRequest(ListItemsRequest.type, {})).find((i) => i.id === judged.id);
    if (!item) throw new Error(`${id} is not a note or plan in .knowledge/.`);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(item.path));
    const text = doc.getText();
    if (doc.isDirty || sha256Hex(text) !== judged.revision) throw new Error(`${id} has changes that are not saved, or changed since it was judged: save it and try again.`);
    const { groups, name } = findingLines(text, judged.findings);
    return { judged, doc, text, groups, name };
  };

  const attempt = async <T>(refused: string, work: () => Promise<T | undefined>): Promise<T | undefined> => {
    try {
      const result = await work();
      await deps.refresh();
      return result;
    } catch (err) {
      lastRemedyShown.push({ title: refused, confirm: '', lines: [], refused: (err as Error).message });
      void vscode.window.showWarningMessage(`${refused}: ${(err as Error).message}`);
      return undefined;
    }
  };

  const removeFlaggedLines = (id?: unknown, revision?: unknown): Promise<RemovedLines | undefined> =>
    attempt('Nothing removed', async () => {
      if (typeof id !== 'string') return undefined;
      const j = await judgeNow(id, typeof revision === 'string' ? revision : undefined);
      if (j.groups.length === 0) throw new Error(j.name ? `${id} is withheld for its name, not for a line: rename it.` : `${id} has no flagged lines.`);
      const removed = j.groups.flatMap((g) => numberedLines(j.text, g.firstLine, g.lastLine));
      const rules = [...new Set(j.groups.flatMap((g) => g.rules))];
      const count = `${removed.length} line${removed.length === 1 ? '' : 's'}`;
      const ok = await confirmWithLines(
        `Remove ${count} from ${id}?`,
        `$(trash) Remove ${count}`,
        `${j.groups.map(groupLabel).join('; ')}. The rest of the note stays and is judged again; Undo in the editor brings the lines back.`,
        'Removed',
        removed,
      );
      if (!ok) return undefined;
      const edit = new vscode.WorkspaceEdit();
      // Bottom up, whole lines with their line breaks.
      for (const g of [...j.groups].reverse()) edit.delete(j.doc.uri, new vscode.Range(g.firstLine - 1, 0, g.lastLine, 0));
      if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code did not apply the edit to ${id}.`);
      // Saved: the server judges the file on disk again, and the next message carries what is left.
      // (false also when auto save got there first; in the web workbench the first save of a document just edited
      // may answer false: the workbench's own save then writes it)
      if (!(await j.doc.save()) && j.doc.isDirty) await vscode.workspace.save(j.doc.uri);
      if (j.doc.isDirty) throw new Error(`${id} was edited but not saved: save it to send the rest.`);
      deps.output.appendLine(`Removed ${j.groups.map((g) => linesLabel(g)).join(', ')} from ${id} (${rules.join(', ')}).`);
      void vscode.window.showInformationMessage(`Removed ${count} from ${id} (${j.groups.map((g) => linesLabel(g)).join(', ')}). Undo in the editor brings them back.`, 'Open', 'Undo').then(async (choice) => {
        if (!choice) return;
        await vscode.window.showTextDocument(j.doc, { preview: false });
        if (choice === 'Undo') await vscode.commands.executeCommand('undo');
      });
      return { id: j.judged.id, removed };
    });

  /** The finding (group) to review: the one named by its keys, the only one, or the one the person picks. */
  const pickGroup = async (j: Judged, findings?: readonly string[]): Promise<{ label: string; rules: string[]; keys: string[]; group?: FindingGroup } | undefined> => {
    const all = [...(j.name ? [{ label: 'its name', rules: j.name.rules, keys: j.name.keys }] : []), ...j.groups.map((g) => ({ label: linesLabel(g), rules: g.rules, keys: g.keys, group: g }))];
    if (findings && findings.length > 0) {
      const named = all.find((g) => findings.every((k) => g.keys.includes(k)));
      if (!named) throw new Error(`${j.judged.id} has no such finding now; look at it again.`);
      return named;
    }
    if (all.length <= 1) return all[0];
    const picked = await vscode.window.showQuickPick(
      all.map((g) => ({ label: g.label, description: `matched ${g.rules.join(', ')}`, g })),
      { title: `Which finding of ${j.judged.id} did you review?`, placeHolder: 'Each finding is reviewed on its own: the others stay withheld' },
    );
    return picked?.g;
  };

  const markReviewed = (id?: unknown, revision?: unknown, findings?: unknown): Promise<ReviewRecord | undefined> =>
    attempt('Not marked', async () => {
      if (typeof id !== 'string') return undefined;
      const j = await judgeNow(id, typeof revision === 'string' ? revision : undefined);
      const keys = Array.isArray(findings) ? findings.filter((k): k is string => typeof k === 'string') : undefined;
      if (j.judged.findings.length === 0) throw new Error(`${id} is not withheld.`);
      const target = await pickGroup(j, keys);
      if (!target) return undefined;
      // What stands once this finding is cleared: nothing (the whole note goes) or the others (still withheld).
      const others = { groups: j.groups.filter((g) => g !== target.group), name: target.group ? j.name : null, unplaced: [] };
      const last = others.groups.length === 0 && others.name === null;
      const lineCount = j.text.endsWith('\n') ? j.text.split('\n').length - 1 : j.text.split('\n').length;
      const lines = target.group ? numberedLines(j.text, target.group.firstLine, target.group.lastLine) : [{ line: 0, text: id }];
      const rules = target.rules.join(', ');
      const ok = await confirmWithLines(
        `Mark ${target.label} of ${id} reviewed — not a threat?`,
        `$(check) Mark Reviewed: clears ${rules}`,
        last
          ? `Clears ${target.rules.length === 1 ? 'this rule' : `these ${target.rules.length} rules`} (${rules}) for this exact content only; the note then reaches the model whole, as shown below. Any edit is judged again.`
          : `Clears ${rules} on ${target.label} only, for this exact content. Still withheld: ${withheldByLines(others)}; the note reaches the model once nothing stands.`,
        last ? 'Sent to the model' : 'Let through',
        last ? numberedLines(j.text, 1, lineCount) : lines,
      );
      if (!ok) return undefined;
      const review = await lc.sendRequest(MarkReviewedRequest.type, { id: j.judged.id, revision: j.judged.revision, findings: target.keys });
      vscode.window.setStatusBarMessage(`$(check) ${target.label} of ${id} marked reviewed (${review.rules.join(', ')})${last ? '' : ' — still withheld for the rest'}`, 5000);
      return review;
    });

  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.removeFlaggedLines', removeFlaggedLines),
    vscode.commands.registerCommand('sessionKnowledge.markReviewed', markReviewed),
  );
}
