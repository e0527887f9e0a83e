/**
 * Keyword prefilter: an Aho–Corasick automaton over case-folded ASCII that reports, in one linear pass,
 * which trigger stems occur in a text. The scanner runs a rule only when one of its triggers occurred, so
 * clean text costs one pass over its characters instead of one regex per rule.
 *
 * Characters outside the alphabet of the stems (and every non-ASCII character) act as a neutral symbol,
 * so the pass is a table lookup per character. Pure module.
 */
export class KeywordAutomaton {
  /** Stems, lowercase, index = trigger id. */
  readonly keywords: readonly string[];
  /** char code (0..65535) → symbol (low 8 bits, 0 = other) | character-class flags (high bits). */
  private readonly charInfo: Uint16Array;
  private readonly symbols: number;
  private readonly delta: Uint16Array | Int32Array; // state * symbols + symbol → state
  private readonly hasOut: Uint8Array; // state → 1 when some keyword ends here
  private readonly outStart: Int32Array; // state → offset into outIds (or -1)
  private readonly outIds: Int32Array; // -1-terminated lists

  constructor(keywords: readonly string[]) {
    this.keywords = keywords;
    const alphabet = new Uint8Array(128);
    let symbols = 1;
    for (const k of keywords) {
      for (let i = 0; i < k.length; i++) {
        const c = k.charCodeAt(i);
        if (c >= 128) throw new Error(`keyword ${JSON.stringify(k)}: ASCII only`);
        if (c >= 65 && c <= 90) throw new Error(`keyword ${JSON.stringify(k)}: lowercase only`);
        if (alphabet[c] === 0) alphabet[c] = symbols++;
      }
    }
    for (let c = 65; c <= 90; c++) alphabet[c] = alphabet[c + 32]!; // case fold
    if (symbols > 255) throw new Error('keyword alphabet too large');
    const charInfo = new Uint16Array(65536);
    for (let c = 0; c < 65536; c++) charInfo[c] = (c < 128 ? alphabet[c]! | (CHAR_CLASS[c]! << 8) : NONASCII << 8);
    this.charInfo = charInfo;
    this.symbols = symbols;

    // Trie.
    const goto: number[][] = [new Array<number>(symbols).fill(-1)];
    const outs: number[][] = [[]];
    keywords.forEach((k, id) => {
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
    this.delta = goto.length < 65536 ? Uint16Array.from(delta) : delta;
    this.hasOut = Uint8Array.from(outs, (o) => (o.length ? 1 : 0));
    const outStart = new Int32Array(goto.length).fill(-1);
    const ids: number[] = [];
    outs.forEach((o, s) => {
      if (o.length) {
        outStart[s] = ids.length;
        ids.push(...new Set(o), -1);
      }
    });
    this.outStart = outStart;
    this.outIds = Int32Array.from(ids);
  }

  /**
   * Sets `seen[id] = 1` for every keyword occurring in `text` and returns cheap character features
   * gathered in the same pass (used to skip the encoded-run decoders on ordinary text).
   */
  scan(text: string, seen: Uint8Array): TextFeatures {
    const { charInfo, delta, symbols, hasOut, outStart, outIds } = this;
    let s = 0;
    let count = 0;
    let b64Run = 0;
    let hexRun = 0;
    let maxB64 = 0;
    let maxHex = 0;
    let flags = 0;
    for (let i = 0, n = text.length; i < n; i++) {
      const info = charInfo[text.charCodeAt(i)]!;
      s = delta[s * symbols + (info & 0xff)]!;
      const cls = info >> 8;
      flags |= cls;
      b64Run = cls & B64 ? b64Run + 1 : 0;
      hexRun = cls & HEXSEP ? hexRun + 1 : 0;
      if (b64Run > maxB64) maxB64 = b64Run;
      if (hexRun > maxHex) maxHex = hexRun;
      if (hasOut[s] === 1) {
        for (let k = outStart[s]!; outIds[k]! >= 0; k++) {
          const id = outIds[k]!;
          if (seen[id] === 0) {
            seen[id] = 1;
            count++;
          }
        }
      }
    }
    return { keywords: count, maxBase64Run: maxB64, maxHexRun: maxHex, hasEscape: (flags & ESC) !== 0, hasNonAscii: (flags & NONASCII) !== 0 };
  }
}

/** Character features of a text, from the prefilter pass. */
export interface TextFeatures {
  /** Distinct keywords seen. */
  readonly keywords: number;
  /** Longest run of base64 alphabet characters (`A–Z a–z 0–9 + / = _ -`). */
  readonly maxBase64Run: number;
  /** Longest run of hex digits and byte separators (`0–9 a–f A–F` space `:` `,` `-`). */
  readonly maxHexRun: number;
  /** Contains `\` or `%` (escape sequences, percent-encoding). */
  readonly hasEscape: boolean;
  readonly hasNonAscii: boolean;
}

const B64 = 1;
const HEXSEP = 2;
const ESC = 4;
const NONASCII = 8;
const CHAR_CLASS: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    if (/[A-Za-z0-9+/=_-]/.test(ch)) t[c]! |= B64;
    if (/[0-9a-fA-F :,-]/.test(ch)) t[c]! |= HEXSEP;
    if (ch === '\\' || ch === '%') t[c]! |= ESC;
  }
  return t;
})();
