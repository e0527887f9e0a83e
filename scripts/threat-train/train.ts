/**
 * Trains the threat scanner's learned stage and writes its two files: src/server/core/threat/model/threat-model.bin (the
 * int8 weights, the one data file every bundle reads at run time: the build copies it to dist/) and
 * src/server/core/threat/model/weights.ts (the model's figures, its version and the data file's length and sha256).
 *
 *   npm run train:threat            (node --import tsx scripts/threat-train/train.ts)
 *   npm run train:threat -- --out FILE       write weights.ts as FILE and threat-model.bin beside it (the unit test compares them)
 *   npm run train:threat -- --dump-cv FILE   also write each line's held-out cross-validation score to FILE (JSONL)
 *   npm run train:threat -- --config FILE    another configuration (experiments; the shipped model uses train.config.json)
 *   npm run train:threat -- --quick-eval FILE [--quick-eval FILE2]   experiments: no cross-validation, no files written; trains
 *                                   once on everything and prints the learned stage's recall and false positives on each FILE
 *                                   (eval format) at shared thresholds, and its AUC (a FILE must never be a blind set: this tunes on it)
 *   SK_TRAIN_DEBUG=1 npm run train:threat    also print each candidate flag threshold with its attacks caught and false positives
 *
 * Reproducible: every input is checked in. `train.config.json` beside this script holds the seed, the
 * hyperparameters and the data: the corpus folders and labelled files (read in a fixed order) and the ATR test
 * cases of the dev dependency `agent-threat-rules` (MIT) at the exact version package.json pins (the script
 * stops if node_modules holds another). Shuffling uses the seeded generator; the same inputs give byte-identical
 * weights. There are no environment overrides: to try other settings, edit the config.
 *
 * Model: logistic regression over hashed features (src/server/core/threat/model/features.ts), Adagrad, L2. After
 * warm-up epochs on whole lines, each attack line is represented by its best-scoring one- or two-sentence
 * window (the attack sentence inside an otherwise ordinary note), which is what inference scores; every
 * sentence of a benign line is a benign example too. The threshold is chosen by 5-fold cross-validation so
 * that at most TARGET_FPR of held-out benign lines score above it. A second, small softmax model names the
 * intent of a flagged window.
 */
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { deflateRawSync, gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { featureBuffer, features, lastSegments } from '../../src/server/core/threat/model/features';
import { maxWindowScore, scoreWindows, type LinearModel } from '../../src/server/core/threat/model/windows';
import { lowerSameLength } from '../../src/server/core/threat/textFold';
import { findIntents } from '../../src/server/core/threat/intent/intent';
import { normalizeForMatching } from '../../src/server/core/threat/normalize';
import { RULES_BY_ID } from '../../src/server/core/threat/rules';
import { scanKnowledgeText } from '../../src/server/core/threat/judgement';
import { isUngated } from '../../src/server/core/threat/closerPolicy';
import { seededRandom } from '../../test/helpers/hostile';

const ROOT = resolve(process.cwd());
const INTENT_BITS = 12;
const INTENT_BUCKETS = 1 << INTENT_BITS;
/** The intent model reads the hash bits above the main model's (fewer collisions between the two tables). */
const INTENT_SHIFT = 32 - INTENT_BITS;
const INTENTS = ['override', 'role', 'disclose', 'exfiltration', 'execute', 'conceal', 'safety-off', 'forged-turn'] as const;
type Intent = (typeof INTENTS)[number];
/** The weights' data file, beside weights.ts (and beside the bundles in dist/). */
const DATA_FILE = 'threat-model.bin';
/** The checked-in training configuration (train.config.json): every key required, none other allowed. */
const TrainConfigSchema = z.strictObject({
  seed: z.number().int(),
  /** log2 of the main model's hashed feature buckets (its weights are that many bytes). */
  bucketBits: z.number().int().min(12).max(22),
  /** The share of held-out benign lines the flag threshold may put above it. */
  targetFpr: z.number().min(0).max(1),
  epochs: z.number().int().positive(),
  warmup: z.number().int().min(0),
  learningRate: z.number().positive(),
  l2: z.number().min(0),
  /** The weight of each sentence of a benign line as a benign example of its own (the whole line weighs 1). */
  benignSentenceWeight: z.number().min(0),
  /** The highest gate a pattern rule gets (see chooseGates). */
  ruleGateCap: z.number(),
  /** The lowest gate an intent lexicon gets: below it the lexicons would run on too many ordinary notes. */
  intentGateFloor: z.number(),
  /** Training corpora written for the learned stage ({text,label,intent,lang} lines), relative to the repository. */
  corpusDirs: z.array(z.string()),
  /** Labelled eval-format files ({text,label,bucket}) that train the model (never a set still blind). */
  evalFormatSources: z.array(z.string()),
  /** ATR's rule test cases: the package and its exact version, which of them (`prompt-injection` attacks, `all`, `none`), their sample weight. */
  atr: z.strictObject({ package: z.literal('agent-threat-rules'), version: z.string(), cases: z.enum(['prompt-injection', 'all', 'none']), weight: z.number().positive() }),
  /**
   * Real text nobody wrote for a scanner ({text,source,kind,lang} passages: docs, changelogs, e-mails, logs, configs),
   * gzipped JSONL relative to the repository: benign training lines, cross-validated by source (a source's passages
   * are held out together), and their own false-positive budget `targetFpr` when the threshold and gates are chosen.
   */
  realText: z.strictObject({ files: z.array(z.string()), weight: z.number().positive(), targetFpr: z.number().min(0).max(1) }),
});
const { values: ARGS } = parseArgs({ options: { out: { type: 'string' }, 'dump-cv': { type: 'string' }, config: { type: 'string' }, 'quick-eval': { type: 'string', multiple: true } } });
const CONFIG = TrainConfigSchema.parse(JSON.parse(readFileSync(ARGS.config ? resolve(ARGS.config) : join(__dirname, 'train.config.json'), 'utf8')));
const BUCKETS = 1 << CONFIG.bucketBits;
const TARGET_FPR = CONFIG.targetFpr;
const EPOCHS = CONFIG.epochs;
const WARMUP = CONFIG.warmup;
const LR = CONFIG.learningRate;
const L2 = CONFIG.l2;
const SEED = CONFIG.seed;
const ATR_WEIGHT = CONFIG.atr.weight;
const ATR_MODE = CONFIG.atr.cases;
const RULE_GATE_CAP = CONFIG.ruleGateCap;
const INTENT_GATE_FLOOR = CONFIG.intentGateFloor;


interface Example {
  readonly text: string;
  readonly threat: boolean;
  readonly intent?: Intent;
  readonly source: string;
  /** Sample weight (default 1). */
  readonly weight?: number;
  /** Real text (config.realText): the repository or corpus it came from, which decides its cross-validation fold. */
  readonly realSource?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Data

const CORPUS_INTENT: Record<string, Intent> = {
  override: 'override', role: 'role', disclose: 'disclose', exfiltrate: 'exfiltration', exfiltration: 'exfiltration',
  execute: 'execute', conceal: 'conceal', safety_off: 'safety-off', 'safety-off': 'safety-off', forged: 'forged-turn',
};
const BUCKET_INTENT: Record<string, Intent> = {
  override_role_hijack: 'override', exfiltration: 'exfiltration', forged_delimiter_envelope_escape: 'forged-turn',
  persistence_tool_coercion: 'execute', concealment_safety_off_prompt_leak: 'conceal',
};

/** A JSONL file's rows, plain or gzipped (`.gz`). */
function readJsonl(path: string): Record<string, unknown>[] {
  const raw = readFileSync(path);
  return (path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const CORPUS_DIRS = CONFIG.corpusDirs;
const EVAL_FORMAT_SOURCES = CONFIG.evalFormatSources;

/** package.json and the installed ATR must be the exact version the config names: other test cases would train another model. */
function checkAtrVersion(): void {
  if (ATR_MODE === 'none') return;
  const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown; devDependencies?: Record<string, string> };
  const pinned = json(join(ROOT, 'package.json')).devDependencies?.[CONFIG.atr.package];
  if (pinned !== CONFIG.atr.version) throw new Error(`package.json asks for ${CONFIG.atr.package} ${String(pinned)}, train.config.json pins ${CONFIG.atr.version}: make them the same exact version`);
  const installed = json(join(ROOT, 'node_modules', CONFIG.atr.package, 'package.json')).version;
  if (installed !== CONFIG.atr.version) throw new Error(`node_modules holds ${CONFIG.atr.package} ${String(installed)}, train.config.json pins ${CONFIG.atr.version}: install the pinned version (npm ci) or change the pin and retrain`);
}

async function loadExamples(): Promise<Example[]> {
  const out: Example[] = [];
  for (const dir of CORPUS_DIRS) {
    const corpusDir = join(ROOT, dir);
    if (!existsSync(corpusDir)) continue;
    for (const f of readdirSync(corpusDir).filter((n) => n.endsWith('.jsonl')).sort()) {
      for (const r of readJsonl(join(corpusDir, f))) {
        const threat = r.label === 'threat';
        out.push({ text: String(r.text), threat, ...(threat && CORPUS_INTENT[String(r.intent)] ? { intent: CORPUS_INTENT[String(r.intent)] } : {}), source: `${dir.split('/').pop()}/${f}` });
      }
    }
  }
  for (const rel of EVAL_FORMAT_SOURCES) {
    const p = join(ROOT, rel);
    if (!existsSync(p)) continue;
    for (const r of readJsonl(p)) {
      if (r.policy === true) continue;
      const threat = r.label === 'threat';
      const intent = threat ? BUCKET_INTENT[String(r.bucket)] : undefined;
      out.push({ text: String(r.text), threat, ...(intent ? { intent } : {}), source: rel });
    }
  }
  for (const rel of CONFIG.realText.files) {
    for (const row of readJsonl(join(ROOT, rel))) {
      const r = row as { text: string; source: string; kind: string };
      out.push({ text: r.text, threat: false, source: `realtext/${r.kind}`, realSource: r.source, weight: CONFIG.realText.weight });
    }
  }
  try {
    // ATR's cases are jailbreak prompts and tool-call JSON more than stored notes: all of them trained on cost
    // recall on notes at the same false-positive rate (5-fold CV on set1: 0.56 with them, 0.69 without). Its
    // prompt-injection attacks alone, at weight 0.3, teach the classic phrasings the corpora avoid on purpose
    // (set1 CV 0.77; "Ignore all previous instructions" scores 1.3 instead of 0.3). train.config.json atr.cases: all|none.
    if (ATR_MODE === 'none') throw new Error('not used (train.config.json atr.cases: none)');
    const { loadAtrCases, atrHeldOut } = await import('../../bench/atrCases');
    for (const c of loadAtrCases()) {
      if (atrHeldOut(c.ruleId)) continue; // the out-of-sample share in npm run bench
      if (c.label === 'threat' && !c.inScope) continue;
      if (ATR_MODE !== 'all' && (c.label !== 'threat' || c.category !== 'prompt-injection')) continue;
      out.push({ text: c.text, threat: c.label === 'threat', source: 'atr', weight: ATR_WEIGHT });
    }
  } catch (e) {
    console.error(`[train] ATR test cases: ${(e as Error).message}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Features

interface Prepared {
  readonly ex: Example;
  /** The lowercased matching view. */
  readonly lower: string;
  /** Feature hashes of the whole line. */
  readonly all: Int32Array;
  /** Feature hashes per sentence, for benign sentence examples and window positives. */
  readonly segs: readonly { readonly start: number; readonly end: number; readonly h: Int32Array }[];
}

function prepare(ex: Example): Prepared {
  const lower = lowerSameLength(normalizeForMatching(ex.text).text);
  const n = features(lower, 0, lower.length);
  const all = featureBuffer().slice(0, n);
  const seg = lastSegments();
  const segs: { start: number; end: number; h: Int32Array }[] = [];
  for (let k = 0, from = 0; k < seg.count; from = seg.featEnd[k]!, k++) segs.push({ start: seg.start[k]!, end: seg.end[k]!, h: all.slice(from, seg.featEnd[k]!) });
  return { ex, lower, all, segs };
}

// ---------------------------------------------------------------------------------------------------------
// Binary logistic regression (Adagrad)

function shuffle<T>(xs: T[], rnd: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

class Binary {
  readonly w = new Float64Array(BUCKETS);
  private readonly g = new Float64Array(BUCKETS);
  bias = 0;
  private gb = 0;
  readonly mask = BUCKETS - 1;

  z(h: Int32Array): number {
    if (h.length === 0) return this.bias;
    let s = 0;
    for (let i = 0; i < h.length; i++) s += this.w[h[i]! & this.mask]!;
    return this.bias + s / Math.sqrt(h.length);
  }

  update(h: Int32Array, y: number, weight: number): void {
    if (h.length === 0) return;
    const p = 1 / (1 + Math.exp(-this.z(h)));
    const g = (p - y) * weight;
    const v = 1 / Math.sqrt(h.length);
    for (let i = 0; i < h.length; i++) {
      const k = h[i]! & this.mask;
      const grad = g * v + L2 * this.w[k]!;
      this.g[k] += grad * grad;
      this.w[k] -= (LR * grad) / (Math.sqrt(this.g[k]!) + 1e-8);
    }
    this.gb += g * g;
    this.bias -= (LR * g) / (Math.sqrt(this.gb) + 1e-8);
  }

  linear(): LinearModel {
    return { mask: this.mask, bias: this.bias, weight: (i) => this.w[i]! };
  }
}

/** The hashes of the best-scoring one- or two-sentence window of a line under the current model. */
function bestWindow(m: Binary, p: Prepared): Int32Array {
  if (p.segs.length <= 1) return p.all;
  let best = p.all;
  let bestZ = -Infinity;
  for (let s = 0; s < p.segs.length; s++) {
    const one = p.segs[s]!.h;
    const z1 = m.z(one);
    if (z1 > bestZ) { bestZ = z1; best = one; }
    if (s + 1 < p.segs.length) {
      const two = new Int32Array(one.length + p.segs[s + 1]!.h.length);
      two.set(one);
      two.set(p.segs[s + 1]!.h, one.length);
      const z2 = m.z(two);
      if (z2 > bestZ) { bestZ = z2; best = two; }
    }
  }
  return best;
}

function trainBinary(data: readonly Prepared[], seed: number): Binary {
  const m = new Binary();
  const rnd = seededRandom(seed);
  const pos = data.filter((p) => p.ex.threat).length;
  const neg = data.length - pos;
  const wPos = data.length / (2 * Math.max(1, pos));
  const wNeg = data.length / (2 * Math.max(1, neg));
  const order = data.map((_, i) => i);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    shuffle(order, rnd);
    for (const i of order) {
      const p = data[i]!;
      if (p.ex.threat) {
        m.update(epoch < WARMUP ? p.all : bestWindow(m, p), 1, wPos * (p.ex.weight ?? 1));
      } else {
        const w = wNeg * (p.ex.weight ?? 1);
        m.update(p.all, 0, w);
        // every sentence of a benign line is benign on its own too (inference scores sentences)
        if (p.segs.length > 1) for (const s of p.segs) m.update(s.h, 0, w * CONFIG.benignSentenceWeight);
      }
    }
  }
  return m;
}

// ---------------------------------------------------------------------------------------------------------
// Intent model (softmax over INTENTS, threat lines with a known intent)

function trainIntent(data: readonly Prepared[], seed: number): { w: Float64Array; bias: Float64Array } {
  const k = INTENTS.length;
  const w = new Float64Array(INTENT_BUCKETS * k);
  const g = new Float64Array(INTENT_BUCKETS * k);
  const bias = new Float64Array(k);
  const gb = new Float64Array(k);
  const rnd = seededRandom(seed ^ 0x5bd1e995);
  const rows = data.filter((p) => p.ex.threat && p.ex.intent);
  const idx = (h: number): number => ((h >>> INTENT_SHIFT) & (INTENT_BUCKETS - 1)) * k;
  const z = new Float64Array(k);
  for (let epoch = 0; epoch < 10; epoch++) {
    for (const p of shuffle([...rows], rnd)) {
      const h = p.all;
      if (h.length === 0) continue;
      const v = 1 / Math.sqrt(h.length);
      z.set(bias);
      for (let i = 0; i < h.length; i++) {
        const b = idx(h[i]!);
        for (let c = 0; c < k; c++) z[c] += w[b + c]! * v;
      }
      const max = Math.max(...z);
      let sum = 0;
      for (let c = 0; c < k; c++) sum += (z[c] = Math.exp(z[c]! - max));
      const y = INTENTS.indexOf(p.ex.intent!);
      for (let c = 0; c < k; c++) {
        const gc = z[c]! / sum - (c === y ? 1 : 0);
        for (let i = 0; i < h.length; i++) {
          const j = idx(h[i]!) + c;
          const grad = gc * v + L2 * w[j]!;
          g[j] += grad * grad;
          w[j] -= (LR * grad) / (Math.sqrt(g[j]!) + 1e-8);
        }
        gb[c] += gc * gc;
        bias[c] -= (LR * gc) / (Math.sqrt(gb[c]!) + 1e-8);
      }
    }
  }
  return { w, bias };
}

// ---------------------------------------------------------------------------------------------------------
// Threshold by cross-validation

interface Held {
  readonly p: Prepared;
  readonly score: number;
}

/** A line's cross-validation fold: real text by its source (held out whole, as new text would be), the rest by position. */
function foldOf(p: Prepared, i: number, folds: number): number {
  if (p.ex.realSource === undefined) return i % folds;
  return createHash('sha256').update(p.ex.realSource).digest().readUInt32BE(0) % folds;
}

function crossValidate(data: readonly Prepared[], folds: number): Held[] {
  const held: Held[] = [];
  for (let f = 0; f < folds; f++) {
    const train = data.filter((p, i) => foldOf(p, i, folds) !== f);
    const test = data.filter((p, i) => foldOf(p, i, folds) === f);
    const m = trainBinary(train, SEED + f);
    for (const p of test) held.push({ p, score: maxWindowScore(p.lower, m.linear()) });
    console.error(`[train] fold ${f + 1}/${folds} done`);
  }
  return held;
}

/** What the other stages say about a held-out line (computed once; they do not depend on the model). */
interface Evidence {
  /** Pattern rules and intent lexicons that fired (each counts only when the model's score reaches its gate). */
  readonly gated: readonly string[];
  /** A detector fired (hidden or encoded text): counts on its own. */
  readonly detector: boolean;
  /** Our closer policy flags it (a closer of our envelope: `closerPolicy.ts`): counts on its own, whatever the model says. */
  readonly policy: boolean;
}

const evidence = new Map<Prepared, Evidence>();
function evidenceOf(p: Prepared): Evidence {
  let e = evidence.get(p);
  if (!e) {
    // the product's findings before the learned stage (the judgement's scan with the model off): an ungated rule
    // (a closer of our envelope: closerPolicy.ts) counts on its own, as a detector does
    const findings = scanKnowledgeText(p.ex.text, { learned: false });
    const gated = new Set(findings.filter((f) => RULES_BY_ID.get(f.ruleId)?.kind === 'pattern' && !isUngated(p.ex.text, f)).map((f) => f.ruleId));
    for (const h of findIntents(normalizeForMatching(p.ex.text).text)) gated.add(h.id);
    e = { gated: [...gated], detector: findings.some((f) => RULES_BY_ID.get(f.ruleId)?.kind === 'detector'), policy: findings.some((f) => isUngated(p.ex.text, f)) };
    evidence.set(p, e);
  }
  return e;
}

interface Gates {
  readonly flag: number;
  /** Per pattern rule / intent id: the model score a text needs for that finding to count. */
  readonly gates: Readonly<Record<string, number>>;
}

function flaggedBy(h: Held, g: Gates): boolean {
  const e = evidenceOf(h.p);
  return h.score >= g.flag || e.detector || e.policy || e.gated.some((id) => h.score >= (g.gates[id] ?? Infinity));
}

/**
 * The flag threshold and one gate per pattern rule and intent lexicon, chosen on the held-out scores so that the
 * most attacks are flagged with at most TARGET_FPR of the benign lines flagged (pooled over every source):
 * for each candidate flag threshold, the model and the detectors spend part of the false-positive budget; the
 * rest goes to rule gates greedily, best ratio of attacks gained to benign lines lost first (a gate of -∞ means
 * the rule needs no corroboration; +∞ that it adds nothing worth its false positives).
 */
function chooseGates(held: readonly Held[]): Gates {
  // candidate flag thresholds: the top quantiles of each benign pool's held-out scores (the corpora's and real text's)
  const quantiles = (scores: number[]): number[] => {
    const s = scores.sort((a, b) => b - a);
    return s.length === 0 ? [] : [0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.008, 0.01, 0.015, 0.02].map((q) => (s[Math.floor(s.length * q)] ?? 0) + 1e-6);
  };
  const benignHeld = held.filter((h) => !h.p.ex.threat);
  const flags = [...new Set([...quantiles(benignHeld.filter((h) => h.p.ex.realSource === undefined).map((h) => h.score)), ...quantiles(benignHeld.filter((h) => h.p.ex.realSource !== undefined).map((h) => h.score))])].sort((a, b) => a - b);
  const rows = held.map((h) => ({ threat: h.p.ex.threat, real: h.p.ex.realSource !== undefined, score: h.score, ...evidenceOf(h.p) }));
  const benign = rows.filter((r) => !r.threat && !r.real).length;
  // real text has its own budget: the corpora's benign lines were written beside the attacks, real text was not
  const realBudget = Math.floor(rows.filter((r) => r.real).length * CONFIG.realText.targetFpr);
  const ids = [...new Set(rows.flatMap((r) => r.gated))].sort();
  let best: Gates = { flag: Infinity, gates: {} };
  let bestRecall = -1;
  for (const flag of flags) {
    const flagged = rows.map((r) => r.score >= flag || r.detector || r.policy);
    let fp = rows.filter((r, i) => flagged[i] && !r.threat && !r.real).length;
    let realFp = rows.filter((r, i) => flagged[i] && r.real).length;
    let tp = rows.filter((r, i) => flagged[i] && r.threat).length;
    // the closer policy's false positives are the policy's (no threshold or gate can clear them): not the budget's
    const budget = Math.floor(benign * TARGET_FPR) + rows.filter((r) => r.policy && !r.threat && !r.real && !r.detector && r.score < flag).length;
    const realCap = realBudget + rows.filter((r) => r.policy && r.real && !r.detector && r.score < flag).length;
    // a pattern rule is vetoed only where the model reads the text as plainly benign (below RULE_GATE_CAP): the
    // rules were written for the classic phrasings, which the corpora's security notes quote on purpose
    const gates: Record<string, number> = Object.fromEntries(ids.map((id) => [id, id.startsWith('intent.') ? Infinity : RULE_GATE_CAP]));
    const floor = (id: string): number => (id.startsWith('intent.') ? INTENT_GATE_FLOOR : -Infinity);
    rows.forEach((r, i) => {
      if (flagged[i] || !r.gated.some((id) => r.score >= gates[id]!)) return;
      flagged[i] = true;
      if (r.threat) tp++;
      else if (r.real) realFp++;
      else fp++;
    });
    if (fp > budget || realFp > realCap) { if (process.env.SK_TRAIN_DEBUG) console.error(`[gates] flag ${flag.toFixed(3)} infeasible: fp ${fp}/${budget} real ${realFp}/${realCap}`); continue; }
    for (;;) {
      // the best single upgrade: one rule's gate lowered to one of the scores it fired at
      let pick: { id: string; gate: number; dtp: number; dfp: number; dreal: number } | undefined;
      for (const id of ids) {
        const cands = rows.map((r, i) => (!flagged[i] && r.gated.includes(id) && r.score < gates[id]! ? r : undefined)).filter((r) => r !== undefined);
        const levels = [...new Set(cands.map((r) => r.score))].sort((a, b) => b - a);
        for (const level of [...levels.filter((l) => l >= floor(id)), floor(id)]) {
          let dtp = 0;
          let dfp = 0;
          let dreal = 0;
          for (const r of cands) {
            if (r.score < level) continue;
            if (r.threat) dtp++;
            else if (r.real) dreal++;
            else dfp++;
          }
          if (dtp === 0 || fp + dfp > budget || realFp + dreal > realCap) continue;
          const ratio = dtp / (dfp + dreal + 0.5);
          if (!pick || ratio > pick.dtp / (pick.dfp + pick.dreal + 0.5) || (ratio === pick.dtp / (pick.dfp + pick.dreal + 0.5) && dtp > pick.dtp)) pick = { id, gate: level, dtp, dfp, dreal };
        }
      }
      if (!pick) break;
      gates[pick.id] = pick.gate;
      rows.forEach((r, i) => {
        if (!flagged[i] && r.gated.includes(pick.id) && r.score >= pick.gate) flagged[i] = true;
      });
      tp += pick.dtp;
      fp += pick.dfp;
      realFp += pick.dreal;
    }
    // then every gate goes as low as it can without flagging one more benign line: free on this data, and more
    // recall on text it has not seen (a rule that never fired on a benign line needs no corroboration at all)
    for (const id of ids) {
      const benignScores = rows.filter((r, i) => !flagged[i] && !r.threat && r.gated.includes(id) && r.score < gates[id]!).map((r) => r.score);
      gates[id] = benignScores.length ? Math.max(...benignScores) + 1e-6 : -Infinity;
      // the intent lexicons cost ~14 µs a text: they run only on the few texts the model reads as possibly hostile
      if (id.startsWith('intent.')) gates[id] = Math.max(gates[id]!, INTENT_GATE_FLOOR);
    }
    if (process.env.SK_TRAIN_DEBUG) console.error(`[gates] flag ${flag.toFixed(3)} tp ${tp} fp ${fp}/${budget} real ${realFp}/${realCap}`);
    if (tp > bestRecall) {
      bestRecall = tp;
      best = { flag, gates };
    }
  }
  return best;
}

function report(held: readonly Held[], flagged: (h: Held) => boolean): void {
  const by = new Map<string, { pos: number; caught: number; neg: number; fp: number }>();
  for (const h of held) {
    const r = by.get(h.p.ex.source) ?? { pos: 0, caught: 0, neg: 0, fp: 0 };
    const hit = flagged(h);
    if (h.p.ex.threat) { r.pos++; if (hit) r.caught++; } else { r.neg++; if (hit) r.fp++; }
    by.set(h.p.ex.source, r);
  }
  const all = [...by.values()].reduce((a, r) => ({ pos: a.pos + r.pos, caught: a.caught + r.caught, neg: a.neg + r.neg, fp: a.fp + r.fp }), { pos: 0, caught: 0, neg: 0, fp: 0 });
  console.log('| source | attacks | recall | benign | FPR |\n|---|---|---|---|---|');
  for (const [s, r] of [...by, ['**all**', all] as const].sort((a, b) => (a[0] < b[0] ? -1 : 1))) console.log(`| ${s} | ${r.pos} | ${r.pos ? (r.caught / r.pos).toFixed(3) : '-'} | ${r.neg} | ${r.neg ? (r.fp / r.neg).toFixed(4) : '-'} |`);
}

// ---------------------------------------------------------------------------------------------------------
// Output

function quantize(w: Float64Array): { q: Int8Array; scale: number } {
  let max = 0;
  for (const v of w) max = Math.max(max, Math.abs(v));
  const scale = max > 0 ? max / 127 : 1;
  const q = new Int8Array(w.length);
  for (let i = 0; i < w.length; i++) q[i] = Math.max(-127, Math.min(127, Math.round(w[i]! / scale)));
  return { q, scale };
}

const bytesOf = (q: Int8Array): Buffer => Buffer.from(q.buffer, q.byteOffset, q.byteLength);
/** The form the model's version is computed over (base64 of the deflated weights: the version predates the data file). */
const pack = (q: Int8Array): string => deflateRawSync(bytesOf(q), { level: 9 }).toString('base64');

async function main(): Promise<void> {
  checkAtrVersion();
  const examples = await loadExamples();
  const sources = new Map<string, { threat: number; benign: number }>();
  for (const e of examples) {
    const s = sources.get(e.source) ?? { threat: 0, benign: 0 };
    if (e.threat) s.threat++; else s.benign++;
    sources.set(e.source, s);
  }
  console.error(`[train] ${examples.length} examples: ${[...sources].map(([k, v]) => `${k} ${v.threat}+${v.benign}`).join(', ')}`);
  const data = examples.map(prepare);
  if (ARGS['quick-eval']) return quickEval(data, ARGS['quick-eval']);

  const held = crossValidate(data, 5);
  const gates = chooseGates(held);
  const t = gates.flag;
  if (ARGS['dump-cv']) {
    writeFileSync(ARGS['dump-cv'], held.map((h) => JSON.stringify({ source: h.p.ex.source, threat: h.p.ex.threat, text: h.p.ex.text, score: h.score })).join('\n') + '\n');
  }
  const gateList = Object.entries(gates.gates).sort((a, b) => a[1] - b[1]);
  console.log(`5-fold cross-validation: flag ≥ ${t.toFixed(3)} (pooled held-out benign FPR target ${TARGET_FPR}); gates: ${gateList.map(([id, v]) => `${id} ${v === -Infinity ? '-∞' : v === Infinity ? '∞' : v.toFixed(2)}`).join(', ')}\n`);
  report(held, (h) => flaggedBy(h, gates));

  const m = trainBinary(data, SEED);
  const intent = trainIntent(data, SEED);
  // the threshold moves with the model trained on all data: keep the same share of training benign below it
  const main = quantize(m.w);
  const iq = quantize(intent.w);
  const quantized: LinearModel = { mask: BUCKETS - 1, bias: m.bias, weight: (i) => main.q[i]! * main.scale };
  let trainFp = 0;
  let trainNeg = 0;
  for (const p of data) if (!p.ex.threat) { trainNeg++; if (scoreWindows(p.lower, quantized, t).length) trainFp++; }
  console.log(`\nfinal model: ${trainFp}/${trainNeg} training benign lines above the threshold (quantised weights)`);

  const weights = pack(main.q);
  const intentWeights = pack(iq.q);
  // everything that moves a verdict goes into the version (stored verdicts are keyed by it): the weights, the threshold,
  // the biases and the gates (two configurations can train the same weights and choose different gates)
  // (the gates weights.ts lists: the decisive ones, −∞, are left out there and here)
  const gateKey = JSON.stringify(Object.entries(gates.gates).filter(([, v]) => v !== -Infinity).sort().map(([id, v]) => [id, String(v)]));
  const version = createHash('sha256').update(weights).update(intentWeights).update(String(t)).update(String(m.bias)).update(String([...intent.bias])).update(gateKey).digest('hex').slice(0, 12);
  const counts = Object.fromEntries([...sources].map(([k, v]) => [k, v]));
  // The data file: the main weights, then the intent weights (raw int8: read without inflating, compressed in the .vsix).
  const modelData = Buffer.concat([bytesOf(main.q), bytesOf(iq.q)]);
  const sha256 = createHash('sha256').update(modelData).digest('hex');
  const body = `// Generated by scripts/threat-train/train.ts (npm run train:threat). Do not edit: retrain instead.
// Logistic regression over ${BUCKETS} hashed features and an intent model (${INTENTS.length} intents × ${INTENT_BUCKETS} buckets); their
// int8 weights are the data file ${DATA_FILE} (${modelData.length} bytes), read on first use. Trained on: ${JSON.stringify(counts)}.
export const MODEL = {
  version: '${version}',
  buckets: ${BUCKETS},
  scale: ${main.scale},
  bias: ${m.bias},
  threshold: ${t},
  // the model score a text needs for a pattern rule's or intent lexicon's finding to count (absent: decisive)
  gates: {${Object.entries(gates.gates).filter(([, v]) => v !== -Infinity).sort().map(([id, v]) => `\n    '${id}': ${v === Infinity ? 'Infinity' : v},`).join('')}\n  } as Readonly<Record<string, number>>,
  intentBuckets: ${INTENT_BUCKETS},
  intentShift: ${INTENT_SHIFT},
  intentScale: ${iq.scale},
  intentBias: [${[...intent.bias].join(', ')}],
  // the weights: ${main.q.length} bytes of the main model, then ${iq.q.length} of the intent model
  data: { file: '${DATA_FILE}', bytes: ${modelData.length}, sha256: '${sha256}' },
} as const;
`;
  const out = ARGS.out ? resolve(ARGS.out) : join(ROOT, 'src/server/core/threat/model/weights.ts');
  const dataOut = join(dirname(out), DATA_FILE);
  writeFileSync(dataOut, modelData);
  writeFileSync(out, body);
  console.log(`wrote ${out} and ${dataOut}: model ${version}, ${modelData.length} bytes of weights`);
}

/**
 * `--quick-eval`: the learned stage alone, trained on everything, read on labelled files (eval format, plain or gzipped).
 * At each level (0.5/1/2/5%) the threshold is the highest of the files' scores that put that share of the file's benign
 * lines above them (every file within the budget); every file prints its recall and false-positive rate there.
 */
function quickEval(data: readonly Prepared[], files: readonly string[]): void {
  const m = trainBinary(data, SEED).linear();
  const LEVELS = [0.005, 0.01, 0.02, 0.05];
  const sets = files.map((file) => {
    const rows = readJsonl(resolve(file)).filter((r) => r.policy !== true);
    const scored = rows.map((r) => ({ threat: r.label === 'threat', score: maxWindowScore(lowerSameLength(normalizeForMatching(String(r.text)).text), m) }));
    return { file, benign: scored.filter((r) => !r.threat).map((r) => r.score).sort((a, b) => b - a), attacks: scored.filter((r) => r.threat).map((r) => r.score) };
  });
  // the strictest file decides: every file's benign lines within the level
  const thresholds = LEVELS.map((q) => Math.max(...sets.filter((s) => s.benign.length).map((s) => (s.benign[Math.floor(s.benign.length * q)] ?? -Infinity) + 1e-9)));
  // and the chance an attack of the first file outscores a benign line of each file (threshold-free)
  const auc = (attacks: readonly number[], benign: readonly number[]): string => {
    let a = 0;
    for (const x of attacks) for (const y of benign) a += x > y ? 1 : x === y ? 0.5 : 0;
    return (a / (attacks.length * benign.length)).toFixed(4);
  };
  console.log(`AUC of ${sets[0]!.file}'s attacks against: ${sets.filter((s) => s.benign.length).map((s) => `${s.file} ${auc(sets[0]!.attacks, s.benign)}`).join(', ')}`);
  for (const { file, benign, attacks } of sets) {
    const cells = thresholds.map((t, i) => `${LEVELS[i]}: ${attacks.length ? `recall ${(attacks.filter((s) => s >= t).length / attacks.length).toFixed(3)} ` : ''}fpr ${(benign.filter((s) => s >= t).length / Math.max(1, benign.length)).toFixed(4)}`);
    console.log(`${file} (${attacks.length} attacks, ${benign.length} benign) | ${cells.join(' | ')}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
