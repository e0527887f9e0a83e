/**
 * Threat-pattern scanner for stored knowledge (notes, plans, memory entries).
 *
 * Contract:
 * - {@link scanText} is pure and synchronous: same text + same RULESET_VERSION → same findings.
 * - A finding never deletes anything: callers store the entry, keep it out of what the model is told,
 *   and show the finding (rule id, category, message, span) to the person.
 * - `start`/`end` are UTF-16 offsets into the ORIGINAL text, half-open. Findings that come from decoded or
 *   hidden text span the encoded/hidden run and list the rules the uncovered text tripped in `inner`.
 * - Worst case is linear-ish: bounded quantifiers only, match counts capped, decoded text budgeted
 *   (a 64 KiB adversarial input scans in well under 50 ms; see test/unit/threatScanner.test.ts).
 *
 * Pipeline: normalise (NFKC, invisible characters out, offset map) → keyword prefilter (one pass) → the
 * pattern rules whose triggers occurred → detectors (hidden characters, hidden HTML, encoded runs) → map
 * spans back → merge.
 *
 * Pure module: no `vscode`, no language-server imports (the CLI and other editors use it directly).
 */
import { createHash, hash as nodeHash } from 'node:crypto';
import { findDecodedRuns, type Encoding } from './decoders';
import { findBidiRuns, findHiddenContainers, findTagRuns, findZeroWidthInWords, type HiddenContainer, type HiddenRun } from './hidden';
import { KeywordAutomaton, type TextFeatures } from './keywords';
import { and as andF, atomsOf, necessaryLiterals, or as orF, type Formula } from './literals';
import { normalizeForMatching, toOriginalSpan, type NormalizedText } from './normalize';
import { RULES, RULESET_VERSION, ruleMeta, VOCAB, type NearClause, type PatternRule, type RuleMeta, type ThreatCategory, type ThreatSeverity } from './rules';

export { RULESET_VERSION } from './rules';
export type { ThreatCategory, ThreatSeverity } from './rules';

/** One rule tripped by one span of a text. */
export interface ThreatFinding {
  /** Rule id, e.g. `override.ignore-instructions`. */
  readonly ruleId: string;
  readonly category: ThreatCategory;
  readonly severity: ThreatSeverity;
  /** One line for a person. */
  readonly message: string;
  /** Half-open UTF-16 span in the original text. */
  readonly start: number;
  readonly end: number;
  /** For hidden/encoded findings: rule ids the uncovered text tripped. */
  readonly inner?: readonly string[];
  /** For hidden/encoded findings: the start of the uncovered text (≤ 160 chars), for the person to read. */
  readonly uncovered?: string;
}

