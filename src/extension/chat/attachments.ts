/**
 * `ChatRequest.references` for the model: the files (`#file`, the current file VS Code attaches by itself),
 * selections (a `Location`) and text a person attached to an `@knowledge` message. Each is read as the editor
 * has it, judged by the server's one judgement (`JudgeTextsRequest`, reviews applying to a knowledge file by its
 * id), and budgeted to a share of the model's input:
 * - a flagged attachment is withheld whole; a notice names it and the lines that read as instructions;
 * - one that could not be judged (the server did not answer in time) is left out, said to the person;
 * - what passes the budget is cut at a line break, loudly (the notice and the footer name the lines cut);
 * - a file pinned to the session, or a selection of one, is not attached again (the block carries it).
 * Attachments are never recorded as delivered pins: they ride with the message they were attached to.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { JudgeTextsRequest } from '../../shared/protocol';
import { attachedEnvelope, cutAtLine, linesOfSpans, type AttachedItem } from './attachedContext';
import { RESOLVE_TIMEOUT_MS, requestWithTimeout } from './knowledgeSend';

/** The share of the model's input that attachments may take. */
export const ATTACHMENT_SHARE = 0.25;
/** A file larger than this is not read (it would not fit any share of a model's input). */
const MAX_FILE_BYTES = 1024 * 1024;

/** What the person attached, read: text to judge, or why there is none. */
interface Read extends AttachedItem {
  /** The file (for `stream.reference` and the pin check). */
  where?: vscode.Uri | vscode.Location;
  /** Not sent, said to the person only (unreadable, not text, not judged). */
  skipped?: string;
}

export interface Attachments {
  /** Every attachment as sent, notices included (kept in the turn's metadata for the replay). */
  items: AttachedItem[];
  /** What the model gets: one envelope ('' when nothing was attached). */
  envelope: string;
  /** What the footer says about them ('' when nothing). */
  summary: string;
  /** The files and selections sent, for `stream.reference`. */
  sent: (vscode.Uri | vscode.Location)[];
}

const NONE: Attachments = { items: [], envelope: '', summary: '', sent: [] };

function relative(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
}

/** A knowledge file's id (the person's reviews of it apply); undefined for other workspace text. */
function knowledgeId(uri: vscode.Uri): string | undefined {
  const rel = relative(uri);
  return rel !== uri.fsPath && /(^|\/)\.knowledge\//.test(rel) ? rel : undefined;
}

async function readText(uri: vscode.Uri, range?: vscode.Range): Promise<string> {
  const stat = await vscode.workspace.fs.stat(uri);
  if (stat.size > MAX_FILE_BYTES) throw new Error(`too large to attach (${Math.round(stat.size / 1024)} KB)`);
  const doc = await vscode.workspace.openTextDocument(uri);
  return range ? doc.getText(range) : doc.getText();
}

function errorText(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}

/** One reference, read. */
async function read(ref: vscode.ChatPromptReference): Promise<Read | undefined> {
  // The "Current file" chip without a selection sends the visible range ("vscode.implicit.viewport"): the person
  // sees "Current file", so the model gets the file (budgeted like any other).
  const v = ref.id === 'vscode.implicit.viewport' && ref.value instanceof vscode.Location ? ref.value.uri : ref.value;
  if (v instanceof vscode.Uri) {
    const base = { kind: 'file' as const, label: relative(v), firstLine: 1, where: v, ...(knowledgeId(v) ? { reviewId: knowledgeId(v)! } : {}) };
    try {
      return { ...base, text: await readText(v) };
    } catch (err) {
      return { ...base, text: '', skipped: `could not be read as text (${errorText(err)})` };
    }
  }
  if (v instanceof vscode.Location) {
    const r = v.range;
    // A selection that ends at the start of a line does not hold that line.
    const last = r.end.character === 0 && r.end.line > r.start.line ? r.end.line : r.end.line + 1;
    const label = `${relative(v.uri)}:${r.start.line + 1}${last > r.start.line + 1 ? `-${last}` : ''}`;
    const base = { kind: 'selection' as const, label, firstLine: r.start.line + 1, where: v };
    try {
      return { ...base, text: await readText(v.uri, r) };
    } catch (err) {
      return { ...base, text: '', skipped: `could not be read as text (${errorText(err)})` };
    }
  }
  const name = (ref as { name?: unknown }).name;
  const label = typeof name === 'string' && name ? name : ref.id;
  if (typeof v === 'string') return { kind: 'text', label, text: v, firstLine: 1 };
  // Images, diagnostics and what later versions add: @knowledge sends text only.
  return { kind: 'text', label, text: '', firstLine: 1, skipped: 'not text (@knowledge attaches files, selections and text)' };
}

