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
  private readonly alphabet: Uint8Array; // char code (0..127) → symbol (0 = other)
  private readonly symbols: number;
  private readonly delta: Int32Array; // state * symbols + symbol → state
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
    this.alphabet = alphabet;
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
    this.delta = delta;
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

  /** Sets `seen[id] = 1` for every keyword occurring in `text`; returns how many distinct keywords were seen. */
  scan(text: string, seen: Uint8Array): number {
    const { alphabet, delta, symbols, outStart, outIds } = this;
    let s = 0;
    let count = 0;
    for (let i = 0, n = text.length; i < n; i++) {
      const c = text.charCodeAt(i);
      s = delta[s * symbols + (c < 128 ? alphabet[c]! : 0)]!;
      const o = outStart[s]!;
      if (o >= 0) {
        for (let k = o; outIds[k]! >= 0; k++) {
          const id = outIds[k]!;
          if (seen[id] === 0) {
            seen[id] = 1;
            count++;
          }
        }
      }
    }
    return count;
  }
}
