// Owns the keyword prefilter's scan loops over the tables keywordTables.ts builds: the plain pass (keywords seen,
// and the character features that decide whether the decoders run) and the same pass fused with the learned
// stage's feature pass for ASCII text (model/features.ts: its windows end on the stops of sentenceSplit.ts, its
// letters fold as textFold.ts's lowerAscii).
/** Pure module: no `vscode`, no language-server imports. */
import { ASCII_KIND, beginFeatures, closeSegment, isWindowStop, MAX_SEGMENT, mix, PUNCT_MAX, SEED_PUNCT, SEED_STEM, SEED_WORD, STEM_LEN, step } from './model/features';
import { lowerAscii } from './textFold';
import { BASE32_MIN } from './decoders';

/** At most this many keywords (a pass result keeps the hit count in its low 16 bits). */
export const MAX_KEYWORDS = (1 << 16) - 1;
/** Output flag in a transition entry (so at most 32 767 states). Defined here, not imported: the loops read it per character. */
export const OUT = 0x8000;
/** Keyword flags: must start / end at a word boundary. */
export const START = 1;
export const END = 2;

/** The automaton's tables. */
export interface Tables {
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
export type PassFn = (text: string, seen: Uint8Array, hitCount: number) => number;

/**
 * {@link PassFn} fused with the feature pass: `weights` are the learned stage's int8 weights (`mask`: their count
 * minus one, a power of two), summed per sentence as the features are hashed (`lastSegments().sum`).
 */
export type FusedPassFn = (text: string, seen: Uint8Array, hitCount: number, weights: Int8Array, mask: number) => number;

/**
 * The scan loop as a closure over the tables: V8 treats the closure's constants as constants (base pointers
 * and lengths stay out of the loop's registers), which makes the loop about a quarter faster than reading
 * the tables off `this`. The run features are tracked without branches: a mask is -1 on a character of the
 * class and 0 off it, so a run length is `(len + 1) & mask`.
 */
export function compilePass(t: Tables): PassFn {
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
 * It also sums the model's weights of each sentence's features as it hashes them (so scoring need not read
 * the features again: model/windows.ts `scoreWindows`); the sums are of int8 values, exact in any order.
 *
 * Written for V8's optimising compiler: the loops read only locals and literals (a binding of the enclosing
 * closure or module is a context load with a hole or type check at every use, and the optimised loop spent
 * more time on those than on its work), the hash step is written out, every seed is an int32 (SEED_WORD is
 * above 2^31: a hash that starts as a double is converted at every step), and one table holds what the word
 * loop reads of an ASCII character (see {@link fusedAsciiTable}).
 */
export function compileFusedPass(t: Tables): FusedPassFn {
  const { charInfo, delta, stride, outStart, outIds, kwLen, kwFlags, hits } = t;
  const table = fusedAsciiTable(charInfo);
  // held as int32 (see above); the tests hold the pass to features(), so a seed that moved there fails them
  const seeds = Int32Array.of(SEED_WORD, SEED_STEM, SEED_PUNCT);
  if ((stride & (stride - 1)) !== 0) throw new Error('keywordPasses: the transition table\'s stride is not a power of two');
  const sizes = Int32Array.of(STEM_LEN, PUNCT_MAX, MAX_SEGMENT, 31 - Math.clz32(stride));
  return (text, seen, hitCount, weights, mask) => {
    // everything the loops read, as locals
    const A = table;
    const CI = charInfo;
    const D = delta;
    const WS = sizes[3]!; // log2 of the stride: a row's offset is a shift (an integer multiply is three cycles longer on the chain)
    const OS = outStart;
    const OI = outIds;
    const KL = kwLen;
    const KF = kwFlags;
    const HITS = hits;
    const seedWord = seeds[0]!;
    const seedStem = seeds[1]!;
    const seedPunct = seeds[2]!;
    const stemLen = sizes[0]!;
    const punctMax = sizes[1]!;
    const maxSegment = sizes[2]!;
    const pair = mix;
    const record = closeSegment;
    let s = 0;
    let flags = 0; // character classes seen (only the ESC and non-ASCII classes are read: no word or space character has them)
    let b64Len = 0;
    let b64Cls = 0;
    let hexLen = 0;
    let found = 0;
    let hexReached = 0;
    const n = text.length;
    const out = beginFeatures(n);
    let count = 0;
    let sum = 0; // the weights of the current sentence's features so far
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
      const first = A[c]!;
      const kind = first & P.KindBits;
      if (kind === P.KindSpace) {
        s = D[(s << WS) + (first & 0xff)]!;
        if (s >= P.Out) {
          s -= P.Out;
          for (let k = OS[s]!; OI[k]! >= 0; k++) {
            const id = OI[k]!;
            if (seen[id] !== 0) continue;
            const f = KF[id]!;
            if (f !== 0) {
              if (f & PK.Start) {
                const p = i - KL[id]!;
                if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
              }
              if (f & PK.End && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
            }
            seen[id] = 1;
            HITS[hitCount++] = id;
          }
        }
        // a space ends a base64 run; it may be a hex separator
        b64Len = 0;
        b64Cls = 0;
        hexLen = (hexLen + 1) & -((first >> P.HexShift) & 1);
        if (hexLen >= P.HexMin) found |= PF.Hex;
        if (sStart >= 0 && (c === 0x0a || i - sStart >= maxSegment)) {
          record(sStart, sEnd, count, sum);
          sum = 0;
          sStart = -1;
          prevStem = 0;
        }
        i++;
        continue;
      }
      if (sStart < 0) sStart = i;
      if (kind === P.KindWord) {
        // a word: its hash, its stem (first STEM_LEN characters), the pair with the previous stem
        let h = seedWord;
        let stem = seedStem;
        let len = 0;
        // the base64 run is taken per word (below), from the OR of its characters' classes; the hex run per character,
        // without a branch (hexReached: negative once a run reaches the minimum)
        let any = 0;
        const ws = i;
        while (i < n) {
          const d = text.charCodeAt(i);
          if (d >= 0x80) {
            ascii = false;
            break;
          }
          const info = A[d]!;
          if ((info & P.KindBits) !== P.KindWord) break;
          s = D[(s << WS) + (info & 0xff)]!;
          if (s >= P.Out) {
            s -= P.Out;
            for (let k = OS[s]!; OI[k]! >= 0; k++) {
              const id = OI[k]!;
              if (seen[id] !== 0) continue;
              const f = KF[id]!;
              if (f !== 0) {
                if (f & PK.Start) {
                  const p = i - KL[id]!;
                  if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
                }
                if (f & PK.End && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
              }
              seen[id] = 1;
              HITS[hitCount++] = id;
            }
          }
          any |= info;
          hexLen = (hexLen + 1) & -((info >> P.HexShift) & 1);
          hexReached |= (P.HexMin - 1 - hexLen) >> 31;
          // features.ts `step` (FNV-1a) of the folded character, written out
          const f = info >>> P.LowerShift;
          h = Math.imul(h ^ f, P.FnvPrime);
          if (len < stemLen) stem = Math.imul(stem ^ f, P.FnvPrime);
          len++;
          i++;
        }
        // the word's base64 run, as the per-character tracking of the other loops would have it: every word character
        // is a base64 character, so the run goes on through the word (its length and classes only grow, so it is
        // checked once, at the end)
        b64Len += len;
        b64Cls |= any;
        if (b64Len >= P.B64Min && (b64Cls & P.B64Mixed) === P.B64Mixed) found |= PF.B64;
        if (!ascii) break;
        // a word that may start a base32 run (decoders.ts BASE32_MIN; rare: one comparison per word)
        if (len >= PW.Base32Min && (found & PF.Base32) === 0) {
          let j = ws;
          for (; j < ws + PW.Base32Min; j++) {
            const d = text.charCodeAt(j);
            if (!((d >= 65 && d <= 90) || (d >= 50 && d <= 55))) break;
          }
          if (j === ws + PW.Base32Min) found |= PF.Base32;
        }
        out[count++] = h;
        sum += weights[h & mask]!;
        if (len > stemLen) {
          out[count++] = stem;
          sum += weights[stem & mask]!;
        }
        if (prevStem !== 0) {
          const p = pair(prevStem, stem);
          out[count++] = p;
          sum += weights[p & mask]!;
        }
        prevStem = stem;
        sEnd = i;
        continue;
      }
      // a punctuation run
      let h = seedPunct;
      let len = 0;
      let stop = 0;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 0x80) {
          ascii = false;
          break outer;
        }
        const info = A[d]!;
        if ((info & P.KindBits) !== P.KindPunct) break;
        flags |= info;
        s = D[(s << WS) + (info & 0xff)]!;
        if (s >= P.Out) {
          s -= P.Out;
          for (let k = OS[s]!; OI[k]! >= 0; k++) {
            const id = OI[k]!;
            if (seen[id] !== 0) continue;
            const f = KF[id]!;
            if (f !== 0) {
              if (f & PK.Start) {
                const p = i - KL[id]!;
                if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
              }
              if (f & PK.End && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
            }
            seen[id] = 1;
            HITS[hitCount++] = id;
          }
        }
        const inB64 = -((info >> P.B64Shift) & 1);
        const inHex = -((info >> P.HexShift) & 1);
        b64Len = (b64Len + 1) & inB64;
        b64Cls = (b64Cls | info) & inB64;
        hexLen = (hexLen + 1) & inHex;
        if (b64Len >= P.B64Min || hexLen >= P.HexMin) {
          if (b64Len >= P.B64Min && (b64Cls & P.B64Mixed) === P.B64Mixed) found |= PF.B64;
          if (hexLen >= P.HexMin) found |= PF.Hex;
        }
        if (len < punctMax) h = Math.imul(h ^ d, P.FnvPrime);
        stop |= info;
        len++;
        i++;
      }
      out[count++] = h;
      sum += weights[h & mask]!;
      prevStem = 0;
      sEnd = i;
      // a sentence ends after . ! ? ; before a space (a non-ASCII character next ends the pass anyway)
      if ((stop & P.Stop) !== 0 && (i >= n || (text.charCodeAt(i) < 0x80 && (A[text.charCodeAt(i)]! & P.KindBits) === P.KindSpace))) {
        record(sStart, sEnd, count, sum);
        sum = 0;
        sStart = -1;
      }
    }
    if (ascii) {
      if (sStart >= 0) record(sStart, sEnd, count, sum);
    } else {
      // a non-ASCII character at i: the features are left unfinished (the model reads the normalised view);
      // the keyword pass goes on as compilePass's loop does (the automaton step and run tracking are written out here
      // as in the punctuation loop above, on purpose: this pass's loops read only locals and literals, see d94df6a)
      found |= PF.NoFeatures;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        const info = CI[c]!;
        flags |= info;
        s = D[(s << WS) + (info & 0xff)]!;
        if (s >= P.Out) {
          s -= P.Out;
          for (let k = OS[s]!; OI[k]! >= 0; k++) {
            const id = OI[k]!;
            if (seen[id] !== 0) continue;
            const f = KF[id]!;
            if (f !== 0) {
              if (f & PK.Start) {
                const p = i - KL[id]!;
                if (p >= 0 && isWordCode(text.charCodeAt(p))) continue;
              }
              if (f & PK.End && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) continue;
            }
            seen[id] = 1;
            HITS[hitCount++] = id;
          }
        }
        const inB64 = -((info >> P.B64Shift) & 1);
        const inHex = -((info >> P.HexShift) & 1);
        b64Len = (b64Len + 1) & inB64;
        b64Cls = (b64Cls | info) & inB64;
        hexLen = (hexLen + 1) & inHex;
        if (b64Len >= P.B64Min || hexLen >= P.HexMin) {
          if (b64Len >= P.B64Min && (b64Cls & P.B64Mixed) === P.B64Mixed) found |= PF.B64;
          if (hexLen >= P.HexMin) found |= PF.Hex;
        }
      }
    }
    if (hexReached < 0) found |= PF.Hex;
    if (flags & P.EscClass) found |= PF.Esc;
    if (flags & P.NonAsciiClass) found |= PF.NonAscii;
    return hitCount | (found << PK.HitBits);
  };
}

