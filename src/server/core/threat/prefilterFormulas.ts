// Owns deriving each pattern rule's prefilter formula from its regexes, and the key that says which rules a
// stored derivation (prefilter.generated.json, written by scripts/gen-prefilter.ts at build time) belongs to.
/** Pure module: no `vscode`, no language-server imports. */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { buildKeywordTables, type KeywordTables } from './keywords';
import { TABLES_LAYOUT } from './keywordTables';
import { and as andF, atomsOf, necessaryLiterals, or as orF, type Formula } from './literals';
import { RULES, type NearClause, type PatternRule } from './rules';

export const PATTERN_RULES: readonly PatternRule[] = RULES.filter((r): r is PatternRule => r.kind === 'pattern');

/** What a rule's regexes need: the anchor pattern, and for each near entry one of its clauses. */
function ruleFormula(rule: PatternRule): Formula {
  return andF([
    necessaryLiterals(rule.pattern),
    ...(rule.near ?? []).map((entry) => orF((Array.isArray(entry) ? (entry as readonly NearClause[]) : [entry as NearClause]).map((c) => necessaryLiterals(c.pattern)))),
  ]);
}

const atomF = (key: string): Formula => ({ op: 'atom', key });

/**
 * The prefilter of a rule is a formula over keyword GROUPS (a group holds when one of its keywords occurred):
 * the rule's hand-written `requires` groups AND the condition derived from its own regexes (literals.ts: the
 * anchor pattern, AND for each near entry one of its clauses). Every part is a necessary condition for a
 * finding, so skipping a rule whose formula is false never changes the result.
 */
export function formulasOf(rules: readonly PatternRule[]): Formula[] {
  return rules.map((rule) => andF([...(rule.requires ?? []).map((g) => orF(g.map(atomF))), ruleFormula(rule)]));
}

/**
 * Identity of the rules' regexes and requires groups, and of the layout of the automaton's tables: a stored derivation
 * is used only under the same key (a file written by an older build is derived again, not misread).
 */
export function rulesKey(rules: readonly PatternRule[]): string {
  const h = createHash('sha256');
  h.update(`tables layout ${TABLES_LAYOUT}\n`);
  for (const r of rules) {
    h.update(r.id).update('\0').update(r.pattern.source).update('\0').update(r.pattern.flags).update('\0');
    for (const entry of r.near ?? []) for (const c of Array.isArray(entry) ? (entry as readonly NearClause[]) : [entry as NearClause]) h.update(c.pattern.source).update('\0');
    h.update(JSON.stringify(r.requires ?? [])).update('\n');
  }
  return h.digest('hex');
}

/** The keywords of the prefilter's automaton: every rule's triggers and every literal its formula names. */
export function prefilterStems(rules: readonly PatternRule[], formulas: readonly Formula[]): string[] {
  const stems = new Set<string>();
  for (const r of rules) for (const t of r.triggers) stems.add(t);
  for (const f of formulas) atomsOf(f, stems);
  return [...stems];
}

/** What scripts/gen-prefilter.ts stores: the formulas and the automaton's tables, under the rules' key. */
export interface StoredPrefilter {
  readonly key: string;
  readonly formulas: readonly Formula[];
  readonly keywords: readonly string[];
  readonly tables: Readonly<Record<keyof KeywordTables, string | number>>;
}

/** Tables are stored deflated: the transition table is mostly repeated rows (≈ 370 KB raw). */
const b64 = (a: ArrayBufferView): string => deflateRawSync(Buffer.from(a.buffer, a.byteOffset, a.byteLength), { level: 9 }).toString('base64');

export function storePrefilter(rules: readonly PatternRule[]): StoredPrefilter {
  const formulas = formulasOf(rules);
  const keywords = prefilterStems(rules, formulas);
  const t = buildKeywordTables(keywords);
  return {
    key: rulesKey(rules),
    formulas,
    keywords,
    tables: { alphabet: b64(t.alphabet), delta: b64(t.delta), stride: t.stride, outStart: b64(t.outStart), outIds: b64(t.outIds), kwLen: b64(t.kwLen), kwFlags: b64(t.kwFlags) },
  };
}

/** The automaton tables of a {@link StoredPrefilter}. */
export function loadTables(stored: StoredPrefilter): KeywordTables {
  const bytes = (k: keyof KeywordTables): Buffer => inflateRawSync(Buffer.from(stored.tables[k] as string, 'base64'));
  const view = <T>(k: keyof KeywordTables, C: { new (b: ArrayBuffer, o: number, n: number): T; BYTES_PER_ELEMENT: number }): T => {
    const b = bytes(k);
    const copy = new ArrayBuffer(b.byteLength);
    new Uint8Array(copy).set(b);
    return new C(copy, 0, b.byteLength / C.BYTES_PER_ELEMENT);
  };
  return {
    alphabet: view('alphabet', Uint8Array),
    delta: view('delta', Uint16Array),
    stride: stored.tables.stride as number,
    outStart: view('outStart', Int32Array),
    outIds: view('outIds', Int32Array),
    kwLen: view('kwLen', Int32Array),
    kwFlags: view('kwFlags', Uint8Array),
  };
}
