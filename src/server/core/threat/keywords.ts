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
import { ASCII_KIND, beginFeatures, closeSegment, MAX_SEGMENT, mix, PUNCT_MAX, SEED_PUNCT, SEED_STEM, SEED_WORD, STEM_LEN, step } from './model/features';

export class KeywordAutomaton {
  /** Keywords as given (lowercase, optional boundary markers), index = keyword id. */
  readonly keywords: readonly string[];
  /** Ids set by the scans since the last {@link reset}, in `hits[0 .. hitCount)`. */
  readonly hits: Int32Array;
  private nHits = 0;
  /** The scan loop, a closure over the tables (see {@link compilePass}). */
  private readonly pass: PassFn;
  /** The scan loop fused with the learned stage's feature pass (see {@link compileFusedPass}), built on first use. */
  private fused: PassFn | undefined;
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
   * have written, and `featuresDone` is true. A text with a non-ASCII character is scanned as {@link scan} does
   * (its features are computed on its normalised, lowercased view instead) and `featuresDone` is false.
   */
  scanWithFeatures(text: string, seen: Uint8Array): TextFeatures & { readonly featuresDone: boolean } {
    const before = this.nHits;
    const r = (this.fused ??= compileFusedPass(this.tables))(text, seen, before);
    this.nHits = r & HIT_MASK;
    const found = r >>> HIT_BITS;
    return {
      keywords: this.nHits - before,
      hasBase64Run: (found & FOUND_B64) !== 0,
      hasHexRun: (found & FOUND_HEX) !== 0,
      hasEscape: (found & FOUND_ESC) !== 0,
      hasNonAscii: (found & FOUND_NONASCII) !== 0,
      featuresDone: (found & FOUND_NO_FEATURES) === 0,
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


/** The automaton's tables, as {@link buildKeywordTables} computes them (plain typed arrays: storable). */
export interface KeywordTables {
  /** ASCII char code → symbol (0 = not in any keyword), case-folded. */
  readonly alphabet: Uint8Array;
  readonly delta: Uint16Array;
  readonly stride: number;
  readonly outStart: Int32Array;
  readonly outIds: Int32Array;
  readonly kwLen: Int32Array;
  readonly kwFlags: Uint8Array;
}

/** Builds the Aho-Corasick tables of `keywords` (a trie, failure links folded into a full transition table). */
export function buildKeywordTables(keywords: readonly string[]): KeywordTables {
  const alphabet = new Uint8Array(128);
  let symbols = 1;
  const cores: string[] = [];
  if (keywords.length > MAX_KEYWORDS) throw new Error('too many keywords');
  const kwLen = new Int32Array(keywords.length);
  const kwFlags = new Uint8Array(keywords.length);
  keywords.forEach((raw, id) => {
    let k = raw;
    let flags = 0;
    if (k.startsWith(MARK)) [k, flags] = [k.slice(1), flags | START];
    if (k.endsWith(MARK) && k.length > 1) [k, flags] = [k.slice(0, -1), flags | END];
    if (k.length === 0 || k.includes(MARK)) throw new Error(`keyword ${JSON.stringify(raw)}: empty or misplaced boundary marker`);
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i);
      if (c >= 128) throw new Error(`keyword ${JSON.stringify(raw)}: ASCII only`);
      if (c >= 65 && c <= 90) throw new Error(`keyword ${JSON.stringify(raw)}: lowercase only`);
      if (alphabet[c] === 0) alphabet[c] = symbols++;
    }
    cores.push(k);
    kwLen[id] = k.length;
    kwFlags[id] = flags;
  });
  for (let c = 65; c <= 90; c++) alphabet[c] = alphabet[c + 32]!; // case fold
  if (symbols > 255) throw new Error('keyword alphabet too large');

  // Trie.
  const goto: number[][] = [new Array<number>(symbols).fill(-1)];
  const outs: number[][] = [[]];
  cores.forEach((k, id) => {
    let s = 0;
    for (let i = 0; i < k.length; i++) {
      const a = alphabet[k.charCodeAt(i)]!;
      if (goto[s]![a] === -1) {
        goto[s]![a] = goto.length;
        goto.push(new Array<number>(symbols).fill(-1));
        outs.push([]);
      }
      s = goto[s]![a]!;
    }
    outs[s]!.push(id);
  });

  // Failure links (BFS) folded into a full transition table.
  const fail = new Array<number>(goto.length).fill(0);
  const delta = new Int32Array(goto.length * symbols);
  const queue: number[] = [];
  for (let a = 0; a < symbols; a++) {
    const t = goto[0]![a]!;
    if (t === -1) delta[a] = 0;
    else {
      delta[a] = t;
      fail[t] = 0;
      queue.push(t);
    }
  }
  for (let qi = 0; qi < queue.length; qi++) {
    const s = queue[qi]!;
    outs[s]!.push(...outs[fail[s]!]!);
    for (let a = 0; a < symbols; a++) {
      const t = goto[s]![a]!;
      if (t === -1) delta[s * symbols + a] = delta[fail[s]! * symbols + a]!;
      else {
        delta[s * symbols + a] = t;
        fail[t] = delta[fail[s]! * symbols + a]!;
        queue.push(t);
      }
    }
  }
  // Mark states with outputs in the high bit (2-byte entries keep the hot rows in the L1 cache).
  if (goto.length > OUT) throw new Error('keyword automaton too large');
  const delta16 = new Uint16Array(delta.length);
  for (let i = 0; i < delta.length; i++) {
    const t = delta[i]!;
    delta16[i] = outs[t]!.length ? t | OUT : t;
  }
  const outStart = new Int32Array(goto.length).fill(-1);
  const ids: number[] = [];
  outs.forEach((o, s) => {
    if (o.length) {
      outStart[s] = ids.length;
      ids.push(...new Set(o), -1);
    }
  });
  return { alphabet, delta: delta16, stride: symbols, outStart, outIds: Int32Array.from(ids), kwLen, kwFlags };
}

/** The automaton's tables. */
interface Tables {
  /** char code (0..65535) → symbol (low 8 bits, 0 = other) | character-class flags (high bits). */
  readonly charInfo: Uint16Array;
  /** Transitions: `delta[state * stride + symbol]` is the next state, with OUT set when it has outputs. */
  readonly delta: Uint16Array;
  readonly stride: number;
  readonly outStart: Int32Array; // state → offset into outIds (or -1)
  readonly outIds: Int32Array; // -1-terminated lists
  readonly kwLen: Int32Array; // keyword id → length without markers
  readonly kwFlags: Uint8Array; // keyword id → START | END
  readonly hits: Int32Array;
}

/**
 * One pass over `text`: records new keyword ids in `seen` and `hits` from `hitCount` on and returns the new
 * hit count (low {@link HIT_BITS} bits) with the FOUND_* feature bits above it.
 */
type PassFn = (text: string, seen: Uint8Array, hitCount: number) => number;

/**
 * The scan loop as a closure over the tables: V8 treats the closure's constants as constants (base pointers
 * and lengths stay out of the loop's registers), which makes the loop about a quarter faster than reading
 * the tables off `this`. The run features are tracked without branches: a mask is -1 on a character of the
 * class and 0 off it, so a run length is `(len + 1) & mask`.
 */
function compilePass(t: Tables): PassFn {
  const { charInfo, delta, stride, outStart, outIds, kwLen, kwFlags, hits } = t;
  return (text, seen, hitCount) => {
    let s = 0;
    let flags = 0;
    let b64Len = 0;
    let b64Cls = 0; // class flags of the current base64 run
    let hexLen = 0;
    let found = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const info = charInfo[text.charCodeAt(i)]!;
      flags |= info;
      s = delta[s * stride + (info & 0xff)]!;
      if (s >= OUT) {
        s -= OUT;
        for (let k = outStart[s]!; outIds[k]! >= 0; k++) {
          const id = outIds[k]!;
          if (seen[id] !== 0) continue;
          const f = kwFlags[id]!;
          if (f !== 0) {
            if (f & START) {
              const p = i - kwLen[id]!;
              if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
            }
            if (f & END && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
          }
          seen[id] = 1;
          hits[hitCount++] = id;
        }
      }
      const inB64 = -((info >> (8 + B64_BIT)) & 1);
      const inHex = -((info >> (8 + HEXSEP_BIT)) & 1);
      b64Len = (b64Len + 1) & inB64;
      b64Cls = (b64Cls | info) & inB64;
      hexLen = (hexLen + 1) & inHex;
      // rare in prose: one well-predicted branch per character
      if (b64Len >= B64_MIN || hexLen >= HEX_MIN) {
        if (b64Len >= B64_MIN && (b64Cls & B64_MIXED) === B64_MIXED) found |= FOUND_B64;
        if (hexLen >= HEX_MIN) found |= FOUND_HEX;
      }
    }
    const cls = flags >> 8;
    if (cls & ESC) found |= FOUND_ESC;
    if (cls & NONASCII) found |= FOUND_NONASCII;
    return hitCount | (found << HIT_BITS);
  };
}

/**
 * {@link compilePass} fused with the learned stage's feature pass (`features` in model/features.ts) for ASCII
 * text: the keyword automaton steps inside the feature pass's word and punctuation loops, so both run over
 * the text once and their dependency chains (a table walk, a multiply-and-xor hash) overlap. For ASCII text
 * it writes exactly what `features(text, 0, text.length)` writes (test/unit/threatFusedPass.test.ts holds it to
 * that over the corpora); at the first non-ASCII character it leaves the features and goes on as the plain pass.
 */
function compileFusedPass(t: Tables): PassFn {
  const { charInfo, delta, stride, outStart, outIds, kwLen, kwFlags, hits } = t;
  // the feature pass's tables and constants as closure constants (an imported binding is a property load
  // per use in CommonJS output)
  const KIND = ASCII_KIND;
  const [seedWord, seedStem, seedPunct, stemLen, punctMax, maxSegment] = [SEED_WORD, SEED_STEM, SEED_PUNCT, STEM_LEN, PUNCT_MAX, MAX_SEGMENT];
  const hash = step;
  const pair = mix;
  const record = closeSegment;
  const begin = beginFeatures;
  return (text, seen, hitCount) => {
    let s = 0;
    let flags = 0;
    let b64Len = 0;
    let b64Cls = 0;
    let hexLen = 0;
    let found = 0;
    const n = text.length;
    const out = begin(n);
    let count = 0;
    let sStart = -1; // start of the current sentence (-1: none yet)
    let sEnd = 0; // end of the last token of the current sentence
    let prevStem = 0; // stem hash of the previous word (0: none since the last punctuation)
    let i = 0;
    let ascii = true;
    outer: while (i < n) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        ascii = false;
        break;
      }
      const kind = KIND[c]!;
      if (kind === 0) {
        // space
        {
          const info = charInfo[c]!;
          flags |= info;
          s = delta[s * stride + (info & 0xff)]!;
          if (s >= OUT) {
            s -= OUT;
            for (let k = outStart[s]!; outIds[k]! >= 0; k++) {
              const id = outIds[k]!;
              if (seen[id] !== 0) continue;
              const f = kwFlags[id]!;
              if (f !== 0) {
                if (f & START) {
                  const p = i - kwLen[id]!;
                  if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
                }
                if (f & END && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
              }
              seen[id] = 1;
              hits[hitCount++] = id;
            }
          }
          const inB64 = -((info >> (8 + B64_BIT)) & 1);
          const inHex = -((info >> (8 + HEXSEP_BIT)) & 1);
          b64Len = (b64Len + 1) & inB64;
          b64Cls = (b64Cls | info) & inB64;
          hexLen = (hexLen + 1) & inHex;
          if (b64Len >= B64_MIN || hexLen >= HEX_MIN) {
            if (b64Len >= B64_MIN && (b64Cls & B64_MIXED) === B64_MIXED) found |= FOUND_B64;
            if (hexLen >= HEX_MIN) found |= FOUND_HEX;
          }
        }
        if (sStart >= 0 && (c === 0x0a || i - sStart >= maxSegment)) {
          record(sStart, sEnd, count);
          sStart = -1;
          prevStem = 0;
        }
        i++;
        continue;
      }
      if (sStart < 0) sStart = i;
      if (kind === 1) {
        // a word: its hash, its stem (first STEM_LEN characters), the pair with the previous stem
        let h = seedWord;
        let stem = seedStem;
        let len = 0;
        while (i < n) {
          let d = text.charCodeAt(i);
          if (d >= 0x80) {
            ascii = false;
            break outer;
          }
          if (KIND[d] !== 1) break;
          {
            const info = charInfo[d]!;
            flags |= info;
            s = delta[s * stride + (info & 0xff)]!;
            if (s >= OUT) {
              s -= OUT;
              for (let k = outStart[s]!; outIds[k]! >= 0; k++) {
                const id = outIds[k]!;
                if (seen[id] !== 0) continue;
                const f = kwFlags[id]!;
                if (f !== 0) {
                  if (f & START) {
                    const p = i - kwLen[id]!;
                    if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
                  }
                  if (f & END && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
                }
                seen[id] = 1;
                hits[hitCount++] = id;
              }
            }
            const inB64 = -((info >> (8 + B64_BIT)) & 1);
            const inHex = -((info >> (8 + HEXSEP_BIT)) & 1);
            b64Len = (b64Len + 1) & inB64;
            b64Cls = (b64Cls | info) & inB64;
            hexLen = (hexLen + 1) & inHex;
            if (b64Len >= B64_MIN || hexLen >= HEX_MIN) {
              if (b64Len >= B64_MIN && (b64Cls & B64_MIXED) === B64_MIXED) found |= FOUND_B64;
              if (hexLen >= HEX_MIN) found |= FOUND_HEX;
            }
          }
          if (d >= 0x41 && d <= 0x5a) d |= 0x20;
          h = hash(h, d);
          if (len < stemLen) stem = hash(stem, d);
          len++;
          i++;
        }
        out[count++] = h;
        if (len > stemLen) out[count++] = stem;
        if (prevStem !== 0) out[count++] = pair(prevStem, stem);
        prevStem = stem;
        sEnd = i;
        continue;
      }
      // a punctuation run
      let h = seedPunct;
      let len = 0;
      let stop = false;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 0x80) {
          ascii = false;
          break outer;
        }
        if (KIND[d] !== 3) break;
        {
            const info = charInfo[d]!;
            flags |= info;
            s = delta[s * stride + (info & 0xff)]!;
            if (s >= OUT) {
              s -= OUT;
              for (let k = outStart[s]!; outIds[k]! >= 0; k++) {
                const id = outIds[k]!;
                if (seen[id] !== 0) continue;
                const f = kwFlags[id]!;
                if (f !== 0) {
                  if (f & START) {
                    const p = i - kwLen[id]!;
                    if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
                  }
                  if (f & END && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
                }
                seen[id] = 1;
                hits[hitCount++] = id;
              }
            }
            const inB64 = -((info >> (8 + B64_BIT)) & 1);
            const inHex = -((info >> (8 + HEXSEP_BIT)) & 1);
            b64Len = (b64Len + 1) & inB64;
            b64Cls = (b64Cls | info) & inB64;
            hexLen = (hexLen + 1) & inHex;
            if (b64Len >= B64_MIN || hexLen >= HEX_MIN) {
              if (b64Len >= B64_MIN && (b64Cls & B64_MIXED) === B64_MIXED) found |= FOUND_B64;
              if (hexLen >= HEX_MIN) found |= FOUND_HEX;
            }
          }
        if (len < punctMax) h = hash(h, d);
        if (d === 0x2e || d === 0x21 || d === 0x3f || d === 0x3b) stop = true;
        len++;
        i++;
      }
      out[count++] = h;
      prevStem = 0;
      sEnd = i;
      // a sentence ends after . ! ? ; before a space (a non-ASCII character next ends the pass anyway)
      if (stop && (i >= n || (text.charCodeAt(i) < 0x80 && KIND[text.charCodeAt(i)] === 0))) {
        record(sStart, sEnd, count);
        sStart = -1;
      }
    }
    if (ascii) {
      if (sStart >= 0) record(sStart, sEnd, count);
    } else {
      // a non-ASCII character at i: the features are left unfinished (the model reads the normalised view);
      // the keyword pass goes on as compilePass's loop does
      found |= FOUND_NO_FEATURES;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        const info = charInfo[c]!;
        flags |= info;
        s = delta[s * stride + (info & 0xff)]!;
        if (s >= OUT) {
          s -= OUT;
          for (let k = outStart[s]!; outIds[k]! >= 0; k++) {
            const id = outIds[k]!;
            if (seen[id] !== 0) continue;
            const f = kwFlags[id]!;
            if (f !== 0) {
              if (f & START) {
                const p = i - kwLen[id]!;
                if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
              }
              if (f & END && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
            }
            seen[id] = 1;
            hits[hitCount++] = id;
          }
        }
        const inB64 = -((info >> (8 + B64_BIT)) & 1);
        const inHex = -((info >> (8 + HEXSEP_BIT)) & 1);
        b64Len = (b64Len + 1) & inB64;
        b64Cls = (b64Cls | info) & inB64;
        hexLen = (hexLen + 1) & inHex;
        if (b64Len >= B64_MIN || hexLen >= HEX_MIN) {
          if (b64Len >= B64_MIN && (b64Cls & B64_MIXED) === B64_MIXED) found |= FOUND_B64;
          if (hexLen >= HEX_MIN) found |= FOUND_HEX;
        }
      }
    }
    const cls = flags >> 8;
    if (cls & ESC) found |= FOUND_ESC;
    if (cls & NONASCII) found |= FOUND_NONASCII;
    return hitCount | (found << HIT_BITS);
  };
}

