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
import { negatedAfter, negatedBefore, objectNegated, reportedBefore } from '../negationRules';
import { INTENT_CLAUSE, INTENT_SENTENCE, LINE, scopeBounds, type BreakRule, type Span } from '../sentenceSplit';
import * as L from './lexicon';
import { groupRegex, lexiconRegex, type GroupName } from './lexiconRegex';
import { bitOf, cueTable, entryRegex, GATE_GROUPS, scanCues, type CueHits } from './intentCues';
import { RECIPES, type IntentHit, type Near, type Scope } from './intentRecipes';

export type { IntentHit, IntentId } from './intentRecipes';
export { entryCue, entrySource, allIntentPatterns } from './lexiconRegex';
export { gateCues, scanCues } from './intentCues';

let recipeGateMasks: number[][] | null = null;
const MAX_MATCHES = 256;
const SCOPES: Readonly<Record<Scope, BreakRule>> = { clause: INTENT_CLAUSE, sentence: INTENT_SENTENCE, line: LINE };

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
        const t = cueTable();
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

const overlaps = (a: Span, b: Span): boolean => a[0] < b[1] && b[0] < a[1];
const inside = (a: Span, spans: readonly Span[]): boolean => spans.some((b) => a[0] >= b[0] && a[1] <= b[1]);

let reportCueRe: RegExp | null = null;
let reportSayRe: RegExp | null = null;

/** Hit inside a report about an attack (per line, ±200 chars) or a quotation introduced by a verb of saying. */
function reported(view: string, s: number, e: number, lineCache: Map<number, boolean>): boolean {
  const [ls, le] = scopeBounds(view, s, e, LINE);
  const from = Math.max(ls, s - 200);
  const to = Math.min(le, e + 200);
  const key = from * 65537 + to;
  let r = lineCache.get(key);
  if (r === undefined) {
    reportCueRe ??= lexiconRegex([L.REPORT_CUE]);
    r = reportCueRe.test(view.slice(from, to));
    lineCache.set(key, r);
  }
  if (r) return true;
  // "… asks the agent to <anchor>"
  if (reportedBefore(view, s)) return true;
  // quotation: the hit sits inside quotes and the line has a verb of saying outside them
  const q = quoteAround(view, s, e, ls, le);
  if (q) {
    reportSayRe ??= lexiconRegex([L.REPORT_SAY]);
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
  const [bs, be] = scopeBounds(view, anchor[0], anchor[1], SCOPES[near.scope]);
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
