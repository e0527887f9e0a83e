// Owns the intent stage's prefilter: every gate entry's cue (the literal it starts with) in a hash table, one
// folded pass over the view (textFold.ts foldCode) that finds where cues occur, and the per-entry sticky regexes
// that confirm a cue where it occurred.
/** Pure module: no `vscode`, no language-server imports. */
import { foldCode } from '../textFold';
import * as L from './lexicon';
import type { LexGroup } from './lexicon';
import { entriesOf, entryCue, entrySource, type GroupName } from './lexiconRegex';
import { RECIPES } from './intentRecipes';

/** The fold, held here: an imported binding is a property load per use, and the prefilter folds every character. */
const fold = foldCode;

export const GATE_GROUPS: readonly GroupName[] = [...new Set(RECIPES.flatMap((r) => r.gates.flat()))];
const BUCKET_BITS = 16;
const BUCKETS = 1 << BUCKET_BITS;

export interface CueTable {
  /** Per key length n (2..6): bucket k's cues are items[n][start[n][k] .. start[n][k + 1]). */
  start: Int32Array[];
  items: Int32Array[];
  cues: Uint16Array[];
  /** Per cue: the gate groups it belongs to (bit mask) and the entries that start with it. */
  bits: number[];
  entries: { group: number; entry: number }[][];
}
let table: CueTable | null = null;

/** The cue table, built on first use. */
export function cueTable(): CueTable {
  return (table ??= buildTable());
}

/** Cues are keyed by their first min(length, 6) folded characters, so cues sharing "the " do not pile up in one bucket. */
const MAX_KEY = 6;
const BASE = 0x01000193;
/** Polynomial hash of codes[from .. from + n), computed the same way by scanCues. */
const hashKey = (codes: ArrayLike<number>, from: number, n: number): number => {
  let h = 0;
  for (let i = 0; i < n; i++) h = (Math.imul(h, BASE) + codes[from + i]!) | 0;
  return Math.imul(h, 0x9e3779b1) >>> (32 - BUCKET_BITS);
};

/** Every gate entry's cue, or a thrown error naming the entry without one (lexicon bug). */
export function gateCues(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of GATE_GROUPS) {
    const cues: string[] = [];
    for (const e of entriesOf(L[g] as LexGroup)) {
      const c = entryCue(e);
      const cjk = c.length >= 2 && c.charCodeAt(0) >= 0x2e80 && c.charCodeAt(1) >= 0x2e80;
      if (c.length < 3 && !cjk) throw new Error(`intent lexicon: gate entry without a usable leading literal in ${g}: ${e}`);
      cues.push(c);
    }
    out.set(g, cues);
  }
  return out;
}

function buildTable(): CueTable {
  const t: CueTable = { start: [], items: [], cues: [], bits: [], entries: [] };
  const heads = Array.from({ length: MAX_KEY + 1 }, () => new Map<number, number[]>());
  const index = new Map<string, number>();
  const all = gateCues();
  GATE_GROUPS.forEach((g, bit) => {
    all.get(g)!.forEach((c, entry) => {
      let i = index.get(c);
      if (i === undefined) {
        i = t.cues.length;
        index.set(c, i);
        t.cues.push(Uint16Array.from(c, (ch) => ch.charCodeAt(0)));
        t.bits.push(0);
        t.entries.push([]);
        const codes = t.cues[i]!;
        const n = Math.min(codes.length, MAX_KEY);
        const k = hashKey(codes, 0, n);
        let list = heads[n]!.get(k);
        if (!list) heads[n]!.set(k, (list = []));
        list.push(i);
      }
      t.bits[i]! |= 1 << bit;
      t.entries[i]!.push({ group: bit, entry });
    });
  });
  // flat bucket arrays: items[start[k] .. start[k + 1]) are bucket k's cues
  const flatten = (heads: Map<number, number[]>): [Int32Array, Int32Array] => {
    const start = new Int32Array(BUCKETS + 1);
    for (const [k, list] of heads) start[k + 1] = list.length;
    for (let k = 0; k < BUCKETS; k++) start[k + 1]! += start[k]!;
    const items = new Int32Array(start[BUCKETS]!);
    for (const [k, list] of heads) items.set(list, start[k]!);
    return [start, items];
  };
  for (let n = 0; n <= MAX_KEY; n++) {
    const [start, items] = flatten(heads[n]!);
    t.start.push(start);
    t.items.push(items);
  }
  return t;
}

