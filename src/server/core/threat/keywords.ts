/**
 * Keyword prefilter: an Aho–Corasick automaton over case-folded ASCII that reports, in one linear pass,
 * which keywords occur in a text. The scanner runs a rule only when the keywords its regexes need occurred,
 * so clean text costs one pass over its characters instead of one regex per rule.
 *
 * A keyword may carry word-boundary flags: a leading `\x01` means "at a word start", a trailing one "at a
 * word end" (word characters as in a JS regex without `u`: `[A-Za-z0-9_]`), so `\x01pr\x01` reports the
 * word "pr" and not the "pr" in "process".
 *
 * Characters outside the alphabet of the keywords (and every non-ASCII character) act as a neutral symbol,
 * so the pass is a table lookup per character. Pure module.
 */
import { compileFusedPass, compilePass, CHAR_CLASS, FOUND_B64, FOUND_BASE32, FOUND_ESC, FOUND_HEX, FOUND_NO_FEATURES, FOUND_NONASCII, HIT_BITS, HIT_MASK, NONASCII, type FusedPassFn, type PassFn, type Tables } from './keywordPasses';
import { buildKeywordTables, type KeywordTables } from './keywordTables';
import { featureGeneration } from './model/features';

export { buildKeywordTables, type KeywordTables } from './keywordTables';

export class KeywordAutomaton {
  /** Keywords as given (lowercase, optional boundary markers), index = keyword id. */
  readonly keywords: readonly string[];
  /** Ids set by the scans since the last {@link reset}, in `hits[0 .. hitCount)`. */
  readonly hits: Int32Array;
  private nHits = 0;
  /** The scan loop, a closure over the tables (see {@link compilePass}). */
  private readonly pass: PassFn;
  /** The scan loop fused with the learned stage's feature pass (see {@link compileFusedPass}), built on first use. */
  private fused: FusedPassFn | undefined;
  private readonly tables: Tables;

  /**
   * The automaton of `keywords`; `tables` (what {@link buildKeywordTables} returned for the same keywords, e.g.
   * stored at build time) skips building them.
   */
  constructor(keywords: readonly string[], tables: KeywordTables = buildKeywordTables(keywords)) {
    this.keywords = keywords;
    const { alphabet } = tables;
    const charInfo = new Uint16Array(65536);
    for (let c = 0; c < 65536; c++) charInfo[c] = c < 128 ? alphabet[c]! | (CHAR_CLASS[c]! << 8) : NONASCII << 8;
    this.hits = new Int32Array(keywords.length);
    this.tables = { charInfo, delta: tables.delta, stride: tables.stride, outStart: tables.outStart, outIds: tables.outIds, kwLen: tables.kwLen, kwFlags: tables.kwFlags, hits: this.hits };
    this.pass = compilePass(this.tables);
  }

  /**
   * Sets `seen[id] = 1` for every keyword occurring in `text` and returns cheap character features
   * gathered in the same pass (used to skip the encoded-run decoders on ordinary text).
   */
  scan(text: string, seen: Uint8Array): TextFeatures {
    const before = this.nHits;
    const r = this.pass(text, seen, before);
    this.nHits = r & HIT_MASK;
    const found = r >>> HIT_BITS;
    return {
      keywords: this.nHits - before,
      hasBase64Run: (found & FOUND_B64) !== 0,
      hasHexRun: (found & FOUND_HEX) !== 0,
      hasEscape: (found & FOUND_ESC) !== 0,
      hasNonAscii: (found & FOUND_NONASCII) !== 0,
    };
  }

  /**
   * {@link scan}, and when `text` is ASCII, the learned stage's features of it in the same pass: afterwards
   * `featureBuffer()` and `lastSegments()` (model/features.ts) hold what `features(text, 0, text.length)` would
   * have written, with each sentence's sum of `weights` (the model's int8 weights, `mask` their count minus one),
   * and `featuresDone` is true. A text with a non-ASCII character is scanned as {@link scan} does (its features
   * are computed on its normalised, lowercased view instead) and `featuresDone` is false.
   */
  scanWithFeatures(text: string, seen: Uint8Array, weights: Int8Array, mask: number): FusedFeatures {
    const before = this.nHits;
    const r = (this.fused ??= compileFusedPass(this.tables))(text, seen, before, weights, mask);
    this.nHits = r & HIT_MASK;
    const found = r >>> HIT_BITS;
    return {
      keywords: this.nHits - before,
      hasBase64Run: (found & FOUND_B64) !== 0,
      hasHexRun: (found & FOUND_HEX) !== 0,
      hasEscape: (found & FOUND_ESC) !== 0,
      hasNonAscii: (found & FOUND_NONASCII) !== 0,
      featuresDone: (found & FOUND_NO_FEATURES) === 0,
      hasBase32Word: (found & FOUND_BASE32) !== 0,
      generation: featureGeneration(),
    };
  }

  /** Clears, in `seen`, the ids every {@link scan} since the last reset set. */
  reset(seen: Uint8Array): void {
    for (let k = 0; k < this.nHits; k++) seen[this.hits[k]!] = 0;
    this.nHits = 0;
  }

  /** Number of ids in {@link hits}. */
  get hitCount(): number {
    return this.nHits;
  }
}

/** {@link TextFeatures} of the fused pass (`KeywordAutomaton.scanWithFeatures`). */
export interface FusedFeatures extends TextFeatures {
  /** The learned stage's features of the text are computed (it is ASCII). */
  readonly featuresDone: boolean;
  /** When `featuresDone`: a word starts with decoders.ts BASE32_MIN characters of the base32 alphabet (else false). */
  readonly hasBase32Word: boolean;
  /** model/features.ts featureGeneration() after the pass: while it is unchanged, the feature buffer holds this text's features. */
  readonly generation: number;
}

/** Character features of a text, from the prefilter pass. */
export interface TextFeatures {
  /** Distinct keywords seen. */
  readonly keywords: number;
  /**
   * Has a run of ≥ 20 base64 alphabet characters (`A–Z a–z 0–9 + / = _ -`) holding both letter cases and a
   * non-letter: what the base64 decoder needs before it decodes a run.
   */
  readonly hasBase64Run: boolean;
  /** Has a run of ≥ 23 hex digits and byte separators (`0–9 a–f A–F` space `:` `,` `-`): 8 separated bytes. */
  readonly hasHexRun: boolean;
  /** Contains `\` or `%` (escape sequences, percent-encoding). */
  readonly hasEscape: boolean;
  readonly hasNonAscii: boolean;
}