/**
 * The fused pass's table of the ASCII characters, one load per character: charInfo's symbol and classes (bits 0..15),
 * the feature pass's kind (model/features.ts ASCII_KIND, bits 16..17), whether it is a window stop (bit 18) and the
 * case-folded code (textFold.ts lowerAscii, bits 24..30).
 */
function fusedAsciiTable(charInfo: Uint16Array): Int32Array {
  const a = new Int32Array(128);
  for (let c = 0; c < 128; c++) a[c] = charInfo[c]! | (ASCII_KIND[c]! << P.KindShift) | (isWindowStop(c) ? P.Stop : 0) | (lowerAscii(c) << P.LowerShift);
  return a;
}

/**
 * The fused pass's constants as literals (a const enum is inlined: a module-level constant would be a context load
 * and a check at every use in the loop). Checked against the module's constants below, at load.
 */
const enum P {
  KindShift = 16,
  KindBits = 3 << 16,
  KindSpace = 0 << 16,
  KindWord = 1 << 16,
  KindPunct = 3 << 16,
  Stop = 1 << 18,
  LowerShift = 24,
  Out = 0x8000,
  B64Min = 20,
  HexMin = 23,
  B64Shift = 8,
  HexShift = 9,
  EscClass = 4 << 8,
  NonAsciiClass = 8 << 8,
  B64Mixed = (16 | 32 | 64) << 8,
  FnvPrime = 16777619,
}
/** The keyword flags and the pass result's layout, as literals (see {@link P}). */
const enum PK {
  Start = 1,
  End = 2,
  HitBits = 16,
}
/** Word lengths the fused pass checks, as literals (see {@link P}). */
const enum PW {
  Base32Min = 16,
}
/** The pass result's FOUND_* bits, as literals (see {@link P}). */
const enum PF {
  B64 = 1,
  Hex = 2,
  Esc = 4,
  NonAscii = 8,
  NoFeatures = 16,
  Base32 = 32,
}

