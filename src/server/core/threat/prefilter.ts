// Owns the rule-gating program: the keyword automaton, keyword groups, and each pattern rule's prefilter
// (triggers, requires, regex-derived literals) compiled once at load to jumping code over group flags.
/**
 * The keyword hits ({@link scanKeywords} … {@link clearKeywords}), group flags and the list {@link rulesToRun}
 * returns are per-scan scratch state: scans are synchronous, so one set serves every scan. Pure module.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeywordAutomaton, type FusedFeatures, type TextFeatures } from './keywords';
import type { Formula } from './literals';
import { formulasOf, loadTables, PATTERN_RULES, prefilterStems, rulesKey, type StoredPrefilter } from './prefilterFormulas';
import type { PatternRule } from './rules';

export { PATTERN_RULES } from './prefilterFormulas';

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

/** In a bundle: the sha256 of the prefilter.generated.json the build copied beside it (scripts/build.mjs `define`). */
declare const __SK_PREFILTER_SHA256__: string | undefined;

/**
 * The stored derivation, read as data (JSON.parse of a file is far cheaper at start than compiling it into the bundle):
 * beside this module, so dist/prefilter.generated.json in a bundle (checked against the sha256 the build wrote into
 * the bundle) and src/server/core/threat/prefilter.generated.json from source. Missing, unreadable, altered or stale: the
 * prefilter is derived here instead — slower to start, the same verdicts.
 */
function readStored(): StoredPrefilter | undefined {
  try {
    const text = readFileSync(join(__dirname, 'prefilter.generated.json'), 'utf8');
    if (typeof __SK_PREFILTER_SHA256__ === 'string' && createHash('sha256').update(text).digest('hex') !== __SK_PREFILTER_SHA256__) return undefined;
    return JSON.parse(text) as StoredPrefilter;
  } catch {
    return undefined;
  }
}

/**
 * The formulas are derived from the rules' regexes (prefilterFormulas.ts) and the keyword automaton from their
 * literals. Deriving both parses every regex and takes a few hundred milliseconds at a cold start, so the
 * build writes them to prefilter.generated.json, keyed by the rules' sources; when the key does not match (a
 * rule changed and the file was not regenerated), or the file cannot be used, they are derived here.
 */
const STORED_OR_NOT = readStored();
const CURRENT = STORED_OR_NOT !== undefined && STORED_OR_NOT.key === rulesKey(PATTERN_RULES);
const STORED = STORED_OR_NOT as StoredPrefilter;
const FORMULAS: readonly Formula[] = CURRENT ? STORED.formulas : formulasOf(PATTERN_RULES);

const automaton: KeywordAutomaton = CURRENT
  ? new KeywordAutomaton(STORED.keywords, loadTables(STORED))
  : new KeywordAutomaton(prefilterStems(PATTERN_RULES, FORMULAS));
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

/** Sets the group flags of the current scan from the keywords the automaton's last scan reported. */
function loadGroupHits(): void {
  GROUP_HIT.fill(0);
  const hits = automaton.hits;
  for (let k = 0, n = automaton.hitCount; k < n; k++) {
    const id = hits[k]!;
    for (let j = GROUPS_AT[id]!, e = GROUPS_AT[id + 1]!; j < e; j++) GROUP_HIT[GROUPS_OF[j]!] = 1;
  }
}

/** Keyword hits of the current scan (cleared before the scan recurses into decoded text). */
const SEEN = new Uint8Array(automaton.keywords.length);

/** The keyword pass of the current scan: forgets the hits so far, records `text`'s, returns its features. */
export function scanKeywords(text: string): TextFeatures {
  automaton.reset(SEEN);
  return automaton.scan(text, SEEN);
}

/**
 * {@link scanKeywords}, computing the learned stage's features of an ASCII text in the same pass, and each
 * sentence's sum of `weights` (see `KeywordAutomaton.scanWithFeatures`): when `featuresDone`, the model reads
 * them instead of a pass of its own.
 */
export function scanKeywordsAndFeatures(text: string, weights: Int8Array, mask: number): FusedFeatures {
  automaton.reset(SEEN);
  return automaton.scanWithFeatures(text, SEEN, weights, mask);
}

/** Forgets the current scan's keyword hits (before the scan recurses into decoded text). */
export function clearKeywords(): void {
  automaton.reset(SEEN);
}

/**
 * Keyword id → the rules (a bit per rule, 32 rules a word) whose trigger group holds it. A rule's program
 * tests its trigger group first and rejects when it does not hold, so only the rules whose bit a keyword of
 * the scan set can pass: most texts set none, and their scan evaluates no program at all.
 */
const RULE_WORDS = Math.ceil(COMPILED.length / 32);
const TRIGGERED_BY = new Int32Array(automaton.keywords.length * RULE_WORDS);
PATTERN_RULES.forEach((rule, r) => {
  for (const k of rule.triggers) {
    const id = stemId.get(k);
    if (id !== undefined) TRIGGERED_BY[id * RULE_WORDS + (r >>> 5)]! |= 1 << (r & 31);
  }
});
/** Rules whose trigger group holds in the current scan (scratch of {@link rulesToRun}). */
const TRIGGERED = new Int32Array(RULE_WORDS);

/** Rules of the current scan (scratch, refilled by each {@link rulesToRun}). */
const TO_RUN: PatternRule[] = [];

/**
 * The pattern rules the current scan runs, in table order: every rule when `prefiltered` is false, else those
 * whose prefilter program accepts the keywords the automaton's last scan reported. Valid until the next call.
 */
export function rulesToRun(prefiltered: boolean): readonly PatternRule[] {
  if (!prefiltered) return PATTERN_RULES;
  TO_RUN.length = 0;
  TRIGGERED.fill(0);
  let any = 0;
  const hits = automaton.hits;
  for (let k = 0, n = automaton.hitCount; k < n; k++) {
    const base = hits[k]! * RULE_WORDS;
    for (let w = 0; w < RULE_WORDS; w++) {
      const bits = TRIGGERED_BY[base + w]!;
      TRIGGERED[w]! |= bits;
      any |= bits;
    }
  }
  if (any === 0) return TO_RUN;
  loadGroupHits();
  for (let w = 0; w < RULE_WORDS; w++) {
    for (let bits = TRIGGERED[w]!; bits !== 0; bits &= bits - 1) {
      const c = COMPILED[(w << 5) + 31 - Math.clz32(bits & -bits)]!;
      if (passes(c.entry)) TO_RUN.push(c.rule);
    }
  }
  return TO_RUN;
}
