/**
 * Owns the verdict: `judge(subject) → Verdict`, the one place a verdict is composed. Every caller goes through it:
 * the block (`KnowledgeCore.judge`), diagnostics, the panel and MCP (`KnowledgeCore.judgeFile`), the CLI's `scan`,
 * the language server's JudgeTexts, memory, the hook, `evaluate()` and the training scripts.
 *
 * A subject is a text, a file revision or a memory entry, with its id. What is composed here, in order:
 * - the text's findings: the rule set, the intent lexicons, the learned stage (its gates), the hidden and encoded
 *   detectors (`textScan.ts`), and our closer policy (`closerPolicy.ts`: look-alike closers, never gated);
 * - the findings on its name, when the name reaches a model (`names.ts`): a file's id;
 * - the review that clears this revision under this rule set, and by whom (`review/reviewStore.ts` `Clearance`).
 * The verdict carries the revision judged and, when asked to explain, what each gate vetoed and why.
 *
 * One cache: `sharedScanner` (threatScanner.ts), keyed by (content or revision, rule-set version). A process that
 * lives for one prompt seeds it from one persisted verdict store (`PersistedScan` over verdictStore.ts). Memory's
 * entries are keyed by their own revision (not a hash of the judged text): memoryVerdicts.ts holds their findings, in
 * the same store's format, and answers them through `known`. Pure: no `vscode`.
 */
import type { ScanFn } from '../delivery/knowledgeBlock';
import { nameFindings, type NameFinding } from './names';
import { RULESET_VERSION } from './rules';
import { scanKnowledgeText, type ThreatFinding, type Veto } from './textScan';
import { hashContent, ThreatScanner } from './threatScanner';

export { scanKnowledgeText, type Veto };

/** The one verdict cache of the process: whole findings (rules, learned stage, closers) by content and rule set. */
export const sharedScanner = new ThreatScanner();

/** The cached scan every read goes through (`contentHash`, when given, must be sha256 of `text`: a re-read pin costs a lookup). */
export const defaultScan: ScanFn = (text, contentHash) => sharedScanner.scan(text, contentHash);

/** A review lookup's answer (`review/reviewStore.ts` `Clearance`): whether this revision is cleared, and by what. */
export interface ClearanceLike {
  readonly cleared: boolean;
}

/** What is judged. */
export interface Subject<C extends ClearanceLike = ClearanceLike> {
  readonly kind: 'text' | 'file' | 'memory';
  /** Its id: a workspace id, `memory:<id>`, a path the CLI shows; '' for a bare text. */
  readonly id?: string;
  readonly text: string;
  /** sha256 of `text` (computed when absent): the revision judged, and what a review names. */
  readonly revision?: string;
  /** The name that reaches a model with the text, judged as words too (`names.ts`); a file's id. */
  readonly name?: string;
  /** The review of a revision under this rule set, if any (the subject's folder's reviews). */
  readonly reviews?: (revision: string) => C | undefined;
  /**
   * A section replayed from a block: it may end with the line break the block compiler added when the file had
   * none. When flagged, the file's own text (without it) is judged too, so its review applies.
   */
  readonly replayed?: boolean;
}

export interface JudgeOptions {
  /** Also answer what the learned stage vetoed (scans again, uncached: for "why was this flagged, and what was vetoed?"). */
  readonly explain?: boolean;
  /** The scan to use (default: the cached product scan). Tests and one-prompt processes bring theirs. */
  readonly scan?: ScanFn;
  /**
   * The findings of a revision judged before (under this rule set), answered without reading the subject's text: a
   * memory entry decoded lazily from its snapshot is a lookup. Needs the subject's `revision`.
   */
  readonly known?: (revision: string) => readonly ThreatFinding[] | undefined;
}

export interface Verdict<C extends ClearanceLike = ClearanceLike> {
  readonly kind: 'text' | 'file' | 'memory';
  readonly id: string;
  /** The revision judged. */
  readonly revision: string;
  readonly rulesetVersion: string;
  /** The findings that stand: none when a review clears them. */
  readonly findings: readonly ThreatFinding[];
  /** Every finding, those on the name first (also when a review clears them: the panel shows what matched). */
  readonly allFindings: readonly ThreatFinding[];
  /** The review lookup's answer when there are findings: what cleared them (and by whom), or the team's record that would. */
  readonly clearance?: C;
  /** Keep out of what the model is told: findings stand. */
  readonly flagged: boolean;
  /** With `explain`: what each gate vetoed in the text, and why (rule, span, gate, score). */
  readonly vetoed?: readonly Veto[];
}

/** Findings on a name (an id, a folder's name), with the given scan (default: the cached product scan). */
export function judgeName(name: string, scan: ScanFn = defaultScan): readonly NameFinding[] {
  return nameFindings(name, scan as (text: string) => readonly ThreatFinding[]);
}

/** The one judgement: see the module's comment. */
export function judge<C extends ClearanceLike>(subject: Subject<C>, options: JudgeOptions = {}): Verdict<C> {
  const verdict = judgeOnce(subject, options);
  // a replayed section: the file's own text, whose review (by its revision) applies
  if (subject.replayed && verdict.flagged && subject.text.endsWith('\n')) return judgeOnce({ ...subject, text: subject.text.slice(0, -1), revision: undefined }, options);
  return verdict;
}

function judgeOnce<C extends ClearanceLike>(subject: Subject<C>, options: JudgeOptions): Verdict<C> {
  const scan = options.scan ?? defaultScan;
  const revision = subject.revision ?? hashContent(subject.text);
  const named = subject.name ? judgeName(subject.name, scan) : [];
  const found = (subject.revision !== undefined ? options.known?.(revision) : undefined) ?? (scan(subject.text, revision) as readonly ThreatFinding[]);
  const allFindings = named.length === 0 ? found : [...named, ...found];
  const clearance = allFindings.length > 0 ? subject.reviews?.(revision) : undefined;
  const findings = clearance?.cleared ? [] : allFindings;
  const vetoed: Veto[] | undefined = options.explain ? [] : undefined;
  if (vetoed) scanKnowledgeText(subject.text, { vetoed });
  return {
    kind: subject.kind,
    id: subject.id ?? '',
    revision,
    rulesetVersion: RULESET_VERSION,
    findings,
    allFindings,
    ...(clearance ? { clearance } : {}),
    flagged: findings.length > 0,
    ...(vetoed ? { vetoed } : {}),
  };
}

/** The rule ids of a verdict's standing findings, once each, in order. */
export const verdictRules = (v: Pick<Verdict, 'findings'>): string[] => [...new Set(v.findings.map((f) => f.ruleId))];
