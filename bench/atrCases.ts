/**
 * ATR's own published test cases, scored with our scanner (or any flag function), per ATR category:
 *
 *   node --import tsx bench/atrCases.ts        (or through bench/index.ts → runAtrCasesBench(oursFlag))
 *
 * Every agent-threat-rules rule (node_modules/agent-threat-rules/rules/<category>/*.yaml) carries
 * `test_cases.true_positives` (label threat) and `test_cases.true_negatives` (label benign). They are
 * written per rule: a rule's true negative is "this rule must not fire", not always "this is harmless",
 * so a text that is some rule's true positive is dropped from the negatives. Identical texts are kept once
 * per label (the first rule by id wins the category). `evasion_tests` are left out (their labels describe
 * ATR's own blind spots, not the text), and so are the method=trace and method=behavioral rules (their
 * inputs are span graphs and metrics, not text).
 *
 * `loadAtrCases()` is synchronous so a training script can reuse it: it reads the YAML with the js-yaml
 * that agent-threat-rules itself depends on (the package is ESM-only; its loader cannot be required), and
 * keeps the loader's rule check (id, title, detection present).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { oursFlag, type Flagger } from './threatPeers';

export interface AtrCase {
  text: string;
  label: 'threat' | 'benign';
  /** ATR `tags.category`. */
  category: string;
  /** Whether the category is a threat to stored project knowledge (ATR_CATEGORY_SCOPE). */
  inScope: boolean;
  /** The rule whose test case this is (the first by id when several carry the same text). */
  ruleId: string;
}

/** In/out of scope for stored project knowledge, per ATR category, with the reason. */
export const ATR_CATEGORY_SCOPE: Readonly<Record<string, { inScope: boolean; reason: string }>> = {
  'prompt-injection': { inScope: true, reason: 'override, role hijack and forged delimiters are what a poisoned note carries into the prompt' },
  'context-exfiltration': { inScope: true, reason: 'a note that joins a secret or the context to an outside sink is the exfiltration we flag' },
  'agent-manipulation': { inScope: true, reason: 'steering, concealment and safety-off instructions ride in stored text as easily as in a chat turn' },
  'tool-poisoning': { inScope: true, reason: 'instructions that coerce tool calls or poison tool descriptions reach the model through knowledge too' },
  'privilege-escalation': { inScope: true, reason: 'escalation and persistence instructions (sudo, cron, startup files, scope creep) are stored-text attacks' },
  'data-poisoning': { inScope: true, reason: 'RAG and memory poisoning is the stored-knowledge attack by definition (a few SQL/KQL-injection rules ride along)' },
  'skill-compromise': { inScope: true, reason: 'holds ATR persistence, self-modification, hidden-payload and instruction-injection rules; its typosquat/fork rules are not ours' },
  'excessive-autonomy': { inScope: false, reason: 'runaway loops, resource exhaustion and unconfirmed tool calls are agent runtime behaviour, not text in a note' },
  'model-abuse': { inScope: false, reason: 'harmful-content requests, DoS and model extraction target the model\'s output, not what the project stores' },
};

/** The YAML rules shipped in the agent-threat-rules package. */
function atrRulesDir(): string {
  return resolve(__dirname, '../node_modules/agent-threat-rules/rules');
}

interface RuleDoc {
  id?: string;
  title?: string;
  detection?: { method?: string };
  tags?: { category?: string };
  test_cases?: { true_positives?: Record<string, unknown>[]; true_negatives?: Record<string, unknown>[] };
}

function loadRuleDocs(): RuleDoc[] {
  const dir = atrRulesDir();
  const yaml = createRequire(join(dir, '..', 'package.json'))('js-yaml') as { load(text: string): unknown };
  const out: RuleDoc[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.ya?ml$/.test(e.name)) {
        const doc = yaml.load(readFileSync(p, 'utf8')) as RuleDoc | null;
        if (doc?.id && doc.title && doc.detection) out.push(doc);
      }
    }
  };
  walk(dir);
  return out.sort((a, b) => a.id!.localeCompare(b.id!));
}

/** The text of one test case: every text-bearing field, objects as JSON, joined by newlines. */
const TEXT_FIELDS = ['input', 'user_input', 'content', 'tool_description', 'tool_name', 'tool_args', 'tool_call', 'tool_response', 'agent_output'];
function caseText(tc: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const f of TEXT_FIELDS) {
    const v = tc[f];
    if (v === undefined || v === null) continue;
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    if (s.trim() && !parts.includes(s)) parts.push(s);
  }
  return parts.join('\n');
}

