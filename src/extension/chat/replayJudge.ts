/**
 * Judging what is replayed to the model, now, with the current rule set (PRODUCT.md: "scanned on every read").
 * Earlier blocks (`metadata.block`), the compaction's re-sent block, its summary and the pinned messages were
 * accepted when they were sent; a rule-set update (or a review that lapsed) can flag them since. Before a
 * replay, every such text goes to the server in one `JudgeTextsRequest` (one rule set, reviews applied):
 * - a block is judged item by item (its `--- Pinned note: <id> ---` sections, the memory index, the rest);
 *   a flagged item is cut from the replay and one line names it;
 * - a flagged summary or pinned message is replaced by one line that names it;
 * - an attachment (`attachedContext.ts`) is judged again the same way; a flagged one is replaced by a notice naming it;
 * - on any error or timeout, none of these texts is replayed (a line says so) — the send itself goes on.
 */
import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { JudgeTextsRequest } from '../../shared/protocol';
import type { JudgeTextsResult } from '../../shared/reviewSchemas';
import { envelopeInside, wrapInEnvelope } from '../../server/core/threat/envelope';
import { firstLiveTurn, type KnowledgeResultMetadata, type Turn } from './history';
import type { AttachedItem } from './attachedContext';
import { requestWithTimeout } from './knowledgeSend';

type Compaction = NonNullable<KnowledgeResultMetadata['compaction']>;
type Verdict = JudgeTextsResult['results'][number];

/** Section headers as `compileBlock` (src/server/core/delivery/knowledgeBlock.ts) writes them. */
const HEADER = /\n--- (?:Pinned (?:note|plan|file): (.*?)|Memory index[^\n]*) ---\n/g;

export const UNJUDGED_BLOCK = '[An earlier knowledge block is left out of this replay: it could not be checked against the current threat rules.]';

interface Section {
  text: string;
  /** The section's header line (with its line breaks), for a pinned item. */
  header?: string;
  /** The pin it holds; undefined for the preamble part and the memory index. */
  id?: string;
  memory?: boolean;
}

/** A block's inside split at its section headers, or one section when it is not a block we compiled. */
function sections(block: string): { sections: Section[]; parsed: boolean } {
  // With its last line break: a section's body then is exactly what the compiler placed (reviews match its hash).
  // The envelope's own nonce line is not part of it (a replay is wrapped again, with a fresh nonce).
  const inside = envelopeInside(block)?.inside;
  if (inside === undefined) return { sections: [{ text: block }], parsed: false };
  const matches = [...inside.matchAll(HEADER)];
  const out: Section[] = [{ text: inside.slice(0, matches[0]?.index ?? inside.length) }];
  matches.forEach((m, i) => {
    const bodyStart = m.index + m[0].length;
    const body = inside.slice(bodyStart, matches[i + 1]?.index ?? inside.length);
    out.push(m[1] !== undefined ? { text: body, header: m[0], id: m[1] } : { text: m[0] + body, memory: true });
  });
  return { sections: out, parsed: true };
}

const ruleList = (v: Verdict) => v.rules.join(', ') || 'a threat rule';

/** The block as it may be replayed now, given one verdict per section. */
function judgedBlock(block: string, parts: { sections: Section[]; parsed: boolean }, verdicts: readonly Verdict[]): string {
  if (!verdicts.some((v) => v.flagged)) return block;
  const [preamble, ...rest] = parts.sections;
  if (!parts.parsed || verdicts[0]!.flagged || !preamble) {
    return `[An earlier knowledge block is left out of this replay: it now reads as an instruction (${ruleList(verdicts.find((v) => v.flagged)!)}).]`;
  }
  const content = rest
    .map((s, i) => {
      const v = verdicts[i + 1]!;
      if (!v.flagged) return (s.header ?? '') + s.text;
      const what = s.memory ? 'the memory index' : s.id;
      return `\n[Withheld from this replay: ${what} now reads as an instruction (${ruleList(v)}).]\n`;
    })
    .join('');
  return wrapInEnvelope(preamble.text.replace(/\n$/, ''), content);
}

/** Summary and pinned messages as they may be replayed, each flagged one replaced by a line naming it. */
function judgedCompaction(c: Compaction, summary: Verdict | undefined, pinned: readonly (Verdict | undefined)[]): Pick<Compaction, 'summary' | 'pinnedMessages'> {
  const unjudged = summary === undefined;
  return {
    summary: unjudged
      ? '[The summary of the earlier conversation is left out: it could not be checked against the current threat rules.]'
      : summary.flagged
        ? `[The summary of the earlier conversation is withheld: it reads as an instruction (${ruleList(summary)}).]`
        : c.summary,
    pinnedMessages: c.pinnedMessages.map((m, i) => {
      const v = pinned[i];
      if (!v) return `[Pinned message ${i + 1} is left out: it could not be checked against the current threat rules.]`;
      return v.flagged ? `[Pinned message ${i + 1} is withheld: it reads as an instruction (${ruleList(v)}).]` : m;
    }),
  };
}