/** Does `cue` occur in `view` at `pos` (folded, whitespace runs as one space)? */
function cueAt(view: string, pos: number, cue: Uint16Array): boolean {
  let j = pos;
  for (let k = 0; k < cue.length; k++) {
    if (j >= view.length) return false;
    const c = fold(view.charCodeAt(j));
    if (c !== cue[k]) return false;
    j++;
    if (c === 32) while (j < view.length && fold(view.charCodeAt(j)) === 32) j++;
  }
  return true;
}

/** Where gate cues occur: `mask` (bit i = GATE_GROUPS[i] had a cue) and (cue index, position) pairs. */
export interface CueHits {
  mask: number;
  cue: number[];
  pos: number[];
  /** Per gate group: indices into cue/pos, built on first use. */
  byGroup?: number[][];
}

const MAX_CUE_HITS = 4096;

/** The prefilter pass (exported for benchmarks): where gate cues occur in `view`. */
export function scanCues(view: string): CueHits {
  const t = cueTable();
  const out: CueHits = { mask: 0, cue: [], pos: [] };
  const key = new Int32Array(MAX_KEY);
  const len = view.length;
  let prevWord = false;
  for (let i = 0; i < len; i++) {
    const raw = view.charCodeAt(i);
    // Latin/Cyrillic entries only match at a word start (entrySource's lookbehind), so only try cues there
    const word = (raw >= 97 && raw <= 122) || (raw >= 65 && raw <= 90) || (raw >= 48 && raw <= 57) || raw === 95 || (raw >= 0xc0 && raw <= 0x24f) || (raw >= 0x400 && raw <= 0x4ff);
    const wasWord = prevWord;
    prevWord = word;
    if (word ? wasWord : raw <= 32 || raw === 0xa0) continue;
    // fold up to MAX_KEY characters from i (whitespace runs collapsed), looking each key length up
    let h = 0;
    let kl = 0;
    let lastSpace = false;
    for (let j = i; j < len && kl < MAX_KEY; j++) {
      let c = view.charCodeAt(j);
      if (c < 128) {
        if (c >= 65 && c <= 90) c += 32;
        else if (c >= 9 && c <= 13) c = 32;
      } else c = fold(c);
      if (c === 32) {
        if (lastSpace) continue;
        lastSpace = true;
      } else lastSpace = false;
      key[kl++] = c;
      h = (Math.imul(h, BASE) + c) | 0;
      if (kl < 2 || (kl === 2 && (key[0]! < 0x2e80 || c < 0x2e80))) continue;
      const k = Math.imul(h, 0x9e3779b1) >>> (32 - BUCKET_BITS);
      const start = t.start[kl]!;
      const qe = start[k + 1]!;
      for (let q = start[k]!; q < qe; q++) {
        const ci = t.items[kl]![q]!;
        const cue = t.cues[ci]!;
        let same = true;
        for (let x = 0; x < kl; x++) {
          if (cue[x] !== key[x]) {
            same = false;
            break;
          }
        }
        if (!same) continue;
        if (out.cue.length < MAX_CUE_HITS && (cue.length === kl || cueAt(view, i, cue))) {
          out.mask |= t.bits[ci]!;
          out.cue.push(ci);
          out.pos.push(i);
        }
      }
    }
  }
  return out;
}

/** One sticky regex per gate entry, compiled on first use. */
const entryRegexes: (RegExp | undefined)[][] = [];
export function entryRegex(group: number, entry: number): RegExp {
  const row = (entryRegexes[group] ??= []);
  let re = row[entry];
  if (!re) {
    re = new RegExp(entrySource(entriesOf(L[GATE_GROUPS[group]!] as LexGroup)[entry]!), 'iy');
    row[entry] = re;
  }
  return re;
}

export const bitOf = (g: GroupName): number => 1 << GATE_GROUPS.indexOf(g);
