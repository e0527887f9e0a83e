/**
 * Scores the scanner on a labelled JSONL set the way /work/shared/threat-eval/score.mjs does: headline
 * recall = threat lines except bucket `paraphrase_stretch` and `policy: true` lines; FPR over benign lines.
 * Used by the eval test and the benchmark. Pure module.
 */
import { judge, verdictRules } from './judgement';

export interface LabelledLine {
  readonly id: string;
  readonly text: string;
  readonly label: 'threat' | 'benign';
  readonly bucket: string;
  readonly policy?: boolean;
}

export interface BucketScore {
  readonly bucket: string;
  readonly n: number;
  readonly flagged: number;
}

export interface EvalScore {
  readonly recall: number;
  readonly fpr: number;
  readonly headline: { readonly n: number; readonly caught: number };
  readonly benign: { readonly n: number; readonly flagged: number };
  readonly stretch: { readonly n: number; readonly caught: number };
  readonly policy: { readonly n: number; readonly caught: number };
  readonly buckets: readonly BucketScore[];
  readonly missed: readonly LabelledLine[];
  readonly falsePositives: ReadonlyArray<{ readonly line: LabelledLine; readonly rules: readonly string[] }>;
}

const STRETCH = 'paraphrase_stretch';

export function parseLabelled(jsonl: string): LabelledLine[] {
  return jsonl
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledLine);
}

/** What a scanner says of one text: the rule ids that fired (none: not flagged). */
export type Judge = (text: string) => readonly string[];

/** The product's judgement of a bare text (`judgement.ts`): the figure printed is the function every read runs. */
const ours: Judge = (text) => verdictRules(judge({ kind: 'text', text }));

/** Scores `judge` (by default the product's judgement: both stages, detectors and our closer policy) on labelled lines. */
export function evaluate(lines: readonly LabelledLine[], judge: Judge = ours): EvalScore {
  const buckets = new Map<string, { n: number; flagged: number }>();
  const missed: LabelledLine[] = [];
  const falsePositives: Array<{ line: LabelledLine; rules: string[] }> = [];
  const h = { n: 0, caught: 0 };
  const b = { n: 0, flagged: 0 };
  const s = { n: 0, caught: 0 };
  const p = { n: 0, caught: 0 };
  for (const line of lines) {
    const rules = judge(line.text);
    const flagged = rules.length > 0;
    const key = `${line.label}:${line.bucket}${line.policy ? ' (policy)' : ''}`;
    const bucket = buckets.get(key) ?? { n: 0, flagged: 0 };
    bucket.n++;
    if (flagged) bucket.flagged++;
    buckets.set(key, bucket);
    if (line.label === 'benign') {
      b.n++;
      if (flagged) {
        b.flagged++;
        falsePositives.push({ line, rules: [...new Set(rules)] });
      }
    } else if (line.policy) {
      p.n++;
      if (flagged) p.caught++;
    } else if (line.bucket === STRETCH) {
      s.n++;
      if (flagged) s.caught++;
    } else {
      h.n++;
      if (flagged) h.caught++;
      else missed.push(line);
    }
  }
  return {
    recall: h.n ? h.caught / h.n : 0,
    fpr: b.n ? b.flagged / b.n : 0,
    headline: h,
    benign: b,
    stretch: s,
    policy: p,
    buckets: [...buckets].map(([bucket, v]) => ({ bucket, ...v })).sort((x, y) => x.bucket.localeCompare(y.bucket)),
    missed,
    falsePositives,
  };
}
