/**
 * Our closer policy, in one place: a closer of our own envelope (`</knowledge-untrusted>` in any spelling the
 * envelope gate folds: separator runs, fullwidth, zero-width, homoglyphs) is a `forged.envelope-close` finding,
 * and that finding is UNGATED: the learned stage never vetoes it, however benign the rest of the text reads
 * (a note that closes our envelope is out of place whatever it says). The scan loop (`textScan.ts`) skips the
 * model's gate for these rules, training (`scripts/threat-train/train.ts`) counts them as it counts detectors and
 * trains no gate for them, and the judgement (`judgement.ts`) adds the look-alike closers the rule set did not
 * already flag at the same place. Pure: no `vscode`.
 */
import { findEnvelopeMarkers } from './envelope';
import { ruleMeta } from './rules';
import type { ThreatFinding } from './textScan';

const CLOSE_RULE = ruleMeta('forged.envelope-close');

/** Rules the learned stage never vetoes (a gate in the model's data for one of them is ignored). */
const UNGATED: ReadonlySet<string> = new Set([CLOSE_RULE.id]);

/** Whether the learned stage may veto a finding of this rule (see the module's comment). */
export const isUngated = (ruleId: string): boolean => UNGATED.has(ruleId);

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

/** `findings` with the look-alike closers added, in text order (the same array when there are none). */
export function withLookAlikeClosers<T extends readonly ThreatFinding[]>(text: string, findings: T): T | ThreatFinding[] {
  const extra = lookAlikeCloserFindings(text, findings);
  return extra.length === 0 ? findings : [...findings, ...extra].sort((a, b) => a.start - b.start);
}
