/**
 * Issue 27, item 4 in a real VS Code: "Remove the flagged lines…" shows the exact lines, edits the note through a
 * WorkspaceEdit and saves it (the block then carries the clean remainder), and Undo in the editor brings the lines
 * back; "Mark as reviewed…" is per finding: it shows the text it lets through, names every rule it clears, and the
 * other finding keeps the note withheld.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi, waitFor, workspaceFolder } from './helpers';
import { INJECTED_LINE, SECOND_INJECTED_LINE, TWO_ATTACKS, USEFUL_LINE } from '../helpers/flaggedNote';

const NOTE = '.knowledge/notes/remedy-deploy.md';
const USEFUL = USEFUL_LINE;
const INJECTED = INJECTED_LINE;
const SECOND = SECOND_INJECTED_LINE;
const TEXT = TWO_ATTACKS;

interface Hooks {
  request(method: string, params?: unknown): Promise<unknown>;
  confirmNext(...answers: boolean[]): void;
  remedyShown(): { title: string; confirm: string; lines: string[]; refused?: string }[];
}
interface Block {
  text: string;
  items: { id: string; state: string }[];
}

/** Writes the note, waits until it is withheld, runs `fn`, then closes every editor and deletes the note. */
async function withFlaggedNote(fn: (h: Hooks, path: string, compile: () => Promise<Block>) => Promise<void>): Promise<void> {
  const api = await activateApi();
  const h = (api as unknown as { __test: Hooks }).__test;
  const path = join(workspaceFolder(), NOTE);
  await fs.mkdir(join(workspaceFolder(), '.knowledge/notes'), { recursive: true });
  await fs.writeFile(path, TEXT);
  try {
    // the remedies act on listed notes: wait until the file watcher has told the server about this one (a loaded CI
    // machine listed it late once, and both remedies refused it as "not a note or plan")
    await waitFor(async () => ((await h.request('knowledge/listItems', {})) as { id: string }[]).some((i) => i.id === NOTE) || undefined, 'the note listed', 30_000);
    await fn(h, path, async () => (await h.request('knowledge/delivery/compilePins', { pins: [NOTE] })) as Block);
  } finally {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await fs.rm(path, { force: true });
  }
}

