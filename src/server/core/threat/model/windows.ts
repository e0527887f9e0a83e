// Owns scoring a text's sentence windows with a linear model over the hashed features, shared by inference
// (classifier.ts, int8 weights) and training (scripts/threat-train/train.ts, float weights).
/** Pure module: no `vscode`, no language-server imports. */
import { featureBuffer, features, lastSegments } from './features';

/** The binary model as the scorer reads it: any weight store (training passes floats, inference int8). */
export interface LinearModel {
  readonly mask: number;
  readonly bias: number;
  readonly weight: (index: number) => number;
  /** When set, the weights are `int8[i] * scale` (the shipped model: read without a call per feature). */
  readonly int8?: Int8Array;
  readonly scale?: number;
}

/** One scored window. */
export interface ScoredWindow {
  readonly start: number;
  readonly end: number;
  readonly score: number;
  /** Two sentences (the other windows are one). */
  readonly pair: boolean;
}

let sums = new Float64Array(64);

/**
 * Scores every one- and two-sentence window of `lower` (already lowercased) with `m`; returns the windows
 * whose score is at least `threshold` (training uses -Infinity to read them all). Allocates nothing unless a
 * window reaches the threshold. `featuresDone`: `features(lower, 0, lower.length)` already filled the feature
 * buffer and the sentences (the scanner's fused keyword pass does), so they are read as they are.
 * `sumsDone`: that pass also summed `m.int8` over each sentence (`lastSegments().sum`), so the features need
 * not be read again (the same integers, summed in the same order, then scaled: the same scores).
 */
export function scoreWindows(lower: string, m: LinearModel, threshold: number, featuresDone = false, sumsDone = false): ScoredWindow[] {
  if (!featuresDone) features(lower, 0, lower.length);
  const hs = featureBuffer();
  const seg = lastSegments();
  const n = seg.count;
  if (sums.length < n) sums = new Float64Array(n * 2);
  const mask = m.mask;
  let from = 0;
  for (let s = 0; s < n; s++) {
    const to = seg.featEnd[s]!;
    let sum = 0;
    if (featuresDone && sumsDone && m.int8) sum = seg.sum[s]! * m.scale!;
    else if (m.int8) {
      const w = m.int8;
      for (let i = from; i < to; i++) sum += w[hs[i]! & mask]!;
      sum *= m.scale!;
    } else for (let i = from; i < to; i++) sum += m.weight(hs[i]! & mask);
    sums[s] = sum;
    from = to;
  }
  let out: ScoredWindow[] | undefined;
  let prevEnd = 0;
  for (let s = 0; s < n; s++) {
    const end = seg.featEnd[s]!;
    const z = m.bias + sums[s]! / Math.sqrt(end - prevEnd);
    if (z >= threshold) (out ??= []).push({ start: seg.start[s]!, end: seg.end[s]!, score: z, pair: false });
    if (s + 1 < n) {
      const z2 = m.bias + (sums[s]! + sums[s + 1]!) / Math.sqrt(seg.featEnd[s + 1]! - prevEnd);
      if (z2 >= threshold) (out ??= []).push({ start: seg.start[s]!, end: seg.end[s + 1]!, score: z2, pair: true });
    }
    prevEnd = end;
  }
  return out ?? NONE;
}

const NONE: ScoredWindow[] = [];

/** The highest window score of a text (−∞ for a text without features). Used by training and the bench. */
export function maxWindowScore(lower: string, m: LinearModel): number {
  let best = -Infinity;
  for (const w of scoreWindows(lower, m, -Infinity)) if (w.score > best) best = w.score;
  return best;
}