/** A pass result: the hit count in the low bits, the features above. */
const HIT_BITS = 16;
const HIT_MASK = (1 << HIT_BITS) - 1;
const MAX_KEYWORDS = HIT_MASK;
const FOUND_B64 = 1;
const FOUND_HEX = 2;
const FOUND_ESC = 4;
const FOUND_NONASCII = 8;
/** Fused pass only: the text has a non-ASCII character, its features were not computed. */
const FOUND_NO_FEATURES = 16;

const MARK = '\x01';
/** Output flag in a transition entry (so at most 32 767 states). */
const OUT = 0x8000;
const START = 1;
const END = 2;

const isWordCode = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

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

/** Shortest base64 run the decoders try, and the shortest hex run (8 separated bytes). */
const B64_MIN = 20;
const HEX_MIN = 23;
const B64_BIT = 0;
const HEXSEP_BIT = 1;
const B64 = 1 << B64_BIT;
const HEXSEP = 1 << HEXSEP_BIT;
const ESC = 4;
const NONASCII = 8;
const UPPER = 16;
const LOWER = 32;
const NONLETTER = 64; // digits and `+ / = _ -`
/** What the base64 decoder needs in a run: both cases and a non-letter (see decoders.ts). */
const B64_MIXED = (UPPER | LOWER | NONLETTER) << 8;
const CHAR_CLASS: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    if (/[A-Za-z0-9+/=_-]/.test(ch)) t[c]! |= B64;
    if (/[A-Z]/.test(ch)) t[c]! |= UPPER;
    if (/[a-z]/.test(ch)) t[c]! |= LOWER;
    if (/[0-9+/=_-]/.test(ch)) t[c]! |= NONLETTER;
    if (/[0-9a-fA-F :,-]/.test(ch)) t[c]! |= HEXSEP;
    if (ch === '\\' || ch === '%') t[c]! |= ESC;
  }
  return t;
})();