/**
 * The references read and judged (never throws; a reference that cannot be read is said, not sent). Call it
 * beside resolving the block; {@link fitAttachments} then drops what the block carries and fits the rest.
 */
export async function readAttachments(client: LanguageClient, references: readonly vscode.ChatPromptReference[], log: vscode.LogOutputChannel): Promise<Read[]> {
  if (references.length === 0) return [];
  // References come last-in-the-prompt first; the person reads them in prompt order (ones outside the prompt first).
  const ordered = [...references].sort((a, b) => (a.range?.[0] ?? -1) - (b.range?.[0] ?? -1));
  const read_ = (await Promise.all(ordered.map((r) => read(r).catch(() => undefined)))).filter((r): r is Read => r !== undefined);
  const toJudge = read_.filter((r) => !r.skipped && r.text.trim() !== '');
  let verdicts: { flagged: boolean; rules: string[]; spans?: { start: number; end: number }[] }[] | undefined;
  try {
    if (toJudge.length > 0) {
      const answer = await requestWithTimeout(client, JudgeTextsRequest.type, { texts: toJudge.map((r) => ({ text: r.text, ...(r.reviewId ? { id: r.reviewId } : {}) })) }, RESOLVE_TIMEOUT_MS);
      if (answer.results.length !== toJudge.length) throw new Error(`${answer.results.length} verdicts for ${toJudge.length} texts`);
      verdicts = answer.results;
    }
  } catch (err) {
    log.warn(`Could not judge the attachments; leaving them out this time: ${errorText(err)}`);
  }
  toJudge.forEach((r, i) => {
    const v = verdicts?.[i];
    if (!v) {
      r.skipped = 'could not be checked against the threat rules this time';
      r.text = '';
    } else if (v.flagged) {
      const lines = linesOfSpans(r.text, v.spans ?? [], r.firstLine);
      r.notice = `Withheld: ${r.label} reads as an instruction${lines ? ` at ${lines}` : ''} (${v.rules.join(', ') || 'a threat rule'}); it was not sent.`;
      r.text = '';
    }
  });
  return read_;
}

/**
 * The attachments to send with this message: those the block already carries (pinned ids) dropped, the rest cut
 * to `ATTACHMENT_SHARE` of the model's input by its own token count (chars ÷ 4 when it does not answer).
 */
export async function fitAttachments(read_: readonly Read[], pinned: ReadonlySet<string>, model: vscode.LanguageModelChat): Promise<Attachments> {
  const uriOf = (w: Read['where']) => (w instanceof vscode.Location ? w.uri : w);
  const live = read_.filter((r) => !(r.where && pinned.has(relative(uriOf(r.where)!))));
  if (live.length === 0) return NONE;
  const budget = Math.floor(model.maxInputTokens * ATTACHMENT_SHARE);
  let left = budget;
  const items: AttachedItem[] = [];
  const sent: (vscode.Uri | vscode.Location)[] = [];
  const said = { withheld: [] as string[], cut: [] as string[], skipped: [] as string[] };
  for (const r of live) {
    if (r.skipped) {
      said.skipped.push(`${r.label} (${r.skipped})`);
      continue;
    }
    const item: AttachedItem = { kind: r.kind, label: r.label, text: r.text, firstLine: r.firstLine, ...(r.reviewId ? { reviewId: r.reviewId } : {}), ...(r.notice ? { notice: r.notice } : {}) };
    if (!r.text) {
      if (r.notice) said.withheld.push(r.label);
      items.push(item);
      continue;
    }
    let tokens: number;
    let timer: NodeJS.Timeout | undefined;
    try {
      tokens = await Promise.race([Promise.resolve(model.countTokens(r.text)), new Promise<number>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS)))]);
    } catch {
      tokens = Math.ceil(r.text.length / 4);
    } finally {
      clearTimeout(timer);
    }
    if (tokens > left) {
      const perChar = tokens / Math.max(1, r.text.length);
      const cut = cutAtLine(r.text, Math.floor(Math.max(0, left) / perChar), r.firstLine);
      const what = cut.cutLines ?? 'everything';
      item.text = cut.text;
      item.notice = `Cut to fit: ${what} of ${r.label} left out (attachments get ${budget} of this model's ${model.maxInputTokens} input tokens).`;
      said.cut.push(`${r.label} (${what})`);
      left = 0;
    } else left -= tokens;
    items.push(item);
    if (item.text && r.where) sent.push(r.where);
  }
  const attached = items.filter((i) => i.text).length;
  const summary = [
    attached ? `attached ${attached} item(s)` : '',
    said.withheld.length ? `withheld: ${said.withheld.join(', ')}` : '',
    said.cut.length ? `cut to fit: ${said.cut.join(', ')}` : '',
    said.skipped.length ? `not attached: ${said.skipped.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return { items, envelope: attachedEnvelope(items), summary, sent };
}
