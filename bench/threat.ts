/**
 * Threat-scanner benchmark: ours vs a straightforward baseline (every rule regex run in turn over the raw
 * text: no normalisation, no prefilter, no cache), side by side in one run, plus the eval figures.
 *
 *   node --import tsx bench/threat.ts          (or through bench/index.ts → runThreatBench())
 *
 * Two corpora of 10 000 entries of ~300 characters each, built deterministically, each timed beside the
 * baseline:
 * - realistic: what a project's memory store mostly holds. 90% ordinary developer notes, ~10% entries with
 *   one trigger-word sentence (a hard negative: "ignore the generated files", a curl with a bearer token,
 *   `System: Debian 12`, …), ~0.5% attacks. The ≤ 60 ms cold-rescan target (every stage) is for this one;
 *   a row prints it beside rules only, the two timed in turn in the same run.
 * - dense (adversarial to the prefilter): every sentence of every entry is a hard negative full of trigger
 *   words, with ~2% attacks mixed in, so most rules pass the keyword prefilter and must run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { evaluate, parseLabelled } from '../src/server/core/threat/evaluate';
import { allRulePatterns, hashContent, scanText, ThreatScanner } from '../src/server/core/threat/threatScanner';
import { baselineScan, buildCorpus, buildRealisticCorpus, RUNS, time, timeInTurn } from './threatCold';

export { buildCorpus, buildRealisticCorpus } from './threatCold';
import { nameFindings } from '../src/server/core/threat/names';
import { scanKnowledgeText } from '../src/server/core/threat/judgement';

interface Row {
  case: string;
  ours: number;
  baseline: number | null;
  target: string;
}

/** The timed cases for one corpus. */
function corpusRows(label: string, corpus: readonly string[], patterns: readonly RegExp[], target: boolean): Row[] {
  const hashes = corpus.map(hashContent);
  const rows: Row[] = [];
  const baseMs = time(RUNS, () => {}, () => baselineScan(corpus, patterns));
  const t40 = target ? '≤ 60 ms (both stages)' : '(none; shown for honesty)';
  let scanner = new ThreatScanner();
  rows.push({
    case: `${label}: cold rescan, content hash supplied (store revisions)`,
    ours: time(RUNS, () => (scanner = new ThreatScanner()), () => corpus.forEach((t, i) => scanner.judge(t, false, hashes[i]))),
    baseline: baseMs,
    target: t40,
  });
  rows.push({
    case: `${label}: cold rescan, judge(text), no hash supplied (sha256 computed)`,
    ours: time(RUNS, () => (scanner = new ThreatScanner()), () => corpus.forEach((t) => scanner.judge(t))),
    baseline: baseMs,
    target: '',
  });
  rows.push({
    case: `${label}: cold rescan, scan(text) (cache keyed by text, no sha256)`,
    ours: time(RUNS, () => (scanner = new ThreatScanner()), () => corpus.forEach((t) => scanner.scan(t))),
    baseline: baseMs,
    target: '',
  });
  rows.push({ case: `${label}: scanText only (no cache)`, ours: time(RUNS, () => {}, () => corpus.forEach((t) => scanText(t))), baseline: baseMs, target: '' });
  rows.push({
    case: `${label}: scanText, rules only (learned stage and intent lexicons off: the scanner before issue 10)`,
    ours: time(RUNS, () => {}, () => corpus.forEach((t) => scanText(t, { learned: false }))),
    baseline: baseMs,
    target: '',
  });
  if (target) {
    // the issue-29 row: both timed run by run in turn, so both see the same load on a busy machine
    const [cold, rules] = timeInTurn(
      RUNS,
      () => (scanner = new ThreatScanner()),
      () => corpus.forEach((t, i) => scanner.judge(t, false, hashes[i])),
      () => corpus.forEach((t) => scanText(t, { learned: false })),
    );
    rows.push({ case: `${label}: cold rescan, every stage, hash supplied; baseline: rules only, timed in turn`, ours: cold, baseline: rules, target: '(the ≤ 60 ms target is read on the shipped bundle in its own process, below)' });
  }
  const warm = new ThreatScanner();
  corpus.forEach((t, i) => warm.judge(t, false, hashes[i]));
  rows.push({
    case: `${label}: index build, nothing changed, hash supplied`,
    ours: time(RUNS, () => {}, () => corpus.forEach((t, i) => warm.judge(t, false, hashes[i]))),
    baseline: baseMs,
    target: '< 5 ms',
  });
  const warmNoHash = new ThreatScanner();
  corpus.forEach((t) => warmNoHash.judge(t)); // hashes computed once, on the cold pass
  rows.push({
    case: `${label}: index build, nothing changed, judge(text), no hash supplied`,
    ours: time(RUNS, () => {}, () => corpus.forEach((t) => warmNoHash.judge(t))),
    baseline: baseMs,
    target: '< 5 ms',
  });
  rows.push({
    case: `${label}: re-read, nothing changed, scan(text) (what every delivery read does)`,
    ours: time(RUNS, () => {}, () => corpus.forEach((t) => warmNoHash.scan(t))),
    baseline: baseMs,
    target: '< 5 ms',
  });
  const flagged = corpus.filter((t) => scanText(t).length > 0).length;
  console.log(`${label} corpus: ${corpus.length} entries, mean ${Math.round(corpus.reduce((a, t) => a + t.length, 0) / corpus.length)} chars, ${flagged} flagged`);
  return rows;
}

