/**
 * A regression test on training data, not a measure of generalisation. The learned stage trained on both sets
 * read here (scripts/threat-train/train.config.json lists its inputs), so these figures are in-sample: they show
 * that a change to rules, gates or model has not unlearnt what it was taught. How well the scanner does on text
 * nobody tuned it on is the held-out set (test/fixtures/threat-blind/set5.jsonl, and the real text of test/fixtures/threat-realtext/), printed by `npm run bench`
 * (bench/threat.ts, bench/threatPeers.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { evaluate, parseLabelled, type EvalScore } from '../../src/server/core/threat/evaluate';

const root = resolve(__dirname, '../..');
// A copy of ../shared/threat-eval/dev.jsonl kept in the repository (training data of the learned stage), so this never skips.
const DEV = resolve(root, 'scripts/threat-train/data/dev.jsonl');
const EXTRA = resolve(root, 'test/fixtures/threat-extra.jsonl'); // training data too

function report(name: string, s: EvalScore): void {
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  console.log(
    `[threat-training-regression] ${name}: headline recall ${pct(s.recall)} (${s.headline.caught}/${s.headline.n}), ` +
      `FPR ${pct(s.fpr)} (${s.benign.flagged}/${s.benign.n}), stretch ${s.stretch.caught}/${s.stretch.n}, policy ${s.policy.caught}/${s.policy.n}`,
  );
  for (const b of s.buckets) console.log(`[threat-training-regression]   ${b.bucket}: ${b.flagged}/${b.n}`);
  for (const m of s.missed) console.log(`[threat-training-regression]   missed ${m.id} [${m.bucket}]`);
  for (const f of s.falsePositives) console.log(`[threat-training-regression]   false positive ${f.line.id} [${f.line.bucket}] <- ${f.rules.join(', ')}`);
}

function check(name: string, s: EvalScore): void {
  report(name, s);
  assert.ok(s.headline.n > 0 && s.benign.n > 0, `${name}: needs threat and benign lines`);
  assert.ok(s.recall >= 0.9, `${name}: headline recall ${s.recall.toFixed(3)} < 0.90`);
  assert.ok(s.fpr <= 0.01, `${name}: FPR ${s.fpr.toFixed(3)} > 0.01`);
}

test('training data, in-sample regression: the dev set keeps headline recall >= 0.90 and FPR <= 0.01', () => {
  check('dev.jsonl', evaluate(parseLabelled(readFileSync(DEV, 'utf8'))));
});

test('training data, in-sample regression: our extra cases keep headline recall >= 0.90 and FPR <= 0.01', () => {
  check('threat-extra.jsonl', evaluate(parseLabelled(readFileSync(EXTRA, 'utf8'))));
});

test('training data, in-sample regression: the dev set and extra cases together', () => {
  check('dev + extra', evaluate([...parseLabelled(readFileSync(DEV, 'utf8')), ...parseLabelled(readFileSync(EXTRA, 'utf8'))]));
});
