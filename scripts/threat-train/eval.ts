/**
 * Scores the scanner in this tree (both stages, from source) on labelled JSONL sets, by bucket and language.
 *
 *   node --import tsx scripts/threat-train/eval.ts FILE... [--list] [--results OUT.jsonl]
 *
 * Lines are {"id","text","label":"threat"|"benign","bucket","policy","lang"?}. Headline recall counts every
 * threat line except bucket `paraphrase_stretch` and policy lines, as ../shared/threat-eval/score.mjs does;
 * --results writes that script's input format so its own figures can be produced too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { evaluate, parseLabelled, type LabelledLine } from '../../src/server/core/threat/evaluate';
import { judge, verdictRules } from '../../src/server/core/threat/judgement';

type Line = LabelledLine & { readonly lang?: string };

const args = process.argv.slice(2);
const list = args.includes('--list');
const ri = args.indexOf('--results');
const resultsPath = ri >= 0 ? args[ri + 1] : undefined;
const files = args.filter((a, i) => !a.startsWith('--') && (ri < 0 || i !== ri + 1));

const pct = (k: number, n: number): string => (n ? (k / n).toFixed(3) : '-');
const results: string[] = [];
for (const file of files) {
  const lines = parseLabelled(readFileSync(file, 'utf8')) as Line[];
  // what every read judges (the product's judgement: both stages, detectors, our closer policy), once per line
  const rulesOf = new Map(lines.map((l) => [l.id, verdictRules(judge({ kind: 'text', text: l.text }))]));
  const byText = new Map(lines.map((l) => [l.text, rulesOf.get(l.id)!]));
  const s = evaluate(lines, (text) => byText.get(text) ?? []);
  for (const l of lines) results.push(JSON.stringify({ id: l.id, flagged: rulesOf.get(l.id)!.length > 0, rules: rulesOf.get(l.id) }));
  const byLang = new Map<string, { n: number; k: number }>();
  for (const l of lines) {
    const key = `${l.label} lang=${l.lang ?? 'en'}`;
    const r = byLang.get(key) ?? { n: 0, k: 0 };
    r.n++;
    if (rulesOf.get(l.id)!.length > 0) r.k++;
    byLang.set(key, r);
  }
  console.log(`\n## ${file}\n\n| group | n | flagged | share |\n|---|---|---|---|`);
  for (const b of s.buckets) console.log(`| ${b.bucket} | ${b.n} | ${b.flagged} | ${pct(b.flagged, b.n)} |`);
  for (const [k, v] of [...byLang].sort()) console.log(`| ${k} | ${v.n} | ${v.k} | ${pct(v.k, v.n)} |`);
  console.log(`\nheadline recall=${pct(s.headline.caught, s.headline.n)} (${s.headline.caught}/${s.headline.n}) fpr=${pct(s.benign.flagged, s.benign.n)} (${s.benign.flagged}/${s.benign.n})`);
  if (list) {
    console.log('\n### false positives\n' + s.falsePositives.map((f) => `${f.line.id} [${f.line.bucket}] ${JSON.stringify(f.line.text).slice(0, 200)} <- ${f.rules.join(',')}`).join('\n'));
    console.log('\n### missed headline threats\n' + s.missed.map((m) => `${m.id} [${m.bucket}] ${JSON.stringify(m.text).slice(0, 200)}`).join('\n'));
  }
}
if (resultsPath) writeFileSync(resultsPath, results.join('\n') + '\n');
