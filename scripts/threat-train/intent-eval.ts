/**
 * Recall / false-positive rate of the intent stage alone (findIntents), on the dev set and the training corpus.
 *
 *   npx tsx scripts/threat-train/intent-eval.ts [--dev path] [--corpus dir] [--show-fp] [--show-fn]
 *
 * Dev lines: {"text","label":"threat"|"benign","bucket"}. Corpus lines: {"text","label","intent","lang"}.
 * "recall" counts a threat line caught by any intent; "same-intent" by the intent it is labelled with.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findIntents } from '../../src/server/core/threat/intent/intent';
import { normalizeForMatching } from '../../src/server/core/threat/normalize';

interface Line {
  text: string;
  label: string;
  intent?: string;
  lang?: string;
  bucket?: string;
}

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : dflt;
};
const root = resolve(import.meta.dirname, '../..');
const devPath = opt('--dev', join(root, 'scripts/threat-train/data/dev.jsonl'));
const corpusDir = opt('--corpus', join(root, 'scripts/threat-train/corpus'));
const showFp = args.includes('--show-fp');
const showFn = args.includes('--show-fn');

function read(path: string): Line[] {
  const out: Line[] = [];
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    if (!raw.trim()) continue;
    try {
      const l = JSON.parse(raw) as Line;
      if (typeof l.text === 'string' && typeof l.label === 'string') out.push(l);
    } catch {
      // a line being written right now
    }
  }
  return out;
}

const intentName = (id: string): string => id.replace(/^intent\./, '').replace('-', '_');

interface Tally {
  n: number;
  hit: number;
  same: number;
}
const pct = (a: number, b: number): string => (b === 0 ? '   -  ' : `${((100 * a) / b).toFixed(1).padStart(5)}%`);

function report(title: string, lines: Line[], key: (l: Line) => string): void {
  const threat = new Map<string, Tally>();
  const benign = new Map<string, Tally>();
  const fps: string[] = [];
  const fns: string[] = [];
  for (const l of lines) {
    const hits = findIntents(normalizeForMatching(l.text).text);
    const ids = new Set(hits.map((h) => intentName(h.id)));
    const k = key(l);
    const isThreat = l.label !== 'benign';
    const m = isThreat ? threat : benign;
    const t = m.get(k) ?? { n: 0, hit: 0, same: 0 };
    t.n++;
    if (ids.size) t.hit++;
    if (l.intent && ids.has(l.intent)) t.same++;
    m.set(k, t);
    if (!isThreat && ids.size) fps.push(`  FP [${[...ids].join(',')}] ${k}: ${l.text.slice(0, 200).replace(/\n/g, ' ')}`);
    if (isThreat && !ids.size) fns.push(`  FN ${k}: ${l.text.slice(0, 200).replace(/\n/g, ' ')}`);
  }
  const sum = (m: Map<string, Tally>): Tally => [...m.values()].reduce((a, b) => ({ n: a.n + b.n, hit: a.hit + b.hit, same: a.same + b.same }), { n: 0, hit: 0, same: 0 });
  console.log(`\n== ${title}`);
  console.log('  threats (recall: any intent / same intent)');
  for (const [k, t] of [...threat].sort()) console.log(`    ${k.padEnd(34)} n=${String(t.n).padStart(4)}  recall ${pct(t.hit, t.n)}  same ${pct(t.same, t.n)}`);
  const ta = sum(threat);
  console.log(`    ${'ALL'.padEnd(34)} n=${String(ta.n).padStart(4)}  recall ${pct(ta.hit, ta.n)}  same ${pct(ta.same, ta.n)}`);
  console.log('  benign (false-positive rate)');
  for (const [k, t] of [...benign].sort()) console.log(`    ${k.padEnd(34)} n=${String(t.n).padStart(4)}  FPR ${pct(t.hit, t.n)}`);
  const ba = sum(benign);
  console.log(`    ${'ALL'.padEnd(34)} n=${String(ba.n).padStart(4)}  FPR ${pct(ba.hit, ba.n)}`);
  if (showFp) console.log(fps.join('\n'));
  if (showFn) console.log(fns.join('\n'));
}

if (existsSync(devPath)) report(`dev set ${devPath}`, read(devPath), (l) => l.bucket ?? l.label);
if (existsSync(corpusDir)) {
  const all: Line[] = [];
  for (const f of readdirSync(corpusDir).filter((f) => f.endsWith('.jsonl')).sort()) all.push(...read(join(corpusDir, f)));
  report(`corpus ${corpusDir} by intent`, all, (l) => `${l.intent ?? '?'}`);
  report(`corpus ${corpusDir} by language`, all, (l) => `${l.lang ?? '?'}`);
  report(`corpus ${corpusDir} by intent/language`, all, (l) => `${l.intent ?? '?'}/${l.lang ?? '?'}`);
}
