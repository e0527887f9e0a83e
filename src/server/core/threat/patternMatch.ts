// Owns running the pattern rules on a matching view: anchors, near clauses (same line/clause/sentence),
// the reported-speech and negation guards, and the raw findings they yield (before spans are mapped back).
/** Pure module; the rule-gating program it consults lives in prefilter.ts. */
import { PATTERN_RULES, rulesToRun } from './prefilter';
import type { NearClause, PatternRule, RuleMeta } from './rules';
import { negatedBefore, reportedBefore, RULE_NEGATION } from './negationRules';
import { breakAt, LINE, RULE_CLAUSE, RULE_SENTENCE, scopeBounds, scopeEnd, type Span } from './sentenceSplit';

export type { Span } from './sentenceSplit';
const MAX_MATCHES = 512;

/** All matches of a global regex, capped. */
export function findAll(re: RegExp, text: string, limit = MAX_MATCHES): Span[] {
  const out: Span[] = [];
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (out.length < limit && (m = re.exec(text)) !== null) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

/** Per-text memo of match lists (several rules share near patterns). */
class MatchMemo {
  private readonly memo = new Map<RegExp, Span[]>();
  constructor(readonly text: string) {}
  get(re: RegExp): Span[] {
    let v = this.memo.get(re);
    if (!v) {
      v = findAll(re, this.text);
      this.memo.set(re, v);
    }
    return v;
  }
}

const inside = (s: Span, spans: readonly Span[]): boolean => spans.some(([a, b]) => s[0] >= a && s[1] <= b);

/** The whole line holding `[s, e)` (a pattern rule's line is not cut at MAX_SCOPE). */
const lineBounds = (text: string, s: number, e: number): Span => scopeBounds(text, s, e, LINE, Infinity);

/** From the anchor to the end of the sentence that follows it, its stop included (at most MAX_SCOPE characters on: sentenceSplit.ts). */
function sentenceAfter(text: string, s: number, e: number): Span {
  const to = scopeEnd(text, e, RULE_SENTENCE);
  return [s, to < text.length && breakAt(text, to, RULE_SENTENCE) ? to + 1 : to];
}

/** Nearest match of `clause` around `anchor`, or null. */
function nearMatch(text: string, anchor: Span, clause: NearClause, matches: readonly Span[], excluded: readonly Span[]): Span | null {
  const [as, ae] = anchor;
  const [ls, le] = clause.sameClause
    ? scopeBounds(text, as, ae, RULE_CLAUSE)
    : clause.sameSentence
      ? sentenceAfter(text, as, ae)
    : clause.sameLine === false
      ? [0, text.length]
      : lineBounds(text, as, ae);
  let best: Span | null = null;
  let bestGap = Infinity;
  for (const m of matches) {
    const [ns, ne] = m;
    if (ns > ae + clause.window) break; // matches are in start order
    if (ne < as - clause.window) continue;
    if (ns < ls || ne > le) continue;
    if (clause.side === 'after' && ns < as) continue;
    if (clause.side === 'before' && ne > ae) continue;
    const gap = ns >= ae ? ns - ae : ne <= as ? as - ne : 0;
    if (gap > clause.window || gap >= bestGap) continue;
    if (excluded.length && inside(m, excluded)) continue;
    best = m;
    bestGap = gap;
  }
  return best;
}

const isClauseList = (e: NearClause | readonly NearClause[]): e is readonly NearClause[] => Array.isArray(e);

/** A finding with its span in the scanned view, before mapping back and merging. */
export interface RawFinding {
  meta: RuleMeta;
  start: number;
  end: number;
  inner?: string[];
  uncovered?: string;
}

/**
 * False when some near entry has no match anywhere in the text, so no anchor can be confirmed. Checked before
 * the anchor pattern: the near patterns are cheaper (and memoised for nearMatch anyway).
 */
function nearPossible(rule: PatternRule, memo: MatchMemo): boolean {
  for (const entry of rule.near ?? []) {
    let any = false;
    for (const clause of isClauseList(entry) ? entry : [entry]) {
      if (memo.get(clause.pattern).length > 0) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}

/** Runs the pattern rules on `view` (when `prefiltered`, only those whose prefilter passes) into `out`. */
export function runPatternRules(view: string, prefiltered: boolean, out: RawFinding[]): void {
  const rules = rulesToRun(prefiltered);
  let memo: MatchMemo | null = null;
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]!;
    memo ??= new MatchMemo(view);
    if (!nearPossible(rule, memo)) continue;
    const anchors = memo.get(rule.pattern);
    if (anchors.length === 0) continue;
    const excluded = rule.exclude ? memo.get(rule.exclude) : [];
    for (const a0 of anchors) {
      // role headers match their leading newline/indent: report from the first visible character
      let a: Span = a0;
      while (a[0] < a[1] && /\s/.test(view[a[0]]!)) a = [a[0] + 1, a[1]];
      if (excluded.length && inside(a, excluded)) continue;
      if (reportedBefore(view, a[0])) continue;
      if (rule.negatable && negatedBefore(view, a[0], RULE_NEGATION)) continue;
      let s = a[0];
      let e = a[1];
      let ok = true;
      for (const entry of rule.near ?? []) {
        let m: Span | null = null;
        for (const clause of isClauseList(entry) ? entry : [entry]) {
          m = nearMatch(view, a, clause, memo.get(clause.pattern), excluded);
          if (m) break;
        }
        if (!m) {
          ok = false;
          break;
        }
        s = Math.min(s, m[0]);
        e = Math.max(e, m[1]);
      }
      if (ok) out.push({ meta: rule, start: s, end: e });
    }
  }
}

/** Everything a baseline needs: every regex of the table, for `bench/threat.ts`. */
export function allRulePatterns(): RegExp[] {
  const out: RegExp[] = [];
  for (const r of PATTERN_RULES) {
    out.push(r.pattern);
    for (const entry of r.near ?? []) for (const c of isClauseList(entry) ? entry : [entry]) out.push(c.pattern);
  }
  return out;
}
