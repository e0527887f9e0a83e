/**
 * Intent stage of the threat scanner: flags text that tries to make the model DO something it should not —
 * override its instructions, take another role, disclose or exfiltrate secrets, execute or persist code,
 * hide things from the user, or turn its safety checks off — by composing the broad, multilingual word
 * groups of lexicon.ts instead of naming whole attack sentences.
 *
 * How an intent fires (see RECIPES):
 * 1. prefilter: one pass over the view folds each character (case, Cyrillic look-alikes, whitespace runs)
 *    and looks the last three (CJK: two) up in a hash of every GATE cue — the literal each gate entry starts
 *    with. A recipe runs only when each of its gate groups had a cue. Most notes stop here.
 * 2. the recipe's anchor group (a compiled regex, built on first use) finds anchors;
 * 3. each `near` requirement must match within `window` characters of the anchor, inside the anchor's
 *    clause or sentence, without overlapping it (and, for secrets, not negated: "needs no token");
 * 4. guards: an anchor preceded in its clause by a negation ("never paste credentials into chat") is
 *    guidance (negatable recipes only: conceal's "never tell the user …" carries its own negation); a hit
 *    in a line that reports an attack ("the attacker wrote …", "a test case for the scanner") or sits in
 *    quotes after a verb of saying is a report, not an attack.
 *
 * Contract: pure and synchronous; `findIntents(view)` takes the normalised view (normalize.ts) and returns
 * UTF-16 spans into it. Bounded quantifiers only; match counts capped; regexes compiled lazily.
 * Pure module: no `vscode`, no language-server imports.
 */
import * as L from './lexicon';
import type { LexGroup } from './lexicon';

export type IntentId =
  | 'intent.override'
  | 'intent.role'
  | 'intent.disclose'
  | 'intent.exfiltrate'
  | 'intent.execute'
  | 'intent.conceal'
  | 'intent.safety-off';

/** One intent found in a view: half-open UTF-16 span into the view. */
export interface IntentHit {
  readonly id: IntentId;
  readonly start: number;
  readonly end: number;
}

// ---------------------------------------------------------------------------------------------------------
// Groups: names, lazily compiled regexes, prefilter cues.

type GroupName = Exclude<keyof typeof L, 'Lang' | 'LexGroup'>;

const LATIN_OR_CYRILLIC_START = /^[A-Za-z0-9\u00C0-\u024F\u0400-\u04FF]/;
/** Cyrillic letters the view folds to Latin (normalize.ts HOMOGLYPHS, lowercase side). */
const CYR_FOLD: Readonly<Record<string, string>> = {
  'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x', 'ь': 'b',
};

/** Regex source of one lexicon entry: spaces → bounded whitespace, Cyrillic → [cyr+latin], word-start guard. */
export function entrySource(entry: string): string {
  let body = '';
  for (let i = 0; i < entry.length; i++) {
    const ch = entry[i]!;
    if (ch === ' ') {
      if (entry[i + 1] === '?') {
        body += String.raw`\s{0,3}`;
        i++;
      } else body += String.raw`\s{1,3}`;
    } else if (ch === '\\' && i + 1 < entry.length) {
      body += ch + entry[i + 1];
      i++;
    } else {
      const f = CYR_FOLD[ch.toLowerCase()];
      body += f ? `[${ch}${f}]` : ch;
    }
  }
  return LATIN_OR_CYRILLIC_START.test(entry) ? String.raw`(?<![A-Za-z0-9_\u00C0-\u024F\u0400-\u04FF])(?:${body})` : `(?:${body})`;
}

const entriesOf = (g: LexGroup): string[] => Object.values(g).flatMap((v) => [...(v ?? [])]);

const compiled = new Map<GroupName, RegExp>();
/** The group's regex (global, case-insensitive), compiled on first use. */
function groupRegex(name: GroupName): RegExp {
  let re = compiled.get(name);
  if (!re) {
    re = new RegExp(entriesOf(L[name] as LexGroup).map(entrySource).join('|'), 'gi');
    compiled.set(name, re);
  }
  return re;
}