suite('a remedy for one bad line (flaggedRemedy.ts)', () => {
  test('Remove the flagged lines shows them, edits the note (saved: the block carries the rest), and Undo restores them', async () => {
    await withFlaggedNote(async (h, path, compile) => {
      const withheld = await waitFor(async () => {
        const b = await compile();
        return b.items[0]?.state === 'withheld' ? b : undefined;
      }, 'the note withheld');
      assert.match(withheld.text, /withheld: \.knowledge\/notes\/remedy-deploy\.md — line 6 matched [^;]+; line 10 matched /);
      assert.ok(!withheld.text.includes(USEFUL), 'withheld whole by default');

      const editor = await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: false });
      // Cancel changes nothing.
      h.confirmNext(false);
      assert.equal(await vscode.commands.executeCommand('sessionKnowledge.removeFlaggedLines', NOTE), undefined);
      assert.equal(editor.document.getText(), TEXT);

      h.confirmNext(true);
      const result = (await vscode.commands.executeCommand('sessionKnowledge.removeFlaggedLines', NOTE)) as { removed: { line: number; text: string }[] } | undefined;
      assert.ok(result, JSON.stringify(h.remedyShown().at(-1)));
      assert.deepEqual(result.removed, [
        { line: 6, text: INJECTED },
        { line: 10, text: SECOND },
      ]);
      const shown = h.remedyShown().at(-1)!;
      assert.deepEqual(shown.lines, [`6: ${INJECTED}`, `10: ${SECOND}`], 'the exact lines were shown before removing');
      assert.match(shown.title, /^Remove 2 lines from \.knowledge\/notes\/remedy-deploy\.md\?/);
      const clean = TEXT.replace(`${INJECTED}\n`, '').replace(`${SECOND}\n`, '');
      assert.equal(editor.document.getText(), clean);
      assert.equal(editor.document.isDirty, false, 'saved');
      assert.equal(await fs.readFile(path, 'utf8'), clean);
      const sent = await waitFor(async () => {
        const b = await compile();
        return b.items[0]?.state === 'ok' ? b : undefined;
      }, 'the clean remainder delivered');
      assert.ok(sent.text.includes(USEFUL) && !sent.text.includes('evil.example') && !sent.text.includes('developer mode'));

      // Undo in the editor brings the removed lines back (one step: one WorkspaceEdit).
      await vscode.window.showTextDocument(editor.document, { preview: false });
      await vscode.commands.executeCommand('undo');
      await waitFor(async () => editor.document.getText() === TEXT || undefined, 'Undo restored the removed lines');
      await editor.document.save();
      await waitFor(async () => ((await compile()).items[0]?.state === 'withheld' ? true : undefined), 'withheld again once the lines are back');
    });
  });

  test('Mark as reviewed is per finding: it shows the text it lets through, names every rule, and the other finding still withholds the note', async () => {
    await withFlaggedNote(async (h, path, compile) => {
      await waitFor(async () => ((await compile()).items[0]?.state === 'withheld' ? true : undefined), 'the note withheld');
      const uri = vscode.Uri.file(path);
      await vscode.window.showTextDocument(uri, { preview: false });
      const diagnostic = await waitFor(async () => vscode.languages.getDiagnostics(uri).find((d) => d.range.start.line === 5), 'the finding on line 6').catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(vscode.languages.getDiagnostics(uri).map((d) => [d.range.start.line, d.code]))}`);
      });
      // The quick fix of that diagnostic: per finding, naming its lines and rules.
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, diagnostic.range);
      const review = actions.find((a) => a.title.startsWith('Mark as reviewed'))!;
      assert.match(review.title, /^Mark as reviewed — not a threat: line 6 \(override\.ignore-instructions, exfil\.secret-to-sink\)…$/);
      assert.ok(actions.some((a) => a.title === 'Remove the flagged lines…'), 'the other remedy is offered beside it');

      h.confirmNext(true);
      const record = (await vscode.commands.executeCommand(review.command!.command, ...(review.command!.arguments ?? []))) as { rules: string[] };
      assert.deepEqual(record.rules, ['override.ignore-instructions', 'exfil.secret-to-sink']);
      const shown = h.remedyShown().at(-1)!;
      assert.deepEqual(shown.lines, [`6: ${INJECTED}`], 'the text it lets through');
      assert.match(shown.confirm, /clears override\.ignore-instructions, exfil\.secret-to-sink/);
      assert.match(shown.confirm, /Still withheld: line 10 matched/);
      const after = await compile();
      assert.equal(after.items[0]?.state, 'withheld', 'the other finding stands');
      assert.match(after.text, /withheld: \.knowledge\/notes\/remedy-deploy\.md — line 10 matched /);
      assert.ok(!after.text.includes('line 6'));

      // The last finding: the confirmation shows the whole note as it will be sent.
      h.confirmNext(true);
      const ten = (await h.request('knowledge/threat/judgeFile', { id: NOTE })) as { findings: { start: number }[] };
      assert.ok(ten.findings.length > 0);
      await vscode.commands.executeCommand('sessionKnowledge.markReviewed', NOTE);
      const whole = h.remedyShown().at(-1)!;
      assert.equal(whole.lines.length, TEXT.split('\n').length - 1, 'every line of the note as it will be sent');
      assert.ok(whole.lines.includes(`6: ${INJECTED}`) && whole.lines.includes(`3: ${USEFUL}`));
      assert.match(whole.confirm, /reaches the model whole/);
      await waitFor(async () => ((await compile()).items[0]?.state === 'ok' ? true : undefined), 'every finding reviewed: sent');
    });
  });
});
