/**
 * Excerpts of what matched in a text: cut by the side that judged the text, from the very text it judged (the
 * server for files, so the panel never reads a knowledge file nor asks for it to be judged again). Pure: no I/O.
 */
import type { FindingSpan } from '../../../shared/schemas';

/** Characters of context kept on each side of a match. */
export const EXCERPT_CONTEXT = 100;
/** Spans shown per item at most. */
export const MAX_SPANS = 5;

/** An excerpt of `text` around [start, end), with offsets into the excerpt. */
export function excerptSpan(text: string, start: number, end: number, context = EXCERPT_CONTEXT): { text: string; start: number; end: number } {
  const s = Math.max(0, Math.min(start, text.length));
  const e = Math.max(s, Math.min(end, text.length));
  const from = Math.max(0, s - context);
  const to = Math.min(text.length, e + context);
  const prefix = from > 0 ? '…' : '';
  const suffix = to < text.length ? '…' : '';
  return { text: prefix + text.slice(from, to) + suffix, start: s - from + prefix.length, end: e - from + prefix.length };
}

/** The first {@link MAX_SPANS} findings on `text`, each with its excerpt. */
export function findingSpans(text: string, findings: readonly { ruleId: string; category: string; message: string; start: number; end: number }[]): FindingSpan[] {
  return findings.slice(0, MAX_SPANS).map((f) => ({ ruleId: f.ruleId, category: f.category, message: f.message, ...excerptSpan(text, f.start, f.end) }));
}