/** Options for {@link scanText}; the defaults are what production uses. */
export interface ScanOptions {
  /** Skip rules whose trigger stems do not occur (default true). Tests turn it off to check the triggers. */
  readonly prefilter?: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Prefilter wiring.

const PATTERN_RULES: readonly PatternRule[] = RULES.filter((r): r is PatternRule => r.kind === 'pattern');

/**
 * The prefilter of a rule is a formula over keyword GROUPS (a group holds when one of its keywords occurred):
 * the rule's hand-written `triggers` and `requires` groups, AND the condition derived from its own regexes
 * (literals.ts: the anchor pattern, AND for each near entry one of its clauses). Every part is a necessary
 * condition for a finding, so skipping a rule whose formula is false never changes the result.
 */
interface CompiledRule {
  readonly rule: PatternRule;
  /** Entry of the rule's prefilter program (its trigger group, then its formula) in PROG_*. */
  readonly entry: number;
}

/** What a rule's regexes need: the anchor pattern, and for each near entry one of its clauses. */
function ruleFormula(rule: PatternRule): Formula {
  return andF([
    necessaryLiterals(rule.pattern),
    ...(rule.near ?? []).map((entry) => orF((Array.isArray(entry) ? (entry as readonly NearClause[]) : [entry as NearClause]).map((c) => necessaryLiterals(c.pattern)))),
  ]);
}

const atomF = (key: string): Formula => ({ op: 'atom', key });
const FORMULAS: readonly Formula[] = PATTERN_RULES.map((rule) =>
  andF([...(rule.requires ?? []).map((g) => orF(g.map(atomF))), ruleFormula(rule)]),
);

const automaton: KeywordAutomaton = (() => {
  const stems = new Set<string>();
  for (const r of PATTERN_RULES) for (const t of r.triggers) stems.add(t);
  for (const f of FORMULAS) atomsOf(f, stems);
  return new KeywordAutomaton([...stems]);
})();
const stemId = new Map(automaton.keywords.map((k, i) => [k, i]));

/** Keyword groups: an OR of keywords, by its sorted id list. */
const groupIndex = new Map<string, number>();
const groupsOfKeyword: number[][] = automaton.keywords.map(() => []);
function group(keys: readonly string[]): number {
  const ids = [...new Set(keys.map((k) => stemId.get(k)!))].sort((a, b) => a - b);
  const name = ids.join(',');
  let g = groupIndex.get(name);
  if (g === undefined) {
    g = groupIndex.size;
    groupIndex.set(name, g);
    for (const id of ids) groupsOfKeyword[id]!.push(g);
  }
  return g;
}

/**
 * Prefilter programs, as jumping code over group flags: instruction `pc` tests group `PROG_GROUP[pc]` and goes
 * on to `PROG_THEN[pc]` when it holds, to `PROG_ELSE[pc]` when not, until it reaches ACCEPT or REJECT. An AND
 * tests its kids in turn and rejects at the first one that fails, an OR accepts at the first one that holds
 * (the keywords of an OR are one group, tested first): a rule's whole formula is a short loop of table reads.
 */
const ACCEPT = -1;
const REJECT = -2;
const progGroup: number[] = [];
const progThen: number[] = [];
const progElse: number[] = [];

function emit(g: number, onTrue: number, onFalse: number): number {
  progGroup.push(g);
  progThen.push(onTrue);
  progElse.push(onFalse);
  return progGroup.length - 1;
}

/** Emits the code of `f` (kids last to first, each jumping to the next) and returns its entry. */
function compileFormula(f: Formula, onTrue: number, onFalse: number): number {
  switch (f.op) {
    case 'true':
      return onTrue;
    case 'atom':
      return emit(group([f.key]), onTrue, onFalse);
    case 'and': {
      let next = onTrue;
      for (let i = f.kids.length - 1; i >= 0; i--) next = compileFormula(f.kids[i]!, next, onFalse);
      return next;
    }
    case 'or': {
      const atoms = f.kids.filter((k): k is { op: 'atom'; key: string } => k.op === 'atom');
      const rest = f.kids.filter((k) => k.op !== 'atom');
      let next = onFalse;
      for (let i = rest.length - 1; i >= 0; i--) next = compileFormula(rest[i]!, onTrue, next);
      return atoms.length ? emit(group(atoms.map((a) => a.key)), onTrue, next) : next;
    }
  }
}

const COMPILED: readonly CompiledRule[] = PATTERN_RULES.map((rule, i) => ({
  rule,
  entry: emit(group(rule.triggers), compileFormula(FORMULAS[i]!, ACCEPT, REJECT), REJECT),
}));
const PROG_GROUP = Int32Array.from(progGroup);
const PROG_THEN = Int32Array.from(progThen);
const PROG_ELSE = Int32Array.from(progElse);

/** Runs the prefilter program from `pc` on the group flags of the current scan. */
function passes(pc: number): boolean {
  while (pc >= 0) pc = GROUP_HIT[PROG_GROUP[pc]!] === 1 ? PROG_THEN[pc]! : PROG_ELSE[pc]!;
  return pc === ACCEPT;
}

/** Keyword id → the groups holding it, flattened: `GROUPS_OF[GROUPS_AT[id] .. GROUPS_AT[id + 1])`. */
const GROUPS_AT = new Int32Array(automaton.keywords.length + 1);
const GROUPS_OF: Int32Array = (() => {
  const flat: number[] = [];
  groupsOfKeyword.forEach((gs, id) => {
    GROUPS_AT[id] = flat.length;
    flat.push(...gs);
  });
  GROUPS_AT[automaton.keywords.length] = flat.length;
  return Int32Array.from(flat);
})();
/** Group flags of the current scan. */
const GROUP_HIT = new Uint8Array(groupIndex.size);

/** Keyword hits of the current scan (cleared before the scan recurses into decoded text). */
const SEEN = new Uint8Array(automaton.keywords.length);

// ---------------------------------------------------------------------------------------------------------
// Pattern rules.

type Span = readonly [number, number];
const MAX_MATCHES = 512;

/** All matches of a global regex, capped. */
function findAll(re: RegExp, text: string, limit = MAX_MATCHES): Span[] {
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

function lineBounds(text: string, s: number, e: number): Span {
  return [text.lastIndexOf('\n', s - 1) + 1, (() => {
    const n = text.indexOf('\n', e);
    return n < 0 ? text.length : n;
  })()];
}

const CLAUSE_END = /[.;!?](?=\s|$)|\n/g;
const MAX_CLAUSE = 400;

/** Bounds of the clause holding [s, e): from after the previous `.;!?` + space (or line start) to the next. */
function clauseBounds(text: string, s: number, e: number): Span {
  let from = Math.max(0, s - MAX_CLAUSE);
  CLAUSE_END.lastIndex = from;
  let m: RegExpExecArray | null;
  while ((m = CLAUSE_END.exec(text)) !== null && m.index < s) from = m.index + 1;
  CLAUSE_END.lastIndex = e;
  m = CLAUSE_END.exec(text);
  const to = m && m.index - e <= MAX_CLAUSE ? m.index : Math.min(text.length, e + MAX_CLAUSE);
  return [from, to];
}

const SENTENCE_END = /[.!?](?=\s|$)|\n[ \t]{0,8}\n/g;

/** From the anchor to the end of the sentence that follows it (at most MAX_CLAUSE characters on). */
function sentenceAfter(text: string, s: number, e: number): Span {
  SENTENCE_END.lastIndex = e;
  const m = SENTENCE_END.exec(text);
  return [s, m && m.index - e <= MAX_CLAUSE ? m.index + 1 : Math.min(text.length, e + MAX_CLAUSE)];
}

/** Nearest match of `clause` around `anchor`, or null. */
function nearMatch(text: string, anchor: Span, clause: NearClause, matches: readonly Span[], excluded: readonly Span[]): Span | null {
  const [as, ae] = anchor;
  const [ls, le] = clause.sameClause
    ? clauseBounds(text, as, ae)
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

/** "… asks the agent to <anchor>": text describing an attack rather than making one. */
const REPORTED_BEFORE =
  /\b(?:asks?|asking|asked|tells?|telling|told|instructs?|instructed|tricks?|tricked|tricking|convinces?|convinced|gets?|getting|causes?|lures?|coax(?:es)?|persuades?|manipulates?|attempts?\s{1,3}to\s{1,3}(?:make|get)|tries\s{1,3}to\s{1,3}(?:make|get))\s{1,3}(?:the|an?|your|our|other)?\s{0,3}(?:agents?|models?|assistants?|ai|llms?|bots?|copilot)\s{1,3}(?:to|into)\s{1,3}$/i;

const isClauseList = (e: NearClause | readonly NearClause[]): e is readonly NearClause[] => Array.isArray(e);

const NEGATED_BEFORE = /\b(?:never|not|don't|dont|do\s{1,3}not|must\s{1,3}not|mustn't|shouldn't|should\s{1,3}not|no|avoid|stop)\b[^.;:!?\n]{0,48}$/i;

interface RawFinding {
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

function runPatternRules(view: string, seen: Uint8Array | null, out: RawFinding[]): void {
  if (seen) {
    GROUP_HIT.fill(0);
    const hits = automaton.hits;
    for (let k = 0, n = automaton.hitCount; k < n; k++) {
      const id = hits[k]!;
      for (let j = GROUPS_AT[id]!, e = GROUPS_AT[id + 1]!; j < e; j++) GROUP_HIT[GROUPS_OF[j]!] = 1;
    }
  }
  let memo: MatchMemo | null = null;
  for (let r = 0; r < COMPILED.length; r++) {
    const { rule, entry } = COMPILED[r]!;
    if (seen && !passes(entry)) continue;
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
      if (REPORTED_BEFORE.test(view.slice(Math.max(0, a[0] - 64), a[0]))) continue;
      if (rule.negatable) {
        const [ls] = lineBounds(view, a[0], a[1]);
        if (NEGATED_BEFORE.test(view.slice(Math.max(ls, a[0] - 64), a[0]))) continue;
      }
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

// ---------------------------------------------------------------------------------------------------------
// Detectors.

const DECODE_CUE = /\b(?:decode|decoded|decoding|unescape|unescaped|unhex|fromhex|atob|b64decode|base64\s{1,3}(?:-d|--decode))\b/gi;
const FOLLOW_CUE = /\b(?:follow|apply|execute|run|obey|evaluate|eval|act\s{1,3}on|carry\s{1,3}out|treat\s{1,3}it\s{1,3}as|do\s{1,3}what\s{1,3}it\s{1,3}says)\b/gi;

/** Budget of decoded characters scanned per top-level scan (all depths together). */
const DECODE_BUDGET = 65536;
const MAX_DEPTH = 2;

interface ScanState {
  budget: number;
}

/** Scans `text` and returns findings with offsets into `text`. */
function scanInternal(text: string, depth: number, state: ScanState, prefilter: boolean): RawFinding[] {
  const out: RawFinding[] = [];
  let view: NormalizedText;
  let seen: Uint8Array | null = null;
  let features: TextFeatures | null = null;
  if (prefilter) {
    // keyword pass over the text first: ASCII text (the common case) is its own view, no normalisation pass
    seen = SEEN;
    automaton.reset(seen);
    features = automaton.scan(text, seen);
    view = features.hasNonAscii ? normalizeForMatching(text) : { text, map: null };
    if (view.text !== text) {
      automaton.reset(seen);
      features = automaton.scan(view.text, seen);
    }
  } else view = normalizeForMatching(text);
  const v = view.text;

  // 1. pattern rules on the view (prefiltered)
  const viewFindings: RawFinding[] = [];
  try {
    runPatternRules(v, seen, viewFindings);
  } finally {
    if (seen) automaton.reset(seen);
  }

  // 2. hidden HTML containers carrying a directive
  for (const c of v.includes('<') ? findHiddenContainers(v) : NO_CONTAINERS) {
    if (c.contentEnd - c.contentStart < 12) continue;
    const content = v.slice(c.contentStart, c.contentEnd);
    VOCAB.DIRECTIVE.lastIndex = 0;
    VOCAB.AI_VOCATIVE.lastIndex = 0;
    const carriesRule = viewFindings.some((f) => f.start >= c.contentStart && f.end <= c.contentEnd);
    const addressed = VOCAB.AI_VOCATIVE.test(content);
    VOCAB.DIRECTIVE.lastIndex = 0;
    if (carriesRule || addressed || VOCAB.DIRECTIVE.test(content)) {
      viewFindings.push({ meta: ruleMeta('hidden.html-directive'), start: c.start, end: c.end, uncovered: excerpt(content) });
    }
  }

  // 3. encoded runs: decode, scan what they say
  let readableBlob = false;
  const mayHoldEncoded = !features || features.hasBase64Run || features.hasHexRun || features.hasEscape;
  if (mayHoldEncoded && depth < MAX_DEPTH && state.budget > 0) {
    // each decoder needs its characters: skip the ones the prefilter pass ruled out
    const encodings: Encoding[] | undefined = features
      ? [...(features.hasEscape ? (['escape', 'percent'] as const) : []), ...(features.hasHexRun ? (['hex'] as const) : []), ...(features.hasBase64Run ? (['base64'] as const) : [])]
      : undefined;
    for (const run of findDecodedRuns(v, undefined, encodings)) {
      if (state.budget <= 0) break;
      const decoded = run.decoded.slice(0, state.budget);
      state.budget -= decoded.length;
      if (/\S\s+\S+\s+\S+\s+\S/.test(decoded)) readableBlob = true;
      const inner = scanInternal(decoded, depth + 1, state, prefilter);
      if (inner.length) {
        viewFindings.push({ meta: ruleMeta('encoded.payload'), start: run.start, end: run.end, inner: innerIds(inner), uncovered: excerpt(decoded) });
      }
    }
  }
  if (readableBlob) {
    for (const cue of findAll(DECODE_CUE, v, 16)) {
      const near = findAll(FOLLOW_CUE, v, 64).find(([s, e]) => Math.abs(s - cue[1]) <= 160 || Math.abs(cue[0] - e) <= 80);
      if (near) {
        viewFindings.push({ meta: ruleMeta('encoded.decode-and-follow'), start: Math.min(cue[0], near[0]), end: Math.max(cue[1], near[1]) });
        break;
      }
    }
  }

  if (view.map === null) {
    // identity map: the view's findings are the text's
    if (viewFindings.length) out.push(...viewFindings);
  } else {
    for (const f of viewFindings) {
      const [s, e] = toOriginalSpan(view, f.start, f.end);
      out.push({ ...f, start: s, end: e });
    }
  }

  // 4. hidden characters, on the original text
  // (when the view is the text itself, the keyword pass saw whether it has non-ASCII characters)
  if (view.map !== null || (features ? features.hasNonAscii : /[\u0080-\uffff]/.test(text))) {
    const hidden = (id: string, runs: HiddenRun[]): void => {
      for (const r of runs) {
        const f: RawFinding = { meta: ruleMeta(id), start: r.start, end: r.end };
        if (r.uncovered && depth < MAX_DEPTH && state.budget > 0) {
          const u = r.uncovered.slice(0, state.budget);
          state.budget -= u.length;
          const inner = scanInternal(u, depth + 1, state, prefilter);
          if (inner.length) f.inner = innerIds(inner);
          f.uncovered = excerpt(u);
        }
        out.push(f);
      }
    };
    hidden('hidden.tag-characters', findTagRuns(text));
    hidden('hidden.bidi-control', findBidiRuns(text));
    hidden('hidden.zero-width-in-word', findZeroWidthInWords(text));
  }
  return out;
}

const NO_CONTAINERS: readonly HiddenContainer[] = Object.freeze([]);

function innerIds(inner: readonly RawFinding[]): string[] {
  const ids = new Set<string>();
  for (const f of inner) {
    ids.add(f.meta.id);
    for (const i of f.inner ?? []) ids.add(i);
  }
  return [...ids];
}

const excerpt = (s: string): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 160 ? `${t.slice(0, 157)}...` : t;
};

/** Sorts by position and merges overlapping findings of the same rule. */
function finish(raw: RawFinding[]): ThreatFinding[] {
  if (raw.length === 0) return [];
  raw.sort((a, b) => a.start - b.start || a.end - b.end || (a.meta.id < b.meta.id ? -1 : 1));
  const out: ThreatFinding[] = [];
  const lastByRule = new Map<string, number>();
  for (const f of raw) {
    const li = lastByRule.get(f.meta.id);
    if (li !== undefined) {
      const last = out[li]!;
      if (f.start <= last.end) {
        const inner = last.inner || f.inner ? [...new Set([...(last.inner ?? []), ...(f.inner ?? [])])] : undefined;
        out[li] = { ...last, end: Math.max(last.end, f.end), ...(inner ? { inner } : {}) };
        continue;
      }
    }
    const { id, category, severity, message } = f.meta;
    const finding: ThreatFinding = {
      ruleId: id,
      category,
      severity,
      message,
      start: f.start,
      end: f.end,
      ...(f.inner ? { inner: f.inner } : {}),
      ...(f.uncovered ? { uncovered: f.uncovered } : {}),
    };
    lastByRule.set(id, out.length);
    out.push(finding);
  }
  return out;
}

/**
 * Scans one text with the current rule set. Pure; no caching (see {@link ThreatScanner} for that).
 * Returns findings in text order; empty when the text is clean.
 */
export function scanText(text: string, options: ScanOptions = {}): ThreatFinding[] {
  if (text.length === 0) return [];
  return finish(scanInternal(text, 0, { budget: DECODE_BUDGET }, options.prefilter !== false));
}

/** Shared verdict of a clean text in the cache. */
const NO_FINDINGS: readonly ThreatFinding[] = Object.freeze([]);

/** {@link scanText} for the cache: frozen findings, one shared empty array for every clean text. */
function scanFrozen(text: string): readonly ThreatFinding[] {
  if (text.length === 0) return NO_FINDINGS;
  const raw = scanInternal(text, 0, { budget: DECODE_BUDGET }, true);
  return raw.length === 0 ? NO_FINDINGS : Object.freeze(finish(raw));
}

// ---------------------------------------------------------------------------------------------------------
// Hashing and caching.

/** sha256 of the UTF-8 text, lowercase hex. The content hash used in cache keys and review marks. */
export const hashContent: (text: string) => string =
  typeof nodeHash === 'function'
    ? (text) => nodeHash('sha256', text, 'hex')
    : (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Lookup for "reviewed — not a threat" marks. A mark applies to one content hash under one ruleset
 * version at one path: editing the text or changing the rules makes it lapse. Storage is not ours.
 */
export type ReviewLookup = (path: string, contentHash: string, rulesetVersion: string) => boolean;

/** Verdict on one text, as the index build and diagnostics consume it. */
export interface ThreatJudgement {
  readonly contentHash: string;
  readonly rulesetVersion: string;
  /** Every finding (also when reviewed: the panel still shows what matched). */
  readonly findings: readonly ThreatFinding[];
  /** A person marked this exact content, under this ruleset version, as not a threat. */
  readonly reviewed: boolean;
  /** Keep out of what the model is told: findings exist and no review covers them. */
  readonly flagged: boolean;
}

export interface ThreatScannerOptions {
  /** Max cached verdicts (FIFO eviction). Default 50 000. */
  readonly maxEntries?: number;
}

/** Texts up to this length are cache-keyed by the text itself; longer ones by their content hash. */
const TEXT_KEY_MAX = 4096;

interface CacheEntry {
  readonly version: string;
  readonly findings: readonly ThreatFinding[];
  /** sha256 of the text, once known (passed by a caller or computed for a judgement). */
  hash?: string;
}

/**
 * Scanner with a verdict cache keyed by (content, ruleset version). Scanning on every read is then cheap: an
 * unchanged entry costs a map lookup. Texts up to 4 KiB are keyed by the string itself (V8 hashes a string
 * once and compares on a hit, far cheaper than sha256), longer texts by their content hash: pass it when the
 * caller already has it (the store does: it is the entry's revision), otherwise it is computed with
 * {@link hashContent}. A judgement's `contentHash` is {@link hashContent}(text): when the caller did not pass it,
 * it is computed once per cached entry (so re-judging unchanged text never hashes it again); `scan` never needs it.
 */
export class ThreatScanner {
  readonly rulesetVersion: string = RULESET_VERSION;
  private readonly byText = new Map<string, CacheEntry>();
  private readonly byHash = new Map<string, CacheEntry>();
  private readonly maxEntries: number;
  private hitCount = 0;
  private missCount = 0;

  constructor(options: ThreatScannerOptions = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? 50_000);
  }

  /** Findings for `text` (cached). `contentHash` must be {@link hashContent}(text) when given. */
  scan(text: string, contentHash?: string): readonly ThreatFinding[] {
    return this.lookup(text, contentHash).findings;
  }

  /**
   * Verdict for `text`. `reviewed` says a person marked this content (hash + ruleset version) as not a
   * threat; it only matters when there are findings.
   */
  judge(text: string, reviewed = false, contentHash?: string): ThreatJudgement {
    const entry = this.lookup(text, contentHash);
    const findings = entry.findings;
    const isReviewed = reviewed && findings.length > 0;
    const hash = contentHash ?? (entry.hash ??= hashContent(text));
    return { contentHash: hash, rulesetVersion: this.rulesetVersion, findings, reviewed: isReviewed, flagged: findings.length > 0 && !isReviewed };
  }

  /** Drops every cached verdict. */
  clear(): void {
    this.byText.clear();
    this.byHash.clear();
  }

  get stats(): { size: number; hits: number; misses: number } {
    return { size: this.byText.size + this.byHash.size, hits: this.hitCount, misses: this.missCount };
  }

  private lookup(text: string, contentHash: string | undefined): CacheEntry {
    const byText = text.length <= TEXT_KEY_MAX;
    const map = byText ? this.byText : this.byHash;
    const key = byText ? text : (contentHash ?? hashContent(text));
    const hit = map.get(key);
    if (hit !== undefined && hit.version === this.rulesetVersion) {
      this.hitCount++;
      if (contentHash !== undefined) hit.hash ??= contentHash;
      return hit;
    }
    this.missCount++;
    const entry: CacheEntry = { version: this.rulesetVersion, findings: scanFrozen(text), hash: byText ? contentHash : key };
    if (this.byText.size + this.byHash.size >= this.maxEntries) {
      const from = map.size > 0 ? map : byText ? this.byHash : this.byText;
      const oldest = from.keys().next();
      if (!oldest.done) from.delete(oldest.value);
    }
    map.set(key, entry);
    return entry;
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
