/**
 * Finds encoded runs (base64, hex bytes, `\xNN` / `\uNNNN` / octal escapes, percent-encoding; and, asked for,
 * base32, HTML character references and lists of character codes) and decodes the ones that decode to readable
 * text, so the scanner can run the rules on what they say. {@link transformedViews} undoes the two encodings that
 * keep a text's length (ROT13, reversal) where the result reads as English and the text did not.
 *
 * Every pattern is a bounded run, so finding runs is linear: a character-class run, or (character codes) a bounded
 * repeat of a unit that must start with a digit and end at a separator, so a text splits into units one way only.
 * Pure module.
 */

export type Encoding = 'base64' | 'hex' | 'escape' | 'percent' | 'base32' | 'entity' | 'charcodes';

export interface DecodedRun {
  readonly encoding: Encoding;
  /** Span of the encoded run in the scanned text. */
  readonly start: number;
  readonly end: number;
  /** The decoded text (readable by construction). */
  readonly decoded: string;
}

/** Upper bound on encoded characters decoded per run. */
const MAX_RUN = 16384;

const DETECTORS: ReadonlyArray<{ encoding: Encoding; re: RegExp; decode: (run: string) => Buffer | null }> = [
  {
    encoding: 'escape',
    re: /(?:\\x[0-9a-f]{2}){6,4096}|(?:\\u00[0-9a-f]{2}){6,4096}/gi,
    decode: (run) => Buffer.from(run.replace(/\\x|\\u00/gi, ''), 'hex'),
  },
  {
    encoding: 'escape',
    // `\u0438…` (any BMP escape, as JSON and JavaScript write them) and octal byte escapes `\151\147…`
    re: /(?:\\u[0-9a-f]{4}){6,4096}|(?:\\[0-3][0-7]{2}){6,4096}/gi,
    decode: (run) =>
      run[1] === 'u' || run[1] === 'U'
        ? Buffer.from(String.fromCharCode(...run.split(/\\u/i).slice(1).map((h) => parseInt(h, 16))), 'utf8')
        : Buffer.from(run.split('\\').slice(1).map((o) => parseInt(o, 8))),
  },
  {
    encoding: 'percent',
    re: /(?:%[0-9a-f]{2}[^%\s]{0,3}){8,4096}/gi,
    decode: (run) => {
      try {
        return Buffer.from(decodeURIComponent(run), 'utf8');
      } catch {
        return null;
      }
    },
  },
  {
    encoding: 'hex',
    // space/colon/comma separated bytes, or a continuous even-length run
    re: /\b[0-9a-f]{2}(?:[ :,-][0-9a-f]{2}){7,4096}\b|\b(?:[0-9a-f]{2}){12,8192}\b/gi,
    decode: (run) => {
      const hex = run.replace(/[ :,-]/g, '');
      return hex.length % 2 === 0 ? Buffer.from(hex, 'hex') : null;
    },
  },
  {
    encoding: 'base64',
    re: /[A-Za-z0-9+/_-]{20,16384}={0,2}/g,
    decode: (run) => {
      // Needs the look of base64: mixed case and not a plain word/identifier/path.
      if (!/[A-Z]/.test(run) || !/[a-z]/.test(run)) return null;
      if (/^[A-Za-z]+$/.test(run)) return null;
      const b64 = run.replace(/-/g, '+').replace(/_/g, '/');
      return Buffer.from(b64.slice(0, MAX_RUN), 'base64');
    },
  },
  {
    encoding: 'base32',
    // RFC 4648: upper-case letters and 2–7, padded with `=` (the decoder keeps only what reads as text)
    re: /\b[A-Z2-7]{16,8192}={0,6}/g,
    decode: (run) => {
      const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
      const bytes: number[] = [];
      let bits = 0;
      let value = 0;
      for (const ch of run.replace(/=+$/, '')) {
        value = (value << 5) | ALPHABET.indexOf(ch);
        bits += 5;
        if (bits >= 8) {
          bytes.push((value >>> (bits - 8)) & 0xff);
          bits -= 8;
        }
      }
      return Buffer.from(bytes);
    },
  },
  {
    encoding: 'entity',
    // numeric character references: `&#73;&#103;…`, `&#x49;&#x67;…`
    re: /(?:&#(?:[0-9]{1,7}|x[0-9a-f]{1,6});){6,4096}/gi,
    decode: (run) => {
      const codes = run.split(';').slice(0, -1).map((e) => (e[2] === 'x' || e[2] === 'X' ? parseInt(e.slice(3), 16) : parseInt(e.slice(2), 10)));
      return codes.every((c) => c <= 0x10ffff) ? Buffer.from(String.fromCodePoint(...codes), 'utf8') : null;
    },
  },
  {
    encoding: 'charcodes',
    // a list of printable ASCII codes: `[73, 103, 110, …]`, `String.fromCharCode(73,103,…)`, `chr(73) chr(103)`
    re: /\b(?:(?:3[2-9]|[4-9][0-9]|1[01][0-9]|12[0-6])\)?[\s,;]{1,3}(?:chr\()?){7,4096}(?:3[2-9]|[4-9][0-9]|1[01][0-9]|12[0-6])\b/gi,
    decode: (run) => Buffer.from((run.match(/[0-9]+/g) ?? []).map(Number)),
  },
];

/** Decoders that run only when asked for (their characters are everywhere: the scanner asks when the text warrants it). */
export const ON_REQUEST: readonly Encoding[] = ['base32', 'entity', 'charcodes'];

/**
 * What a text must hold before an on-request decoder can find a run in it, as the keyword pass counts it on a word
 * (a run of `[0-9A-Za-z_]`, which is what `\b` bounds):
 * - base32: a word whose first {@link BASE32_MIN} characters are `A–Z 2–7` (a run starts at `\b` and is made of word
 *   characters, so it starts a word and goes on inside it);
 * - character codes: {@link CHARCODES_MIN} words of two or three digits (each code of a list is a whole word: a
 *   separator or `chr(` before it, `)` or a separator after it);
 * - character references: `&#` (checked on the text).
 */
export const BASE32_MIN = 16;
export const CHARCODES_MIN = 8;
/** The words a code of a character-code list is (the `charcodes` pattern's printable ASCII codes, 32–126). */
export const CHAR_CODE_WORDS: readonly string[] = Array.from({ length: 126 - 32 + 1 }, (_, k) => String(32 + k));

const ON_REQUEST_BY_BITS: ReadonlyArray<readonly Encoding[]> = Array.from({ length: 8 }, (_, bits) => ON_REQUEST.filter((_e, k) => (bits >> k) & 1));

/** The on-request decoders a text may need, in {@link ON_REQUEST}'s order (each flag: the text holds what that decoder needs). */
export function onRequestEncodings(base32: boolean, entity: boolean, charcodes: boolean): readonly Encoding[] {
  return ON_REQUEST_BY_BITS[(base32 ? 1 : 0) | (entity ? 2 : 0) | (charcodes ? 4 : 0)]!;
}

/** True when decoded bytes read as text: valid-ish UTF-8, ≥ 90% printable, with ≥ 30% letters (of any script). */
export function readableText(buf: Buffer): string | null {
  if (buf.length < 8) return null;
  const s = buf.toString('utf8');
  let printable = 0;
  let letters = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0xfffd) continue;
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09 || c >= 0xa0) printable++;
    // letters of any script (an instruction in Cyrillic or Thai is as readable as one in English)
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 0xc0 && /\p{L}/u.test(s[i]!))) letters++;
  }
  if (printable < s.length * 0.9 || letters < s.length * 0.3) return null;
  return s;
}