/** A pass result: the hit count in the low bits, the features above. */
export const HIT_BITS = 16;
export const HIT_MASK = (1 << HIT_BITS) - 1;
export const FOUND_B64 = 1;
export const FOUND_HEX = 2;
export const FOUND_ESC = 4;
export const FOUND_NONASCII = 8;
/** Fused pass only: the text has a non-ASCII character, its features were not computed. */
export const FOUND_NO_FEATURES = 16;
/** Fused pass, ASCII text only: a word starts with BASE32_MIN characters of the base32 alphabet. */
export const FOUND_BASE32 = 32;

const isWordCode = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

/** Shortest base64 run the decoders try, and the shortest hex run (8 separated bytes). */
const B64_MIN = 20;
const HEX_MIN = 23;
const B64_BIT = 0;
const HEXSEP_BIT = 1;
const B64 = 1 << B64_BIT;
const HEXSEP = 1 << HEXSEP_BIT;
const ESC = 4;
export const NONASCII = 8;
const UPPER = 16;
const LOWER = 32;
const NONLETTER = 64; // digits and `+ / = _ -`
/** What the base64 decoder needs in a run: both cases and a non-letter (see decoders.ts). */
const B64_MIXED = (UPPER | LOWER | NONLETTER) << 8;
export const CHAR_CLASS: Uint8Array = (() => {
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

// the fused pass's literals (P) are the module's constants
if (
  P.Out !== OUT || PK.Start !== START || PK.End !== END || P.B64Min !== B64_MIN || P.HexMin !== HEX_MIN || P.B64Shift !== 8 + B64_BIT || P.HexShift !== 8 + HEXSEP_BIT ||
  P.EscClass !== ESC << 8 || P.NonAsciiClass !== NONASCII << 8 || P.B64Mixed !== B64_MIXED || PF.B64 !== FOUND_B64 || PF.Hex !== FOUND_HEX ||
  PF.Esc !== FOUND_ESC || PF.NonAscii !== FOUND_NONASCII || PF.NoFeatures !== FOUND_NO_FEATURES || PF.Base32 !== FOUND_BASE32 || PW.Base32Min !== BASE32_MIN || PK.HitBits !== HIT_BITS || step(0, 0) !== 0 || step(1, 0) !== P.FnvPrime
) {
  throw new Error('keywordPasses: the fused pass\'s constants differ from the module\'s');
}
