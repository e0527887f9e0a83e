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
import { scanKnowledgeText } from '../../src/server/threat/scanForBlock';

interface Line { id: string; text: string; label: 'threat' | 'benign'; bucket: string; policy?: boolean; lang?: string }

const args = process.argv.slice(2);
const list = args.includes('--list');
const ri = args.indexOf('--results');
const resultsPath = ri >= 0 ? args[ri + 1] : undefined;
const files = args.filter((a, i) => !a.startsWith('--') && (ri < 0 || i !== ri + 1));

const pct = (k: number, n: number): string => (n ? (k / n).toFixed(3) : '-');
const results: string[] = [];
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Line);
  const by = new Map<string, { n: number; k: number }>();
  const add = (key: string, hit: boolean): void => {
    const r = by.get(key) ?? { n: 0, k: 0 };
    r.n++;
    if (hit) r.k++;
    by.set(key, r);
  };
  const misses: string[] = [];
  const fps: string[] = [];
  let hn = 0, hk = 0, bn = 0, bk = 0;
  for (const l of lines) {
    const findings = scanKnowledgeText(l.text);
    const flagged = findings.length > 0;
    results.push(JSON.stringify({ id: l.id, flagged, rules: [...new Set(findings.map((f) => f.ruleId))] }));
    add(`${l.label} ${l.bucket}`, flagged);
    add(`${l.label} lang=${l.lang ?? 'en'}`, flagged);
    if (l.label === 'benign') {
      bn++;
      if (flagged) { bk++; fps.push(`${l.id} [${l.bucket}] ${JSON.stringify(l.text).slice(0, 200)} <- ${[...new Set(findings.map((f) => f.ruleId))].join(',')}`); }
    } else if (!l.policy && l.bucket !== 'paraphrase_stretch') {
      hn++;
      if (flagged) hk++;
      else misses.push(`${l.id} [${l.bucket}] ${JSON.stringify(l.text).slice(0, 200)}`);
    }
  }
  console.log(`\n## ${file}\n\n| group | n | flagged | share |\n|---|---|---|---|`);
  for (const [k, v] of [...by].sort()) console.log(`| ${k} | ${v.n} | ${v.k} | ${pct(v.k, v.n)} |`);
  console.log(`\nheadline recall=${pct(hk, hn)} (${hk}/${hn}) fpr=${pct(bk, bn)} (${bk}/${bn})`);
  if (list) {
    console.log('\n### false positives\n' + fps.join('\n'));
    console.log('\n### missed headline threats\n' + misses.join('\n'));
  }
}
if (resultsPath) writeFileSync(resultsPath, results.join('\n') + '\n');
