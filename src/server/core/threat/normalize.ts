/**
 * Normalisation for matching, with an offset map back to the original text.
 *
 * Rules match on a *view* of the text in which the usual evasions are undone:
 * - NFKC (full-width letters, mathematical alphanumerics, ligatures, NBSP → their plain forms);
 * - invisible characters dropped: zero-width space/joiners, word joiner, BOM, soft hyphen, bidi controls,
 *   Unicode tag characters, variation selectors, Hangul fillers, and the replacement character, object and
 *   annotation characters and noncharacters that a mangled byte leaves inside a word (`instr\uFFFDuctions`);
 * - a small homoglyph fold (Cyrillic/Greek letters that look Latin: textFold.ts HOMOGLYPHS) so `іgnоre` matches `ignore`.
 *
 * Findings must point into the ORIGINAL text, so every character of the view carries the original span
 * it came from (`start[i]`, `end[i]`). ASCII text (the common case) is its own view: `map` is null and
 * offsets are identical. Pure module: no `vscode`, no language-server imports.
 */

import { HOMOGLYPHS as FOLDED } from './textFold';

/** The look-alike table, held here: an imported binding is a property load per use. */
const HOMOGLYPHS = FOLDED;

/** A matching view of a text. */
export interface NormalizedText {
  /** The view rules run on. */
  readonly text: string;
  /**
   * Offset map, or null when `text` is the original text unchanged (identity map).
   * `start[i]`/`end[i]` are the original UTF-16 offsets of the source character of view character `i`.
   */
  readonly map: { readonly start: Int32Array; readonly end: Int32Array } | null;
}

/** Characters removed from the matching view (they render as nothing, or only steer direction). */
export const INVISIBLE_RE =
  // eslint-disable-next-line no-misleading-character-class -- these invisible characters are the point
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufdd0-\ufdef\ufe00-\ufe0f\ufeff\uffa0\ufff9-\uffff\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/u;

const NON_ASCII_RE = /[\u0080-\uffff]/;

const HOMOGLYPH_RE = new RegExp(`[${Object.keys(HOMOGLYPHS).join('')}]`);

const COMBINING_RE = /\p{M}/u;

/**
 * Builds the matching view of `text`. ASCII text without control tricks is returned as is (fast path);
 * otherwise the text is walked cluster by cluster (a base character with its combining marks), each cluster
 * NFKC-normalised on its own so the offset map stays exact.
 */
export function normalizeForMatching(text: string): NormalizedText {
  if (!NON_ASCII_RE.test(text)) return { text, map: null };
  if (!INVISIBLE_RE.test(text) && !HOMOGLYPH_RE.test(text) && text.normalize('NFKC') === text) return { text, map: null };

  const out: string[] = [];
  const start: number[] = [];
  const end: number[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    // One cluster: a code point plus following combining marks.
    const cp = text.codePointAt(i)!;
    let j = i + (cp > 0xffff ? 2 : 1);
    const first = text.slice(i, j);
    if (INVISIBLE_RE.test(first)) {
      i = j;
      continue;
    }
    while (j < n) {
      const c2 = text.codePointAt(j)!;
      const w = c2 > 0xffff ? 2 : 1;
      const ch = text.slice(j, j + w);
      if (!COMBINING_RE.test(ch) || INVISIBLE_RE.test(ch)) break;
      j += w;
    }
    const cluster = text.slice(i, j);
    let norm = cluster.charCodeAt(0) < 0x80 && cluster.length === 1 ? cluster : cluster.normalize('NFKC');
    if (norm.length === 1 && HOMOGLYPHS[norm] !== undefined) norm = HOMOGLYPHS[norm]!;
    for (let k = 0; k < norm.length; k++) {
      out.push(norm[k]!);
      start.push(i);
      end.push(j);
    }
    i = j;
  }
  return { text: out.join(''), map: { start: Int32Array.from(start), end: Int32Array.from(end) } };
}

/**
 * Maps a half-open span `[s, e)` of the view back to the original text. Empty or out-of-range spans are
 * clamped. With an identity map the span is returned unchanged.
 */
export function toOriginalSpan(view: NormalizedText, s: number, e: number): [number, number] {
  const m = view.map;
  if (!m) return [s, e];
  const len = m.start.length;
  if (len === 0) return [0, 0];
  const a = Math.min(Math.max(s, 0), len - 1);
  const b = Math.min(Math.max(e - 1, a), len - 1);
  return [m.start[a]!, m.end[b]!];
}
