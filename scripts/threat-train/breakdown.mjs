#!/usr/bin/env node
// breakdown.mjs: recall and false-positive rate of a scanner's results, grouped by any field of the eval lines.
//
//   node scripts/threat-train/breakdown.mjs <eval.jsonl> <results.jsonl> [--by shape,register,lang] [--min N]
//
// eval lines:    {"id","text","label":"threat"|"benign", …any grouping field (shape, register, lang, kind, source)}
//                (a line without "label" is benign: real-text corpora hold only benign passages)
// results lines: {"id","flagged":bool,"rules":[…]}   (node dist/cli.js scan --jsonl <eval.jsonl>)
//
// Prints one markdown table per field: per value, threat lines and recall, benign lines and FPR, each with its
// Wilson 95% interval; groups under --min lines (default 1) are folded into "(other)". Prints only aggregates:
// reading a blind set's misses line by line would make it development data.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const [evalPath, resultsPath] = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!evalPath || !resultsPath) {
  console.error('usage: node breakdown.mjs <eval.jsonl> <results.jsonl> [--by field,field] [--min N]');
  process.exit(2);
}
const fields = opt('--by', 'shape,register,lang').split(',').filter(Boolean);
const min = Number(opt('--min', '1'));
const readJsonl = (p) => readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const rows = readJsonl(evalPath);
const flagged = new Map(readJsonl(resultsPath).map((r) => [r.id, r.flagged === true]));
const missing = rows.filter((r) => !flagged.has(r.id)).length;
if (missing) console.error(`warning: ${missing} lines have no result (counted as not flagged)`);

const wilson = (k, n, z = 1.96) => {
  if (n === 0) return [NaN, NaN];
  const p = k / n;
  const z2 = z * z;
  const d = 1 + z2 / n;
  const c = (p + z2 / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
};
const f3 = (x) => (Number.isNaN(x) ? '-' : x.toFixed(3));
const cell = (k, n) => (n ? `${f3(k / n)} (${f3(wilson(k, n)[0])}–${f3(wilson(k, n)[1])})` : '-');
const isThreat = (r) => r.label === 'threat';

for (const field of fields) {
  const groups = new Map();
  for (const r of rows) {
    const key = r[field] === undefined ? '(none)' : String(r[field]);
    const g = groups.get(key) ?? { tn: 0, tk: 0, bn: 0, bk: 0 };
    const hit = flagged.get(r.id) === true;
    if (isThreat(r)) { g.tn++; if (hit) g.tk++; } else { g.bn++; if (hit) g.bk++; }
    groups.set(key, g);
  }
  const folded = new Map();
  for (const [k, g] of groups) {
    const key = g.tn + g.bn >= min ? k : '(other)';
    const f = folded.get(key) ?? { tn: 0, tk: 0, bn: 0, bk: 0 };
    folded.set(key, { tn: f.tn + g.tn, tk: f.tk + g.tk, bn: f.bn + g.bn, bk: f.bk + g.bk });
  }
  const all = [...folded.values()].reduce((a, g) => ({ tn: a.tn + g.tn, tk: a.tk + g.tk, bn: a.bn + g.bn, bk: a.bk + g.bk }), { tn: 0, tk: 0, bn: 0, bk: 0 });
  console.log(`\n### by ${field}\n\n| ${field} | threats | recall (95% CI) | benign | FPR (95% CI) |\n|---|---|---|---|---|`);
  for (const [k, g] of [...folded].sort((a, b) => b[1].tn + b[1].bn - (a[1].tn + a[1].bn))) console.log(`| ${k} | ${g.tn} | ${cell(g.tk, g.tn)} | ${g.bn} | ${cell(g.bk, g.bn)} |`);
  console.log(`| **all** | ${all.tn} | ${cell(all.tk, all.tn)} | ${all.bn} | ${cell(all.bk, all.bn)} |`);
}
