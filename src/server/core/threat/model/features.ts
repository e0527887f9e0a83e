// Owns the learned stage's features: how a text is cut into sentence windows and how a window becomes
// hashed word, stem, word-pair and CJK character features. Training (scripts/threat-train/train.ts) and
// inference (classifier.ts) both call this module, so they cannot drift apart.
/**
 * Features, on the lowercased matching view of a text:
 * - every word (letters and digits of any script except CJK), hashed;
 * - its first five characters when it is longer (a crude stemmer that works across languages:
 *   `ignoriere`/`ignorieren`, `игнорируй`/`игнорировать`, `disregarding`/`disregard`);
 * - the pair of consecutive stems (`paste the`, `the contents`, `send to`);
 * - runs of punctuation up to four characters (`</`, `<|`, `|>`, `]:`, `---`), as one token each;
 * - CJK (Han, kana, Hangul): each character and each pair of consecutive characters (no spaces to split on);
 * - a word holding a non-ASCII letter (and longer than three): its character trigrams too (subwords: inflections of
 *   one stem and unsegmented scripts share features; ASCII words, which the fused keyword pass reads, get none).
 * Hashing is FNV-1a over UTF-16 code units with a different seed per kind; no string is allocated per token.
 * Pure module: no `vscode`, no language-server imports.
 */
import { isCjkStopCode, isStopCode, SEMICOLON } from '../sentenceSplit';
import { lowerAscii } from '../textFold';

/** FNV-1a step over one UTF-16 code unit. */
export const step = (h: number, c: number): number => Math.imul(h ^ c, 16777619);
/** Mixes two hashes into one (bigram features). */
export const mix = (a: number, b: number): number => Math.imul((a ^ Math.imul(b, 0x9e3779b1)) >>> 0, 0x85ebca6b) ^ (b >>> 13);

export const SEED_WORD = 0x811c9dc5;
export const SEED_STEM = 0x01000193;
export const SEED_PUNCT = 0x2545f491;
const SEED_CJK = 0x6c8e9cf5;
const SEED_NGRAM = 0x3c6ef372;
export const STEM_LEN = 5;
export const PUNCT_MAX = 4;

const enum Kind {
  Space = 0,
  Word = 1,
  Cjk = 2,
  Punct = 3,
}

/** Kind of each ASCII code unit: 0 space, 1 word, 3 punctuation (`Kind`). */
export const ASCII_KIND: Uint8Array = (() => {
  const t = new Uint8Array(128).fill(Kind.Punct);
  for (let c = 0; c <= 0x20; c++) t[c] = Kind.Space;
  t[0x7f] = Kind.Space;
  for (let c = 0x30; c <= 0x39; c++) t[c] = Kind.Word;
  for (let c = 0x41; c <= 0x5a; c++) t[c] = Kind.Word;
  for (let c = 0x61; c <= 0x7a; c++) t[c] = Kind.Word;
  t[0x5f] = Kind.Word;
  return t;
})();

function kindOf(c: number): Kind {
  if (c < 0x80) return ASCII_KIND[c]! as Kind;
  if (c === 0xa0 || (c >= 0x2000 && c <= 0x200b) || c === 0x3000) return Kind.Space;
  if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff)) return Kind.Cjk;
  if ((c >= 0x2010 && c <= 0x206f) || (c >= 0x3001 && c <= 0x303f) || (c >= 0xff01 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff20) || c === 0xbf || c === 0xa1 || c === 0xab || c === 0xbb) return Kind.Punct;
  return Kind.Word;
}

/** The feature hash of one lowercase word, as {@link features} (and the scanner's fused keyword pass) hash a word. */
export function wordFeatureHash(word: string): number {
  let h = SEED_WORD;
  for (let i = 0; i < word.length; i++) h = step(h, word.charCodeAt(i));
  return h | 0;
}

/** Scratch buffers the last {@link features} call wrote to (grown on demand; valid until the next call). */
let buffer = new Int32Array(1024);
let segStart = new Int32Array(64);
let segEnd = new Int32Array(64);
let segFeatEnd = new Int32Array(64);
/** Per sentence, the sum of the int8 model weights of its features, when the pass that wrote it had the weights. */
let segSum = new Float64Array(64);
let segCount = 0;
/** Counts the passes that wrote the buffers: a reader that kept the count knows whether they still hold its text's features. */
let generation = 0;

/** The count of passes that have written the feature buffers so far (see {@link featureBuffer}). */
export function featureGeneration(): number {
  return generation;
}

/** The hashes of the last {@link features} call. */
export function featureBuffer(): Int32Array {
  return buffer;
}

/**
 * The sentences of the last {@link features} call: sentence `k` spans `[start[k], end[k])` of the text and owns
 * the features before `featEnd[k]` (and from `featEnd[k - 1]`). Sentences without features are left out. `sum[k]`
 * is the sum of the model's int8 weights over the sentence's features when the scanner's fused keyword pass wrote
 * them (keywordPasses.ts `compileFusedPass`), 0 when {@link features} did.
 */
export function lastSegments(): { readonly count: number; readonly start: Int32Array; readonly end: Int32Array; readonly featEnd: Int32Array; readonly sum: Float64Array } {
  return { count: segCount, start: segStart, end: segEnd, featEnd: segFeatEnd, sum: segSum };
}

export const MAX_SEGMENT = 600;
/** A window ends after a run holding `.` `!` `?` or `;` before whitespace (sentenceSplit.ts's stops; `;` as in a clause). */
export const isWindowStop = (c: number): boolean => isStop(c) || c === semicolon;
// held here: an imported binding is a property load per use, and the pass reads these per character
const [isStop, isCjkStop, lower, semicolon] = [isStopCode, isCjkStopCode, lowerAscii, SEMICOLON];

