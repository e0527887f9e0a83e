/**
 * Adversarial near-miss shapes: one 64 KiB text of each against 64 texts of 1 KiB of the same shape (the
 * baseline, scanned in the same run). A regex that backtracks shows as a ratio far above 1 (quadratic growth
 * would be ≈ 64); small constant ratios come from fixed per-text costs. These were a wall-clock unit test (< 50 ms) until it flaked on a
 * loaded machine: times belong here.
 */
import { adversarialShapes } from '../test/helpers/adversarialShapes';
import { scanText } from '../src/server/core/threat/threatScanner';
import { fmt, median, printTable } from './harness';

export async function runThreatShapesBench(): Promise<void> {
  const K = 1024;
  const big = adversarialShapes(64 * K);
  const small = adversarialShapes(K);
  const rows: (string | number)[][] = [];
  let worst = 0;
  let slowest = 0;
  for (const name of Object.keys(big)) {
    // Distinct texts for the baseline, so the scanner's cache cannot answer them.
    const pieces = Array.from({ length: 64 }, (_, i) => `${i} ${small[name]!}`);
    const whole = big[name]!;
    const ours = await median(5, () => scanText(whole));
    const baseline = await median(5, () => {
      for (const p of pieces) scanText(p);
    });
    worst = Math.max(worst, ours / baseline);
    slowest = Math.max(slowest, ours);
    rows.push([name, fmt(ours), fmt(baseline), (ours / baseline).toFixed(2)]);
  }
  printTable('Threat scan: 64 KiB adversarial near-miss vs 64 × 1 KiB of the same shape (median of 5, ms)', ['shape', '64 KiB', '64 × 1 KiB', 'ratio'], rows);
  console.log(`worst ratio ${worst.toFixed(2)} (quadratic would be ≈ 64); slowest 64 KiB scan ${fmt(slowest)} ms (target < 50 ms)`);
}

if (require.main === module) void runThreatShapesBench();
