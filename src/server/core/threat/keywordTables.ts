// Owns building the keyword prefilter's Aho–Corasick tables (keywords.ts): the case-folded alphabet, the trie with
// its failure links folded into a full transition table, and the per-keyword word-boundary flags. Plain typed
// arrays, so the build can store them (prefilterFormulas.ts).
/** Pure module: no `vscode`, no language-server imports. */
import { END, MAX_KEYWORDS, OUT, START } from './keywordPasses';
import { lowerAscii } from './textFold';

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

/** The tables' layout, part of a stored derivation's key (2: states numbered breadth-first, rows a power of two apart). */
export const TABLES_LAYOUT = 2;

/** A keyword's boundary marker: leading, "at a word start"; trailing, "at a word end". */
const MARK = '\x01';

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
  for (let c = 65; c <= 90; c++) alphabet[c] = alphabet[lowerAscii(c)]!; // case fold (textFold.ts)
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
  // States renumbered in breadth-first order (the trie numbered them keyword by keyword): the shallow states, where
  // ordinary text keeps the automaton, then share a few kilobytes of rows instead of being spread over the table.
  // Mark states with outputs in the high bit (2-byte entries keep the hot rows in the L1 cache).
  if (goto.length > OUT) throw new Error('keyword automaton too large');
  const order = [0, ...queue];
  const rank = new Int32Array(goto.length);
  order.forEach((s, r) => (rank[s] = r));
  const stride = 1 << Math.ceil(Math.log2(symbols));
  const delta16 = new Uint16Array(goto.length * stride);
  order.forEach((s, r) => {
    for (let a = 0; a < symbols; a++) {
      const t = delta[s * symbols + a]!;
      delta16[r * stride + a] = outs[t]!.length ? rank[t]! | OUT : rank[t]!;
    }
  });
  const outStart = new Int32Array(goto.length).fill(-1);
  const ids: number[] = [];
  order.forEach((s, r) => {
    const o = outs[s]!;
    if (o.length) {
      outStart[r] = ids.length;
      ids.push(...new Set(o), -1);
    }
  });
  return { alphabet, delta: delta16, stride, outStart, outIds: Int32Array.from(ids), kwLen, kwFlags };
}