/** ATR's labelled test cases (true positives → threat, true negatives → benign), deduplicated as described above. */
export function loadAtrCases(): AtrCase[] {
  const threats = new Map<string, AtrCase>();
  const benign = new Map<string, AtrCase>();
  for (const rule of loadRuleDocs()) {
    const method = rule.detection?.method;
    if (method === 'trace' || method === 'behavioral') continue;
    const category = rule.tags?.category ?? 'unknown';
    const inScope = ATR_CATEGORY_SCOPE[category]?.inScope ?? false;
    const add = (list: Record<string, unknown>[] | undefined, label: AtrCase['label'], into: Map<string, AtrCase>): void => {
      for (const tc of list ?? []) {
        const text = caseText(tc);
        if (text && !into.has(text)) into.set(text, { text, label, category, inScope, ruleId: rule.id! });
      }
    };
    add(rule.test_cases?.true_positives, 'threat', threats);
    add(rule.test_cases?.true_negatives, 'benign', benign);
  }
  return [...threats.values(), ...[...benign.values()].filter((c) => !threats.has(c.text))];
}

/**
 * The learned stage trains on ATR's cases of four rules in five; the fifth (chosen by a hash of the rule id, so
 * whole rules are held out, not near-duplicate cases of one rule) is never trained on and gives the
 * out-of-sample figure.
 */
export function atrHeldOut(ruleId: string): boolean {
  return createHash('sha256').update(ruleId).digest()[0]! % 5 === 0;
}

const share = (k: number, n: number): string => (n ? `${(k / n).toFixed(3)} (${k}/${n})` : '-');

/** Share of ATR's true positives `flag` flags, per ATR category, and the share of its true negatives it flags. */
export async function runAtrCasesBench(flag: Flagger = oursFlag): Promise<void> {
  const all = loadAtrCases();
  await atrTable(all.filter((c) => atrHeldOut(c.ruleId)), flag, 'rules held out of training (out-of-sample: the figure to read)');
  await atrTable(all.filter((c) => !atrHeldOut(c.ruleId)), flag, 'rules the learned stage trained on (in-sample, for reference)');
}

async function atrTable(cases: readonly AtrCase[], flag: Flagger, title: string): Promise<void> {
  const by = new Map<string, { inScope: boolean; tp: number; caught: number; tn: number; fp: number }>();
  const total = { in: { tp: 0, caught: 0, tn: 0, fp: 0 }, out: { tp: 0, caught: 0, tn: 0, fp: 0 } };
  for (const c of cases) {
    const row = by.get(c.category) ?? { inScope: c.inScope, tp: 0, caught: 0, tn: 0, fp: 0 };
    const t = c.inScope ? total.in : total.out;
    const hit = flag(c.text) ? 1 : 0;
    if (c.label === 'threat') {
      row.tp++;
      row.caught += hit;
      t.tp++;
      t.caught += hit;
    } else {
      row.tn++;
      row.fp += hit;
      t.tn++;
      t.fp += hit;
    }
    by.set(c.category, row);
  }
  console.log(`\n## ATR published test cases, scored with ours: ${title}\n`);
  console.log(
    `${cases.length} distinct texts from agent-threat-rules' rule test_cases (true positives = threat; a true negative that is another rule's true positive is dropped). Scope: stored project knowledge.\n`,
  );
  console.log('| ATR category | in scope | threats flagged | benign flagged (FP) |');
  console.log('|---|---|---|---|');
  const rows = [...by].sort((a, b) => Number(b[1].inScope) - Number(a[1].inScope) || b[1].tp - a[1].tp);
  for (const [cat, r] of rows) console.log(`| ${cat} | ${r.inScope ? 'yes' : 'no'} | ${share(r.caught, r.tp)} | ${share(r.fp, r.tn)} |`);
  console.log(`| **all in scope** | yes | ${share(total.in.caught, total.in.tp)} | ${share(total.in.fp, total.in.tn)} |`);
  console.log(`| **all out of scope** | no | ${share(total.out.caught, total.out.tp)} | ${share(total.out.fp, total.out.tn)} |`);
  console.log(`| **all** | | ${share(total.in.caught + total.out.caught, total.in.tp + total.out.tp)} | ${share(total.in.fp + total.out.fp, total.in.tn + total.out.tn)} |`);
  console.log('\nScope decisions:');
  for (const [cat] of rows) {
    const s = ATR_CATEGORY_SCOPE[cat];
    console.log(`- ${cat}: ${s ? `${s.inScope ? 'in' : 'out'} — ${s.reason}` : 'out — not classified in ATR_CATEGORY_SCOPE (new ATR category?)'}`);
  }
}

if (typeof module !== 'undefined' && require.main === module) {
  runAtrCasesBench().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
