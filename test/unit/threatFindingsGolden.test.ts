// The scanner's verdicts are pinned: a fixed sample of the threat corpora and fixtures (and variants through
// normalisation and the hidden/encoded detectors) must give byte-identical findings (rule id, span, inner rule
// ids) under the three scan modes. Speed work on the scanner must not move this; only a deliberate change of
// rules or weights regenerates the file (scripts/threat-train/findings-dump.ts --golden).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GOLDEN_PATH, goldenFindings } from '../../scripts/threat-train/findings-dump';
import { ThreatScanner } from '../../src/server/core/threat/threatScanner';

interface Golden {
  readonly text: string;
  readonly findings: [string[], string[], string[]];
}

const golden: Golden[] = readFileSync(GOLDEN_PATH, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Golden);

test('golden findings: the sample covers every stage (rules, intent lexicons, the model, hidden and encoded text)', () => {
  assert.ok(golden.length >= 800, `${golden.length} texts`);
  const ids = new Set(golden.flatMap((g) => g.findings[0].map((k) => k.slice(0, k.indexOf('@')))));
  for (const prefix of ['model.', 'intent.', 'hidden.', 'encoded.', 'override.', 'exfil.', 'forged.']) {
    assert.ok([...ids].some((id) => id.startsWith(prefix)), `no ${prefix} finding in the sample`);
  }
  assert.ok(golden.some((g) => g.findings.every((f) => f.length === 0)), 'no clean text in the sample');
});

test('golden findings: every sampled text gives the same findings in every mode, and the cache gives the same', () => {
  const scanner = new ThreatScanner();
  const diffs: string[] = [];
  for (const g of golden) {
    const got = goldenFindings(g.text);
    if (JSON.stringify(got) !== JSON.stringify(g.findings)) diffs.push(`${JSON.stringify(g.text.slice(0, 80))}: ${JSON.stringify(got)} != ${JSON.stringify(g.findings)}`);
    const cached = scanner.scan(g.text).map((f) => `${f.ruleId}@${f.start}-${f.end}${f.inner ? `[${f.inner.join(',')}]` : ''}`);
    if (JSON.stringify(cached) !== JSON.stringify(g.findings[0])) diffs.push(`cached ${JSON.stringify(g.text.slice(0, 80))}`);
  }
  assert.deepEqual(diffs.slice(0, 5), [], `${diffs.length} of ${golden.length} texts differ`);
});