function grow<T extends Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

/**
 * For a pass that computes the features of an ASCII text itself (keywords.ts, fused with the keyword pass):
 * empties the sentences and returns a buffer with room for the features of `length` characters. The pass
 * records its sentences with {@link closeSegment}; the result is what {@link features} would have written
 * (and the sentences' weight sums, which it does not write).
 */
export function beginFeatures(length: number): Int32Array {
  if (buffer.length < 3 * length + 3) buffer = new Int32Array(3 * length + 1024);
  segCount = 0;
  generation++;
  return buffer;
}

/**
 * Records sentence `[start, end)` owning the features before `featEnd`, unless it has none; `weightSum`: the sum
 * of the model's int8 weights over them (the fused pass computes it, {@link features} does not).
 */
export function closeSegment(start: number, end: number, featEnd: number, weightSum = 0): void {
  if (featEnd === (segCount === 0 ? 0 : segFeatEnd[segCount - 1]!)) return;
  if (segCount === segStart.length) {
    segStart = grow(segStart);
    segEnd = grow(segEnd);
    segFeatEnd = grow(segFeatEnd);
    segSum = grow(segSum);
  }
  segStart[segCount] = start;
  segEnd[segCount] = end;
  segFeatEnd[segCount] = featEnd;
  segSum[segCount] = weightSum;
  segCount++;
}

/**
 * Writes the feature hashes of `text[from, to)` to {@link featureBuffer}, and its sentences to
 * {@link lastSegments}, in one pass; returns how many features there are. A sentence ends at a line break,
 * after `.`, `!`, `?` or `;` followed by whitespace (or the end), after the CJK full stops `。！？`, and at the
 * first space past 600 characters (so a wall of text still scores locally). `text` should already be
 * lowercased unless it is ASCII (ASCII letters are folded here). No allocation per token.
 */
export function features(text: string, from: number, to: number): number {
  // at most 3 features per character (a one-letter word: word + pair; CJK: char + pair)
  if (buffer.length < 3 * (to - from) + 3) buffer = new Int32Array(3 * (to - from) + 1024);
  const out = buffer;
  let count = 0;
  segCount = 0;
  generation++;
  let sStart = -1; // start of the current sentence (-1: none yet)
  let sEnd = from; // end of the last token of the current sentence
  let prevStem = 0; // stem hash of the previous word (0: none since the last punctuation/CJK run)
  let prevCjk = -1; // previous CJK code unit in the current run
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    const k = kindOf(c);
    if (k === Kind.Space) {
      if (sStart >= 0 && (c === 0x0a || i - sStart >= MAX_SEGMENT)) {
        closeSegment(sStart, sEnd, count);
        sStart = -1;
        prevStem = 0; // a sentence's features never depend on the sentence before it
        prevCjk = -1;
      }
      i++;
      continue;
    }
    if (sStart < 0) sStart = i;
    if (k === Kind.Word) {
      let h = SEED_WORD;
      let stem = SEED_STEM;
      let len = 0;
      let wide = false;
      const wordStart = i;
      while (i < to) {
        const d = text.charCodeAt(i);
        if ((d < 0x80 ? ASCII_KIND[d]! : kindOf(d)) !== Kind.Word) break;
        const f = lower(d); // ASCII case folded here: ASCII text needs no lowercased copy
        h = step(h, f);
        if (len < STEM_LEN) stem = step(stem, f);
        if (d >= 0x80) wide = true;
        len++;
        i++;
      }
      out[count++] = h;
      if (len > STEM_LEN) out[count++] = stem;
      // a word with a non-ASCII letter also gives its character trigrams: morphology shared across inflections, and
      // scripts written without spaces (Thai, Lao, Khmer) read as pieces rather than as one unseen word
      if (wide && len > 3) for (let j = wordStart; j + 3 <= i; j++) out[count++] = step(step(step(SEED_NGRAM, lower(text.charCodeAt(j))), lower(text.charCodeAt(j + 1))), lower(text.charCodeAt(j + 2)));
      if (prevStem !== 0) out[count++] = mix(prevStem, stem);
      prevStem = stem;
      prevCjk = -1;
      sEnd = i;
      continue;
    }
    if (k === Kind.Cjk) {
      const h = step(SEED_CJK, c);
      out[count++] = h;
      if (prevCjk >= 0) out[count++] = mix(step(SEED_CJK, prevCjk), h);
      prevCjk = c;
      prevStem = 0;
      i++;
      sEnd = i;
      continue;
    }
    // punctuation run
    let h = SEED_PUNCT;
    let len = 0;
    let stop = false;
    let cjkStop = false;
    while (i < to) {
      const d = text.charCodeAt(i);
      if (kindOf(d) !== Kind.Punct) break;
      if (len < PUNCT_MAX) h = step(h, d);
      if (isWindowStop(d)) stop = true;
      else if (isCjkStop(d)) cjkStop = true;
      len++;
      i++;
    }
    out[count++] = h;
    prevStem = 0;
    prevCjk = -1;
    sEnd = i;
    if (sStart >= 0 && (cjkStop || (stop && (i >= to || kindOf(text.charCodeAt(i)) === Kind.Space)))) {
      closeSegment(sStart, sEnd, count);
      sStart = -1;
    }
  }
  if (sStart >= 0) closeSegment(sStart, sEnd, count);
  return count;
}