/** Attachments as they may be replayed: a flagged or unjudged one replaced by a notice naming it (`null`: nothing to judge). */
function judgedAttachments(items: readonly AttachedItem[], verdicts: readonly (Verdict | null | undefined)[]): AttachedItem[] {
  return items.map((a, i) => {
    const v = verdicts[i];
    if (v === null || (v && !v.flagged)) return a;
    const notice = v ? `Withheld from this replay: ${a.label} now reads as an instruction (${ruleList(v)}).` : `${a.label} is left out of this replay: it could not be checked against the current threat rules.`;
    return { ...a, text: '', notice };
  });
}

/** Asks the server for verdicts; undefined on any error or timeout (the caller then replays none of the texts). */
async function judgeTexts(client: LanguageClient, texts: { text: string; id?: string }[], log: vscode.LogOutputChannel): Promise<Verdict[] | undefined> {
  if (texts.length === 0) return [];
  try {
    const answer = await requestWithTimeout(client, JudgeTextsRequest.type, { texts });
    if (answer.results.length !== texts.length) throw new Error(`${answer.results.length} verdicts for ${texts.length} texts`);
    return answer.results;
  } catch (err) {
    log.warn(`Could not judge what is replayed; leaving it out this time: ${(err as Error)?.message ?? String(err)}`);
    return undefined;
  }
}

/**
 * `turns` with every replayed text judged now: each turn's block, and the compaction's block, summary and
 * pinned messages. Never throws.
 */
export async function judgeReplay(
  client: LanguageClient,
  turns: readonly Turn[],
  log: vscode.LogOutputChannel,
): Promise<Turn[]> {
  const texts: { text: string; id?: string }[] = [];
  const ask = (t: { text: string; id?: string }) => texts.push(t) - 1;
  const plans = turns.map((turn) => {
    const block = turn.metadata.block ? sections(turn.metadata.block) : undefined;
    const c = turn.metadata.compaction;
    const cBlock = c?.block ? sections(c.block) : undefined;
    return {
      block: block && { parts: block, at: block.sections.map((s) => ask({ text: s.text, ...(s.id !== undefined ? { id: s.id } : {}) })) },
      cBlock: cBlock && { parts: cBlock, at: cBlock.sections.map((s) => ask({ text: s.text, ...(s.id !== undefined ? { id: s.id } : {}) })) },
      summary: c ? ask({ text: c.summary }) : -1,
      pinned: c ? c.pinnedMessages.map((m) => ask({ text: m })) : [],
      attached: (turn.metadata.attachments ?? []).map((a) => (a.text ? ask({ text: a.text, ...(a.reviewId ? { id: a.reviewId } : {}) }) : -1)),
    };
  });
  const verdicts = await judgeTexts(client, texts, log);
  return turns.map((turn, i) => {
    const plan = plans[i]!;
    const metadata: KnowledgeResultMetadata = { ...turn.metadata };
    const blockOf = (original: string, p: { parts: ReturnType<typeof sections>; at: number[] }) =>
      verdicts ? judgedBlock(original, p.parts, p.at.map((k) => verdicts[k]!)) : UNJUDGED_BLOCK;
    if (plan.block && turn.metadata.block) metadata.block = blockOf(turn.metadata.block, plan.block);
    if (turn.metadata.attachments) metadata.attachments = judgedAttachments(turn.metadata.attachments, plan.attached.map((k) => (k < 0 ? null : verdicts ? verdicts[k]! : undefined)));
    const c = turn.metadata.compaction;
    if (c) {
      metadata.compaction = {
        ...c,
        ...judgedCompaction(c, verdicts?.[plan.summary], plan.pinned.map((k) => verdicts?.[k])),
        block: plan.cBlock ? blockOf(c.block, plan.cBlock) : c.block,
      };
    }
    return { ...turn, metadata };
  });
}

/** The conversation turns with what will be replayed of them (from the latest compaction on) judged now. */
export async function judgeLiveTurns(client: LanguageClient, turns: readonly Turn[], log: vscode.LogOutputChannel): Promise<Turn[]> {
  const start = firstLiveTurn(turns);
  return [...turns.slice(0, start), ...(await judgeReplay(client, turns.slice(start), log))];
}

/** A compaction made in this turn, its summary and pinned messages judged before they are sent. */
export async function judgeNewCompaction(client: LanguageClient, c: Compaction, log: vscode.LogOutputChannel): Promise<Compaction> {
  const [turn] = await judgeReplay(client, [{ prompt: '', response: '', metadata: { compaction: { ...c, block: '' } } }], log);
  return { ...c, ...turn!.metadata.compaction!, block: c.block };
}
