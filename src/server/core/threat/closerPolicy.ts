/**
 * Our closer policy, in one place: a closer of our own envelope (`</knowledge-untrusted>` in any spelling the
 * envelope gate folds: separator runs, fullwidth, zero-width, homoglyphs) is a `forged.envelope-close` finding,
 * and that finding is UNGATED: the learned stage never vetoes it, however benign the rest of the text reads
 * (a note that closes our envelope is out of place whatever it says). The scan loop (`textScan.ts`) keeps the
 * rule's matches over our closers whatever the model's gate says and adds the look-alike closers the rules did not
 * match; training (`scripts/threat-train/train.ts`) counts them as it counts detectors, so the rule's trained gate
 * is what decides its other matches (closers of envelopes that are not ours). Pure: no `vscode`.
 */
import { findEnvelopeMarkers } from './envelope';
import { opensClause } from './openingInstruction';
import { ruleMeta } from './rules';
import type { ThreatFinding } from './threatFinding';

const CLOSE_RULE = ruleMeta('forged.envelope-close');

/**
 * Whether the learned stage may NOT veto this finding in `text` (the text the finding's span is in): a
 * `forged.envelope-close` finding over a closer of OUR envelope is never vetoed, nor is a classic instruction that
 * opens its clause (`openingInstruction.ts`). The rules' other matches (closers of envelopes that are not ours, e.g.
 * `</untrusted>` quoted in a spec; the instruction quoted inside a sentence about it) keep their trained gate.
 */
export function isUngated(text: string, finding: { readonly ruleId: string; readonly start: number; readonly end: number }): boolean {
  if (finding.ruleId !== CLOSE_RULE.id) return opensClause(text, finding);
  return findEnvelopeMarkers(text).some((m) => m.closes && m.start < finding.end && finding.start < m.end);
}

/** Look-alike closers of our envelope that the rule set did not already flag at the same place. */
export function lookAlikeCloserFindings(text: string, findings: readonly ThreatFinding[]): ThreatFinding[] {
  const flagged = findings.filter((f) => f.ruleId === CLOSE_RULE.id);
  const out: ThreatFinding[] = [];
  for (const m of findEnvelopeMarkers(text)) {
    if (!m.closes || flagged.some((f) => f.start < m.end && m.start < f.end)) continue;
    out.push({ ruleId: CLOSE_RULE.id, category: CLOSE_RULE.category, severity: CLOSE_RULE.severity, message: CLOSE_RULE.message, start: m.start, end: m.end });
  }
  return out;
}

/**
 * Whether an ASCII `text` can hold a closer at all. A marker needs a character read as `<` or `>`
 * (envelope.ts `skeletonOf` returns nothing without one), and the only ASCII characters angleConfusables.ts reads
 * so are `<` and `>` themselves: every other look-alike is non-ASCII, so cannot be in ASCII text. Two `includes`
 * are far cheaper than the look-alike regex. The caller must know `text` is ASCII (the scanner's keyword pass does).
 */
export function asciiMayHoldCloser(text: string): boolean {
  return text.includes('<') || text.includes('>');
}

/**
 * `findings` with the look-alike closers added, in text order (the same array when there are none). `ascii`: the
 * caller knows `text` has no non-ASCII character (then a text without `<` and `>` is answered without a search).
 */
export function withLookAlikeClosers<T extends readonly ThreatFinding[]>(text: string, findings: T, ascii = false): T | ThreatFinding[] {
  if (ascii && !asciiMayHoldCloser(text)) return findings;
  const extra = lookAlikeCloserFindings(text, findings);
  return extra.length === 0 ? findings : [...findings, ...extra].sort((a, b) => a.start - b.start);
}
