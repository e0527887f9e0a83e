/**
 * The scan every read goes through: the current rule set, cached by (content hash, rule-set version), so an
 * entry written before a rule existed, or edited on disk since, is judged now. On top of the rules, a closer
 * of our own envelope in any spelling the envelope gate folds (separator runs, fullwidth, zero-width,
 * homoglyphs) is a `forged.envelope-close` finding, so the person sees it; the gate escapes it either way.
 */
import type { ScanFn } from '../delivery/knowledgeBlock';
import { findEnvelopeMarkers } from './envelope';
import { ruleMeta } from './rules';
import { scanText, ThreatScanner, type ThreatFinding } from './threatScanner';

export const sharedScanner = new ThreatScanner();

const CLOSE_RULE = ruleMeta('forged.envelope-close');

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

function withLookAlikeClosers(text: string, findings: readonly ThreatFinding[]): readonly ThreatFinding[] {
  const extra = lookAlikeCloserFindings(text, findings);
  return extra.length === 0 ? findings : [...findings, ...extra].sort((a, b) => a.start - b.start);
}

/** Whole verdicts (rules and look-alike closers) by content hash, when the caller passes one: a re-read pin costs a lookup. */
const byHash = new Map<string, readonly ThreatFinding[]>();
const BY_HASH_MAX = 10_000;

export const defaultScan: ScanFn = (text, contentHash) => {
  if (contentHash !== undefined) {
    const hit = byHash.get(contentHash);
    if (hit) return hit;
  }
  const out = withLookAlikeClosers(text, sharedScanner.scan(text, contentHash));
  if (contentHash !== undefined) {
    if (byHash.size >= BY_HASH_MAX) byHash.delete(byHash.keys().next().value!);
    byHash.set(contentHash, out);
  }
  return out;
};

/** What every read judges, without the cache: the rule set and the learned stage plus look-alike closers (CLI, eval). */
export const scanKnowledgeText = (text: string): readonly ThreatFinding[] => withLookAlikeClosers(text, scanText(text));