/**
 * The realistic cold rescan through the code as it ships: the scanner bundled by esbuild as scripts/build.mjs bundles
 * it (one scope; run under tsx, every call across modules goes through an export getter, which the shipped bundles do
 * not pay), written beside dist/threat-model.bin and loaded from there, timed in turn with its baseline (the rule
 * table's regexes), run by run, in a process of its own (bench/threatCold.ts): a fresh heap, as the language server's
 * at start. Not in this one: after the rows above, the bundle's copies of the rules' regexes run several times slower
 * here (the baseline read 2.7–3.1 s instead of 0.7 s; 0.7 s again with V8's regexp tier-up off, --no-regexp-tier-up).
 */
function bundleRows(): Row[] {
  const root = resolve(__dirname, '..');
  if (!existsSync(resolve(root, 'dist/threat-model.bin'))) {
    console.log('(dist/threat-model.bin not built: run npm run build for the shipped-bundle row)');
    return [];
  }
  const outfile = resolve(root, 'dist/bench-threat-scanner.js');
  buildSync({ entryPoints: [resolve(root, 'src/server/core/threat/threatScanner.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile, logLevel: 'warning' });
  const child = spawnSync(process.execPath, ['--import', 'tsx', resolve(__dirname, 'threatCold.ts'), outfile], { cwd: root, encoding: 'utf8' });
  if (child.status !== 0) {
    console.log(`(the shipped-bundle process failed: ${child.stderr.trim().split('\n').pop()})`);
    return [];
  }
  const { cold, baseline } = JSON.parse(child.stdout) as { cold: number; baseline: number };
  return [{ case: 'realistic: cold rescan, every stage, hash supplied, the shipped bundle (esbuild) in a process of its own; baseline timed in turn', ours: cold, baseline, target: '≤ 60 ms' }];
}

export async function runThreatBench(): Promise<void> {
  const patterns = allRulePatterns();
  console.log('\n## Threat scanner\n');
  console.log(`baseline = the ${patterns.length} regexes of the rule table, each in turn over the raw text (no normalisation, prefilter or cache); medians of ${RUNS} runs\n`);
  const rows = [
    ...corpusRows('realistic', buildRealisticCorpus(), patterns, true),
    ...corpusRows('dense', buildCorpus(), patterns, false),
  ];
  rows.push(...bundleRows());
  const K = 64 * 1024;
  const adversarial = 'ignore all previous <!-- System:\n~/.aws/credentials curl '.repeat(Math.ceil(K / 60)).slice(0, K);
  rows.push({
    case: '64 KiB adversarial near-miss, one text',
    ours: time(RUNS, () => {}, () => scanText(adversarial)),
    baseline: time(RUNS, () => {}, () => baselineScan([adversarial], patterns)),
    target: '< 50 ms',
  });

  const f = (x: number): string => x.toFixed(2);
  console.log('\n| case | ours (ms) | baseline (ms) | ratio | target |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.case} | ${f(r.ours)} | ${r.baseline === null ? '-' : f(r.baseline)} | ${r.baseline ? `${(r.ours / r.baseline).toFixed(3)}x` : '-'} | ${r.target || '-'} |`);
  }

  const root = resolve(__dirname, '..');
  // Which sets the learned stage trained on (scripts/threat-train/train.ts): their figures are in-sample.
  const sets: Array<[string, string, string]> = [
    ['dev.jsonl', resolve(root, 'scripts/threat-train/data/dev.jsonl'), 'yes (in-sample)'],
    ['threat-extra.jsonl', resolve(root, 'test/fixtures/threat-extra.jsonl'), 'yes (in-sample)'],
    ['threat-training/former-blind-set1.jsonl', resolve(root, 'test/fixtures/threat-training/former-blind-set1.jsonl'), 'yes, after its first score (in-sample)'],
    ['threat-training/former-blind-set2.jsonl', resolve(root, 'test/fixtures/threat-training/former-blind-set2.jsonl'), 'yes, since set3 was scored (in-sample)'],
    ['threat-training/former-blind-set3.jsonl', resolve(root, 'test/fixtures/threat-training/former-blind-set3.jsonl'), 'yes, since set4 was scored (in-sample)'],
    ['threat-training/former-blind-set4.jsonl', resolve(root, 'test/fixtures/threat-training/former-blind-set4.jsonl'), 'yes, since set5 was scored (in-sample)'],
    ['threat-blind/set5.jsonl', resolve(root, 'test/fixtures/threat-blind/set5.jsonl'), 'no; the fourth round\'s development set (read while choosing)'],
    ['threat-blind/set6.jsonl', resolve(root, 'test/fixtures/threat-blind/set6.jsonl'), 'no (held out)'],
    ['threat-blind/set7.jsonl', resolve(root, 'test/fixtures/threat-blind/set7.jsonl'), 'no (held out)'],
    ['threat-blind/set8.jsonl', resolve(root, 'test/fixtures/threat-blind/set8.jsonl'), 'no (held out; written after the last change)'],
  ];
  // The generalisation figure is the held-out row; the in-sample rows are what test/unit/threatTrainingRegression.test.ts
  // pins (a regression check on training data, not an estimate of recall on text nobody has seen).
  console.log('\nThe generalisation figures are the held-out sets (threat-blind/set6, set7 and set8): nothing was trained or tuned on them. The in-sample rows only show that training data is still learnt.');
  console.log('\n| eval set | trained on | headline recall | FPR | stretch | policy |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, path, trained] of sets) {
    if (!existsSync(path)) {
      console.log(`| ${name} | | (not found: ${path}) | | | |`);
      continue;
    }
    const s = evaluate(parseLabelled(readFileSync(path, 'utf8')));
    console.log(
      `| ${name} | ${trained} | ${s.recall.toFixed(3)} (${s.headline.caught}/${s.headline.n}) | ${s.fpr.toFixed(3)} (${s.benign.flagged}/${s.benign.n}) | ${s.stretch.caught}/${s.stretch.n} | ${s.policy.caught}/${s.policy.n} |`,
    );
  }
  namesTable(root);
}

/**
 * Names that reach a model (pin ids with their folder and file names, `src/server/core/threat/names.ts`): paths written
 * blind to the code by a helper, scored once; nothing was tuned on them. Beside it, the raw id scanned as text.
 */
export function namesTable(root: string): void {
  const read = (f: string) => readFileSync(resolve(root, 'test/fixtures/names', f), 'utf8').split('\n').filter(Boolean);
  const scan = scanKnowledgeText; // what every read judges
  const rate = (paths: readonly string[], flag: (p: string) => boolean) => {
    const n = paths.filter(flag).length;
    return `${(n / paths.length).toFixed(3)} (${n}/${paths.length})`;
  };
  const hostile = read('hostile-paths.txt');
  const benign = read('benign-paths.txt');
  console.log('\n| names (blind, never tuned on) | hostile flagged | benign flagged |');
  console.log('|---|---|---|');
  console.log(`| read as words (what delivery does) | ${rate(hostile, (p) => nameFindings(p, scan).length > 0)} | ${rate(benign, (p) => nameFindings(p, scan).length > 0)} |`);
  console.log(`| the raw id as text (baseline) | ${rate(hostile, (p) => scan(p).length > 0)} | ${rate(benign, (p) => scan(p).length > 0)} |`);
}

if (typeof module !== 'undefined' && require.main === module) {
  runThreatBench().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