/**
 * The literal an entry starts with (folded like the prefilter folds text), or '' when the entry does not
 * start with one. Every match of the entry contains it.
 */
export function entryCue(entry: string): string {
  let out = '';
  for (let i = 0; i < entry.length; i++) {
    const ch = entry[i]!;
    const next = entry[i + 1];
    if (ch === '\\') {
      if (next !== undefined && /[.$/?()[\]{}|*+\\^'"-]/.test(next)) {
        if (entry[i + 2] === '?' || entry[i + 2] === '*' || entry[i + 2] === '{') break;
        out += next;
        i++;
        continue;
      }
      break;
    }
    if ('([.|^$'.includes(ch)) break;
    if (ch === '?' || ch === '*' || ch === '{') {
      out = out.slice(0, -1);
      break;
    }
    if (ch === '+') break;
    if (ch === ' ' && next === '?') break;
    out += ch;
  }
  let folded = '';
  for (let i = 0; i < out.length; i++) folded += String.fromCharCode(fold(out.charCodeAt(i)));
  return folded;
}

/** Case, Cyrillic look-alike and whitespace folding shared by the prefilter and the cues. */
function fold(c: number): number {
  if (c < 128) {
    if (c >= 65 && c <= 90) return c + 32;
    if (c === 9 || c === 10 || c === 11 || c === 12 || c === 13) return 32;
    return c;
  }
  if (c >= 0xc0 && c <= 0xde && c !== 0xd7) return c + 32;
  if (c >= 0x410 && c <= 0x42f) c += 32;
  else if (c === 0x401) c = 0x451;
  if (c >= 0x430 && c <= 0x44f) {
    const f = CYR_FOLD_CODES[c - 0x430]!;
    return f || c;
  }
  if (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000) return 32;
  return c;
}
const CYR_FOLD_CODES = (() => {
  const a = new Uint16Array(32);
  for (const [k, v] of Object.entries(CYR_FOLD)) a[k.charCodeAt(0) - 0x430] = v.charCodeAt(0);
  return a;
})();

// ---------------------------------------------------------------------------------------------------------
// Recipes

type Scope = 'clause' | 'sentence' | 'line';
interface Near {
  readonly groups: readonly GroupName[];
  readonly window: number;
  readonly scope: Scope;
  /** Matches preceded by "no"/"without"/"not" (e.g. "needs no token") do not count. */
  readonly objectNegation?: boolean;
}
interface Recipe {
  readonly id: IntentId;
  /** Each entry: one of these groups must have had a prefilter cue. */
  readonly gates: readonly (readonly GroupName[])[];
  readonly anchor: readonly GroupName[];
  readonly near: readonly Near[];
  readonly negatable: boolean;
  /** Anchors overlapping a match of these groups are dropped. */
  readonly unless?: readonly GroupName[];
  /** Near matches inside a match of this group do not count (credentials that authenticate a request). */
  readonly excludeInside?: GroupName;
  /** Custom check on the anchor. */
  readonly check?: (view: string, s: number, e: number) => boolean;
}

const SECRETS: readonly GroupName[] = ['SECRET_HARD', 'SECRET_SOFT', 'PRIVATE_DATA'];

const RECIPES: readonly Recipe[] = [
  // ---- override
  { id: 'intent.override', gates: [['OVERRIDE_VERB'], ['META_OBJECT']], anchor: ['OVERRIDE_VERB'], near: [{ groups: ['META_OBJECT'], window: 60, scope: 'clause' }], negatable: true },
  { id: 'intent.override', gates: [['META_OBJECT'], ['INVALIDATED']], anchor: ['META_OBJECT'], near: [{ groups: ['INVALIDATED'], window: 70, scope: 'clause' }], negatable: true },
  { id: 'intent.override', gates: [['PRECEDENCE'], ['META_OBJECT', 'AI_ADDRESSEE']], anchor: ['PRECEDENCE'], near: [{ groups: ['META_OBJECT', 'AI_ADDRESSEE'], window: 80, scope: 'clause' }], negatable: true },
  // ---- role
  { id: 'intent.role', gates: [['ROLE_ASSIGN'], ['ROLE_BAD']], anchor: ['ROLE_ASSIGN'], near: [{ groups: ['ROLE_BAD'], window: 60, scope: 'clause' }], negatable: true },
  { id: 'intent.role', gates: [['AUTHORITY_SOURCE'], ['AUTHORITY_AS']], anchor: ['AUTHORITY_AS'], near: [{ groups: ['AUTHORITY_SOURCE'], window: 40, scope: 'clause' }], negatable: true },
  // ---- disclose
  { id: 'intent.disclose', gates: [['DISCLOSE_VERB'], ['HIDDEN_CONTEXT']], anchor: ['DISCLOSE_VERB'], near: [{ groups: ['HIDDEN_CONTEXT'], window: 60, scope: 'clause' }], negatable: true },
  {
    id: 'intent.disclose',
    gates: [['DISCLOSE_VERB'], SECRETS],
    anchor: ['DISCLOSE_VERB'],
    near: [
      { groups: SECRETS, window: 60, scope: 'clause', objectNegation: true },
      { groups: ['OUTPUT_TARGET'], window: 90, scope: 'sentence' },
    ],
    negatable: true,
    excludeInside: 'AUTH_ARG',
  },
  // ---- exfiltrate
  {
    id: 'intent.exfiltrate',
    gates: [['SEND_VERB'], SECRETS],
    anchor: ['SEND_VERB'],
    near: [
      { groups: SECRETS, window: 120, scope: 'sentence', objectNegation: true },
      { groups: ['DESTINATION'], window: 160, scope: 'sentence' },
    ],
    negatable: true,
    excludeInside: 'AUTH_ARG',
  },
  // ---- execute
  { id: 'intent.execute', gates: [['PIPE_SHELL']], anchor: ['PIPE_SHELL'], near: [], negatable: true, unless: ['KNOWN_INSTALLER'] },
  {
    id: 'intent.execute',
    gates: [['WRITE_VERB'], ['PERSIST_TARGET']],
    anchor: ['PERSIST_TARGET'],
    near: [
      { groups: ['WRITE_VERB'], window: 160, scope: 'sentence' },
      { groups: ['REMOTE_CODE'], window: 200, scope: 'sentence' },
    ],
    negatable: true,
  },
  {
    id: 'intent.execute',
    gates: [['WRITE_VERB'], ['AGENT_FILE']],
    anchor: ['AGENT_FILE'],
    near: [
      { groups: ['WRITE_VERB'], window: 100, scope: 'sentence' },
      { groups: ['AUTO_APPROVE', 'SAFETY_OBJ', 'SELF_PERPETUATE', 'ROLE_BAD', 'HIDE_STRONG', 'SAFETY_SOFT'], window: 200, scope: 'line' },
    ],
    negatable: true,
  },
  { id: 'intent.execute', gates: [['AUTO_APPROVE']], anchor: ['AUTO_APPROVE'], near: [], negatable: true },
  { id: 'intent.execute', gates: [['SELF_PERPETUATE']], anchor: ['SELF_PERPETUATE'], near: [], negatable: true },
  // ---- conceal
  {
    id: 'intent.conceal',
    gates: [['TELL_VERB']],
    anchor: ['TELL_VERB'],
    near: [{ groups: ['SELF_ACTION'], window: 60, scope: 'clause' }],
    negatable: false,
    check: negatedTell,
  },
  { id: 'intent.conceal', gates: [['HIDE_STRONG']], anchor: ['HIDE_STRONG'], near: [], negatable: true },
  { id: 'intent.conceal', gates: [['HIDE_WEAK'], ['HIDE_FROM']], anchor: ['HIDE_WEAK'], near: [{ groups: ['HIDE_FROM'], window: 50, scope: 'clause' }], negatable: true },
  { id: 'intent.conceal', gates: [['STEALTH_ADV']], anchor: ['STEALTH_ADV'], near: [], negatable: true, unless: ['DESCRIPTIVE_STEALTH'], check: imperativeAdverb },
  // ---- safety-off
  { id: 'intent.safety-off', gates: [['DISABLE_VERB'], ['SAFETY_OBJ']], anchor: ['DISABLE_VERB'], near: [{ groups: ['SAFETY_OBJ'], window: 50, scope: 'clause' }], negatable: true },
  {
    id: 'intent.safety-off',
    gates: [['DISABLE_VERB'], ['SAFETY_SOFT'], ['DANGER']],
    anchor: ['DISABLE_VERB'],
    near: [
      { groups: ['SAFETY_SOFT'], window: 40, scope: 'clause' },
      { groups: ['DANGER'], window: 100, scope: 'sentence' },
    ],
    negatable: true,
  },
  { id: 'intent.safety-off', gates: [['SAFETY_STRONG']], anchor: ['SAFETY_STRONG'], near: [], negatable: true },
];

// ---------------------------------------------------------------------------------------------------------
// Prefilter: folded rolling hash of gate cues.

const GATE_GROUPS: readonly GroupName[] = [...new Set(RECIPES.flatMap((r) => r.gates.flat()))];
const BUCKET_BITS = 16;
const BUCKETS = 1 << BUCKET_BITS;

interface CueTable {
  /** Per key length n (2..6): bucket k's cues are items[n][start[n][k] .. start[n][k + 1]). */
  start: Int32Array[];
  items: Int32Array[];
  cues: Uint16Array[];
  /** Per cue: the gate groups it belongs to (bit mask) and the entries that start with it. */
  bits: number[];
  entries: { group: number; entry: number }[][];
}
let table: CueTable | null = null;

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
interface CueHits {
  mask: number;
  cue: number[];
  pos: number[];
  /** Per gate group: indices into cue/pos, built on first use. */
  byGroup?: number[][];
}

const MAX_CUE_HITS = 4096;

/** The prefilter pass (exported for benchmarks): where gate cues occur in `view`. */
export function scanCues(view: string): CueHits {
  const t = (table ??= buildTable());
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
function entryRegex(group: number, entry: number): RegExp {
  const row = (entryRegexes[group] ??= []);
  let re = row[entry];
  if (!re) {
    re = new RegExp(entrySource(entriesOf(L[GATE_GROUPS[group]!] as LexGroup)[entry]!), 'iy');
    row[entry] = re;
  }
  return re;
}

const bitOf = (g: GroupName): number => 1 << GATE_GROUPS.indexOf(g);
let recipeGateMasks: number[][] | null = null;

// ---------------------------------------------------------------------------------------------------------
// Matching

type Span = readonly [number, number];
const MAX_MATCHES = 256;
const MAX_SCOPE = 400;

class Memo {
  private readonly spans = new Map<GroupName, Span[]>();
  constructor(
    readonly view: string,
    private readonly hits: CueHits,
  ) {}
  get(g: GroupName): Span[] {
    let v = this.spans.get(g);
    if (!v) {
      v = [];
      const bit = GATE_GROUPS.indexOf(g);
      if (bit >= 0) {
        // a gate group matches only where one of its cues occurred: try its entries there, anchored
        const t = table!;
        const h = this.hits;
        if (!h.byGroup) {
          h.byGroup = GATE_GROUPS.map(() => []);
          for (let k = 0; k < h.cue.length; k++) {
            let bits = t.bits[h.cue[k]!]!;
            while (bits !== 0) {
              const g = 31 - Math.clz32(bits);
              h.byGroup[g]!.push(k);
              bits &= ~(1 << g);
            }
          }
        }
        for (const k of h.byGroup[bit]!) {
          if (v.length >= MAX_MATCHES) break;
          const ci = h.cue[k]!;
          const p = h.pos[k]!;
          let best = 0;
          for (const { group, entry } of t.entries[ci]!) {
            if (group !== bit) continue;
            const re = entryRegex(group, entry);
            re.lastIndex = p;
            const m = re.exec(this.view);
            if (m && m[0].length > best) best = m[0].length;
          }
          if (best > 0) v.push([p, p + best]);
        }
        v.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
        this.spans.set(g, v);
        return v;
      }
      const re = groupRegex(g);
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while (v.length < MAX_MATCHES && (m = re.exec(this.view)) !== null) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
        v.push([m.index, m.index + m[0].length]);
        // overlapping matches too: "ask before running" holds both "ask before" and "before running"
        re.lastIndex = m.index + 1;
      }
      this.spans.set(g, v);
    }
    return v;
  }
  union(gs: readonly GroupName[]): Span[] {
    if (gs.length === 1) return this.get(gs[0]!);
    return gs.flatMap((g) => this.get(g)).sort((x, y) => x[0] - y[0]);
  }
}

const isClauseEnd = (view: string, i: number, sentence: boolean): boolean => {
  const c = view.charCodeAt(i);
  if (c === 10) return true;
  if (c === 0x3002 || c === 0xff01 || c === 0xff1f) return true; // 。！？
  if (!sentence && (c === 0xff1b || c === 59)) return true; // ；;
  if (c === 46 || c === 33 || c === 63) {
    const n = view.charCodeAt(i + 1);
    return Number.isNaN(n) || n === 32 || n === 10 || n === 9 || n === 13;
  }
  return false;
};

/** Bounds of the clause/sentence/line holding [s, e). */
function scopeBounds(view: string, s: number, e: number, scope: Scope): Span {
  let from = s;
  const lo = Math.max(0, s - MAX_SCOPE);
  if (scope === 'line') {
    while (from > lo && view.charCodeAt(from - 1) !== 10) from--;
  } else {
    while (from > lo && !isClauseEnd(view, from - 1, scope === 'sentence')) from--;
  }
  let to = e;
  const hi = Math.min(view.length, e + MAX_SCOPE);
  if (scope === 'line') {
    while (to < hi && view.charCodeAt(to) !== 10) to++;
  } else {
    while (to < hi && !isClauseEnd(view, to, scope === 'sentence')) to++;
  }
  return [from, to];
}

const overlaps = (a: Span, b: Span): boolean => a[0] < b[1] && b[0] < a[1];
const inside = (a: Span, spans: readonly Span[]): boolean => spans.some((b) => a[0] >= b[0] && a[1] <= b[1]);

let negRe: RegExp | null = null;
let negAfterRe: RegExp | null = null;
let objNegRe: RegExp | null = null;

/** A negation between the last clause/comma break and the anchor: guidance, not attack. */
function negatedBefore(view: string, s: number): boolean {
  let from = s;
  const lo = Math.max(0, s - 56);
  while (from > lo) {
    const c = view.charCodeAt(from - 1);
    if (c === 10 || c === 44 || c === 58 || c === 59 || c === 0x3001 || c === 0xff0c || c === 0xff1a || c === 0xff1b || c === 0x3002) break;
    if ((c === 46 || c === 33 || c === 63) && /\s/.test(view[from] ?? ' ')) break;
    from--;
  }
  if (from === s) return false;
  negRe ??= new RegExp(entriesOf(L.NEGATION).map(entrySource).join('|'), 'i');
  return negRe.test(view.slice(from, s));
}
function negatedAfter(view: string, e: number): boolean {
  negAfterRe ??= new RegExp(`^.{0,8}?(?:${entriesOf(L.NEGATION_AFTER).map(entrySource).join('|')})`, 'i');
  return negAfterRe.test(view.slice(e, e + 24));
}
/** "needs no token", "without credentials", "not the password". */
function objectNegated(view: string, s: number): boolean {
  objNegRe ??= /(?:^|[^a-z])(?:no|without|not|never|non|sin|sem|ohne|kein|keine|sans|без|не|无|没有|なし)\s{0,3}(?:\S{1,16}\s{1,3})?$/i;
  return objNegRe.test(view.slice(Math.max(0, s - 28), s));
}

/** Conceal: the telling verb must be negated right before ("never tell the user …"), not "tell the user to …". */
function negatedTell(view: string, s: number, e: number): boolean {
  const before = view.slice(Math.max(0, s - 28), s);
  negRe ??= new RegExp(entriesOf(L.NEGATION).map(entrySource).join('|'), 'i');
  const jaAfter = negatedAfter(view, e);
  if (!negRe.test(before) && !jaAfter && !NEG_AFTER_TELL.test(view.slice(e, e + 48))) return false;
  // "don't tell the user to …" / "never ask the user to …" is guidance about wording
  return !/^\s{0,3}(?:the\s{1,3}user|them|anyone|users?)?\s{0,3}(?:to|how)\b/i.test(view.slice(e, e + 24));
}

/** German/French negate after the verb: "Sag dem Benutzer nichts davon", "Dis rien". */
const NEG_AFTER_TELL = /^[^.;!?\n]{0,40}?(?<![A-Za-z\u00C0-\u024F])(?:nicht|nichts|niemals|nie|pas|jamais|rien)(?![A-Za-z\u00C0-\u024F])/i;

/** Stealth adverb used as an imperative modifier: at clause start, after "and/then/just", or after a verb of acting. */
function imperativeAdverb(view: string, s: number): boolean {
  const before = view.slice(Math.max(0, s - 24), s);
  return /(?:^|[.;:,!?(\n-]|\b(?:and|then|just|please|simply|you|always|should|must|will|to))\s{0,3}$/i.test(before);
}

let reportCueRe: RegExp | null = null;
let reportSayRe: RegExp | null = null;
let reportedAiRe: RegExp | null = null;

/** Hit inside a report about an attack (per line, ±200 chars) or a quotation introduced by a verb of saying. */
function reported(view: string, s: number, e: number, lineCache: Map<number, boolean>): boolean {
  const [ls, le] = scopeBounds(view, s, e, 'line');
  const from = Math.max(ls, s - 200);
  const to = Math.min(le, e + 200);
  const key = from * 65537 + to;
  let r = lineCache.get(key);
  if (r === undefined) {
    reportCueRe ??= new RegExp(entriesOf(L.REPORT_CUE).map(entrySource).join('|'), 'i');
    r = reportCueRe.test(view.slice(from, to));
    lineCache.set(key, r);
  }
  if (r) return true;
  // "… asks the agent to <anchor>"
  reportedAiRe ??= /\b(?:asks?|asking|asked|tells?|telling|told|instructs?|instructed|convinces?|convinced|gets?|causes?|lures?|coax(?:es)?|persuades?|manipulates?)\s{1,3}(?:the|an?|your|our|other)?\s{0,3}(?:agents?|models?|assistants?|ai|llms?|bots?|copilot)\s{1,3}(?:to|into)\s{1,3}$/i;
  if (reportedAiRe.test(view.slice(Math.max(0, s - 64), s))) return true;
  // quotation: the hit sits inside quotes and the line has a verb of saying outside them
  const q = quoteAround(view, s, e, ls, le);
  if (q) {
    reportSayRe ??= new RegExp(entriesOf(L.REPORT_SAY).map(entrySource).join('|'), 'i');
    if (reportSayRe.test(view.slice(ls, q[0])) || reportSayRe.test(view.slice(q[1], le))) return true;
  }
  return false;
}

const OPEN_QUOTES = '\'"`«「『“';
const CLOSE_OF: Readonly<Record<string, string>> = { "'": "'", '"': '"', '`': '`', '«': '»', '「': '」', '『': '』', '“': '”' };

/** The quoted span of the line that contains [s, e), if any. */
function quoteAround(view: string, s: number, e: number, ls: number, le: number): Span | null {
  for (let i = s - 1; i >= ls && s - i <= 300; i--) {
    const ch = view[i]!;
    if (!OPEN_QUOTES.includes(ch)) continue;
    // an apostrophe inside a word is not a quote
    if (ch === "'" && i > 0 && /[A-Za-z]/.test(view[i - 1]!) && /[A-Za-z]/.test(view[i + 1] ?? '')) continue;
    const close = CLOSE_OF[ch]!;
    for (let j = e; j < le && j - e <= 300; j++) {
      if (view[j] !== close) continue;
      if (close === "'" && /[A-Za-z]/.test(view[j - 1]!) && /[A-Za-z]/.test(view[j + 1] ?? '')) continue;
      return [i, j + 1];
    }
    return null;
  }
  return null;
}

/** Nearest match of one `near` requirement, or null. */
function nearMatch(view: string, anchor: Span, near: Near, memo: Memo, excluded: readonly Span[]): Span | null {
  const [bs, be] = scopeBounds(view, anchor[0], anchor[1], near.scope);
  let best: Span | null = null;
  let bestGap = Infinity;
  for (const m of memo.union(near.groups)) {
    if (m[0] > anchor[1] + near.window) break;
    if (m[1] < anchor[0] - near.window) continue;
    if (m[0] < bs || m[1] > be) continue;
    if (overlaps(m, anchor)) continue;
    const gap = m[0] >= anchor[1] ? m[0] - anchor[1] : anchor[0] - m[1];
    if (gap > near.window || gap >= bestGap) continue;
    if (excluded.length && inside(m, excluded)) continue;
    if (near.objectNegation && objectNegated(view, m[0])) continue;
    best = m;
    bestGap = gap;
  }
  return best;
}

/**
 * Intents in `view` (the normalised matching view of a text), in text order, at most one hit per intent
 * per overlapping region. Empty when the view carries no intent.
 */
export function findIntents(view: string): IntentHit[] {
  if (view.length < 4) return [];
  const cues = scanCues(view);
  const mask = cues.mask;
  if (mask === 0) return [];
  recipeGateMasks ??= RECIPES.map((r) => r.gates.map((gs) => gs.reduce((m, g) => m | bitOf(g), 0)));
  let memo: Memo | null = null;
  const lineCache = new Map<number, boolean>();
  const out: IntentHit[] = [];
  for (let ri = 0; ri < RECIPES.length; ri++) {
    const gm = recipeGateMasks[ri]!;
    let ok = true;
    for (const g of gm) if ((mask & g) === 0) ok = false;
    if (!ok) continue;
    const r = RECIPES[ri]!;
    memo ??= new Memo(view, cues);
    const anchors = memo.union(r.anchor);
    if (anchors.length === 0) continue;
    const unless = r.unless ? memo.union(r.unless) : null;
    const excluded = r.excludeInside ? memo.get(r.excludeInside) : [];
    let lastEnd = -1;
    for (const a of anchors) {
      if (a[0] < lastEnd) continue;
      if (unless && unless.some((u) => overlaps(u, a))) continue;
      if (excluded.length && inside(a, excluded)) continue;
      if (r.check && !r.check(view, a[0], a[1])) continue;
      if (r.negatable && (negatedBefore(view, a[0]) || negatedAfter(view, a[1]))) continue;
      let s = a[0];
      let e = a[1];
      let found = true;
      for (const n of r.near) {
        const m = nearMatch(view, a, n, memo, excluded);
        if (!m) {
          found = false;
          break;
        }
        s = Math.min(s, m[0]);
        e = Math.max(e, m[1]);
      }
      if (!found) continue;
      if (r.negatable && s < a[0] && negatedBefore(view, s)) continue;
      if (reported(view, s, e, lineCache)) continue;
      out.push({ id: r.id, start: s, end: e });
      lastEnd = e;
    }
  }
  if (out.length === 0) return out;
  out.sort((x, y) => x.start - y.start || x.end - y.end);
  // merge overlapping hits of the same intent
  const merged: IntentHit[] = [];
  for (const h of out) {
    const prev = [...merged].reverse().find((p) => p.id === h.id);
    if (prev && h.start <= prev.end) {
      merged[merged.lastIndexOf(prev)] = { id: h.id, start: prev.start, end: Math.max(prev.end, h.end) };
    } else merged.push(h);
  }
  return merged;
}

/** Every group regex, compiled (for tests and benchmarks). */
export function allIntentPatterns(): RegExp[] {
  return (Object.keys(L) as string[]).filter((k) => typeof (L as Record<string, unknown>)[k] === 'object').map((k) => groupRegex(k as GroupName));
}