/**
 * Encoded runs in `text` that decode to readable text, in text order; at most `limit`. `encodings` limits
 * the search to those encodings (the scanner passes the ones whose characters occur in the text).
 */
export function findDecodedRuns(text: string, limit = 32, encodings?: readonly Encoding[]): DecodedRun[] {
  const out: DecodedRun[] = [];
  const taken: Array<[number, number]> = [];
  for (const { encoding, re, decode } of DETECTORS) {
    if (encodings ? !encodings.includes(encoding) : ON_REQUEST.includes(encoding)) continue;
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null && out.length < limit) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue; // already decoded as another encoding
      const buf = decode(m[0].slice(0, MAX_RUN));
      const decoded = buf ? readableText(buf) : null;
      if (decoded === null) continue;
      taken.push([start, end]);
      out.push({ encoding, start, end, decoded });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Decoded text that reads as words (four or more), not a token, a path or a key: a blob worth a decode-and-follow cue. */
export const readsAsWords = (decoded: string): boolean => /\S\s+\S+\s+\S+\s+\S/.test(decoded);
/** Decoded text that reads as prose (five words or more, one more than {@link readsAsWords}): worth the learned stage. */
export const readsAsProse = (decoded: string): boolean => /\S\s+\S+\s+\S+\s+\S+\s+\S/.test(decoded);

const ROT13 = (text: string): string =>
  text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
const REVERSED = (text: string): string => Array.from(text).reverse().join('');

/** The most frequent English words: a text that reads as English has many, ROT13 or reversed English none. */
const ENGLISH_WORDS = ['the', 'and', 'to', 'of', 'a', 'in', 'is', 'it', 'you', 'your', 'that', 'for', 'on', 'with', 'as', 'this', 'be', 'all', 'any', 'from', 'or', 'not', 'are', 'by', 'at', 'into', 'every', 'before', 'after', 'then'];
const wordsRegex = (words: readonly string[]): RegExp => new RegExp(`\\b(?:${words.join('|')})\\b`, 'gi');
const ENGLISH = wordsRegex(ENGLISH_WORDS);
/**
 * The same words as ROT13 and reversal write them. Both transforms keep which characters are word characters, so a
 * clause holds as many of these as its transform holds English words: counted on the clause, without transforming it.
 */
const ROT13_WORDS = ENGLISH_WORDS.map((w) => ROT13(w));
const REVERSED_WORDS = ENGLISH_WORDS.map((w) => [...w].reverse().join(''));
const ENGLISH_ROT13 = wordsRegex(ROT13_WORDS);
const ENGLISH_REVERSED = wordsRegex(REVERSED_WORDS);
const count = (re: RegExp, text: string): number => text.match(re)?.length ?? 0;

/** Bits of {@link transformWords}: a word of the ROT13 list, of it and not of {@link ENGLISH_WORDS}, of the reversed list, of it only. */
export const TW_ROT = 1;
export const TW_ROT_ONLY = 2;
export const TW_REV = 4;
export const TW_REV_ONLY = 8;

/** Every word of the transformed lists with its {@link TW_ROT}… bits (for a keyword pass that counts them on a text's words). */
export function transformWords(): Map<string, number> {
  const english = new Set(ENGLISH_WORDS);
  const out = new Map<string, number>();
  const add = (w: string, bits: number): void => void out.set(w, (out.get(w) ?? 0) | bits);
  for (const w of ROT13_WORDS) add(w, TW_ROT | (english.has(w) ? 0 : TW_ROT_ONLY));
  for (const w of REVERSED_WORDS) add(w, TW_REV | (english.has(w) ? 0 : TW_REV_ONLY));
  return out;
}

/**
 * Whether a text whose words hold `rot` words of the ROT13 list (`rotOnly` of them not English words) and `rev` of
 * the reversed list (`revOnly` not English) may have a clause {@link transformedViews} returns. A clause returned as
 * ROT13 has R words of the list only, B of both lists and E English ones only with R + B ≥ 3 and R + B ≥ 2(E + B) + 1,
 * so R ≥ 2E + B + 1; were R ≤ 1, B would be 0 and R + B < 3: so R ≥ 2 (the same for reversal). A clause's words are
 * whole words of the text (clauses end at stops), so the text holds at least as many.
 */
export const mayHoldTransformed = (rot: number, rotOnly: number, rev: number, revOnly: number): boolean => (rot >= 3 && rotOnly >= 2) || (rev >= 3 && revOnly >= 2);

/** A length-preserving transform of one clause of a text and how a span of its result maps back onto the text. */
export interface TransformedView {
  readonly encoding: 'rot13' | 'reversed';
  readonly text: string;
  readonly spanOf: (start: number, end: number) => [number, number];
}

/** Clauses: runs of at least 20 characters between `.` `!` `?` `:` `;` and line breaks (and the spaces after them). */
const CLAUSE = /[^.!?:;\n]{20,}[.!?:;]?|[.!?][^.!?:;\n]{20,}/g;

/**
 * The clauses of a text with ROT13 or reversal undone, where the result reads as English (at least three of the most
 * frequent English words, and twice as many as the clause itself has) and so may say something the text hides. Both
 * keep the length (reversal by code point: a span maps back mirrored within its clause).
 */
export function transformedViews(text: string): TransformedView[] {
  const out: TransformedView[] = [];
  // a clause has no word the text has not: a text with fewer than three transformed English words has no such clause
  if (count(ENGLISH_ROT13, text) < 3 && count(ENGLISH_REVERSED, text) < 3) return out;
  CLAUSE.lastIndex = 0;
  for (let m = CLAUSE.exec(text); m && out.length < 16; m = CLAUSE.exec(text)) {
    const clause = m[0];
    const at = m.index;
    const nRot = count(ENGLISH_ROT13, clause);
    const nRev = count(ENGLISH_REVERSED, clause);
    if (nRot < 3 && nRev < 3) continue;
    const own = count(ENGLISH, clause);
    if (nRot >= 3 && nRot >= 2 * own + 1) out.push({ encoding: 'rot13', text: ROT13(clause), spanOf: (s, e) => [at + s, at + e] });
    if (nRev >= 3 && nRev >= 2 * own + 1) out.push({ encoding: 'reversed', text: REVERSED(clause), spanOf: (s, e) => [at + clause.length - e, at + clause.length - s] });
  }
  return out;
}
