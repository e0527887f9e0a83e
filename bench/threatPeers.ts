/**
 * Peer threat scanners beside ours on the labelled JSONL sets, all scored in one process:
 *
 *   node --import tsx bench/threatPeers.ts [set.jsonl …]     (no arguments: the default sets below)
 *   (or through bench/index.ts → runThreatPeersBench(defaultPeerSets()))
 *
 * Scoring is the one of src/server/core/threat/evaluate.ts and /work/shared/threat-eval/score.mjs: headline recall
 * over threat lines except bucket `paraphrase_stretch` and `policy: true` lines (both shown apart), FPR over
 * benign lines: `evaluate()` with each scanner as its judge. Ours comes in as a parameter (`oursFlag` by
 * default, both stages).
 *
 * Peers, each asked "would you flag this text?":
 * - agent-threat-rules (ATR, v4): `new ATREngine({ lane })`, `loadRules()` (the bundled YAML rules), then
 *   `evaluate({ type: 'tool_response', content })`. Flagged = any match at any severity. `tool_response` is
 *   ATR's indirect-injection channel (text the model reads but nobody typed), which is what stored project
 *   knowledge is: it runs the llm_io and mcp_exchange rules and resolves their fields to the text. Two lanes:
 *   `hunt` (ATR's default, every non-deprecated/non-draft rule) and `enforce` (maturity: stable only, the
 *   lane ATR recommends for blocking).
 * - vard (1.2): `vard.strict()` (threshold 0.5, every threat type set to block), `safeParse(text)`;
 *   flagged = `safe === false` (what `parse` would throw on). maxLength is raised so a long note is not
 *   "blocked" for its length alone.
 *
 * Items per second: the scoring pass is the warm-up; then the set is timed again (passes repeated until
 * ≥ 200 ms for the fast scanners). ATR is tens of ms per item, so its timing uses the first
 * ATR_TIMING_CAP lines only (said in the printout); its scores always use every line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { evaluate, parseLabelled, type LabelledLine } from '../src/server/core/threat/evaluate';
import { scanText } from '../src/server/core/threat/threatScanner';

/** Would this scanner flag the text? */
export type Flagger = (text: string) => boolean;

/** Ours: flagged = scanText has at least one finding. Pass another Flagger to measure a later pipeline. */
export function oursFlag(text: string): boolean {
  return scanText(text).length > 0;
}

export interface PeerSet {
  name: string;
  /** JSONL, or gzipped JSONL when it ends in `.gz`. */
  path: string;
  /** Also print each scanner's FPR per value of this field of the lines (e.g. `source` for a real-text set). */
  by?: string;
}

/** A labelled set's text (gunzipped when the file is `.gz`). */
export function readSet(path: string): string {
  const bytes = readFileSync(path);
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

interface Scanner {
  name: string;
  flag: Flagger;
  /** Time only this many lines (the scores still use all of them). */
  timingCap?: number;
}

const ATR_TIMING_CAP = 100;
const MIN_TIMED_MS = 200;

/** The sets `npm run bench` scores: the held-out blind set (ours' generalisation figure), and two sets ours trained on. */
export function defaultPeerSets(): PeerSet[] {
  const root = resolve(__dirname, '..');
  return [
    { name: 'threat-training/former-blind-set1.jsonl — ours trained on it (in-sample)', path: resolve(root, 'test/fixtures/threat-training/former-blind-set1.jsonl') },
    { name: 'threat-training/former-blind-set2.jsonl — ours trained on it since set3 was scored (in-sample)', path: resolve(root, 'test/fixtures/threat-training/former-blind-set2.jsonl') },
    { name: 'threat-training/former-blind-set3.jsonl — ours trained on it since set4 was scored (in-sample)', path: resolve(root, 'test/fixtures/threat-training/former-blind-set3.jsonl') },
    { name: 'threat-training/former-blind-set4.jsonl — ours trained on it since set5 was scored (in-sample)', path: resolve(root, 'test/fixtures/threat-training/former-blind-set4.jsonl') },
    { name: 'threat-blind/set5.jsonl — not trained on; the fourth round read its scores while choosing (development set)', path: resolve(root, 'test/fixtures/threat-blind/set5.jsonl') },
    { name: 'threat-blind/set6.jsonl — held out (never trained or tuned on)', path: resolve(root, 'test/fixtures/threat-blind/set6.jsonl') },
    { name: 'threat-blind/set7.jsonl — held out (never trained or tuned on)', path: resolve(root, 'test/fixtures/threat-blind/set7.jsonl') },
    { name: 'threat-blind/set8.jsonl — held out (never trained or tuned on; written after the last change)', path: resolve(root, 'test/fixtures/threat-blind/set8.jsonl') },
    { name: 'dev.jsonl — ours trained on it (in-sample)', path: resolve(root, 'scripts/threat-train/data/dev.jsonl') },
    {
      name: 'threat-realtext/heldout.jsonl.gz — real documentation, tldr pages, e-mails and Q&A answers nobody wrote for a scanner (held out by source: never trained or tuned on)',
      path: resolve(root, 'test/fixtures/threat-realtext/heldout.jsonl.gz'),
      by: 'source',
    },
  ];
}

let peersPromise: Promise<Scanner[]> | undefined;

/** ATR (two lanes) and vard, loaded once per process (both packages are ESM-only, hence the dynamic import). */
function peers(): Promise<Scanner[]> {
  peersPromise ??= (async () => {
    const { ATREngine } = await import('agent-threat-rules');
    const { vard } = await import('@andersmyrmel/vard');
    const atr = async (lane: 'hunt' | 'enforce'): Promise<Scanner> => {
      const engine = new ATREngine({ lane });
      await engine.loadRules();
      // The rules that can fire on a tool_response event in this lane (the engine's own gates, restated for the label).
      const eligible = engine
        .getRules()
        .filter(
          (r) =>
            r.status !== 'deprecated' &&
            r.status !== 'draft' &&
            String(r.maturity ?? '').trim() !== 'deprecated' &&
            (lane === 'hunt' || (String(r.maturity ?? '').trim() === 'stable' && r.confirm !== 'embedding')) &&
            (r.agent_source.type === 'llm_io' || r.agent_source.type === 'mcp_exchange'),
        ).length;
      const timestamp = new Date(0).toISOString();
      return {
        name: `ATR ${lane} lane (${eligible} rules), any match`,
        flag: (text) => engine.evaluate({ type: 'tool_response', timestamp, content: text }).length > 0,
        timingCap: ATR_TIMING_CAP,
      };
    };
    const strict = vard.strict().maxLength(Number.MAX_SAFE_INTEGER);
    return [
      await atr('hunt'),
      await atr('enforce'),
      { name: 'vard strict', flag: (text: string) => !strict.safeParse(text).safe },
    ];
  })();
  return peersPromise;
}

/** Items per second over `texts`, after the caller's warm-up; passes repeated until MIN_TIMED_MS (at least one). */
function itemsPerSecond(texts: readonly string[], flag: Flagger, minMs: number): number {
  let items = 0;
  const t0 = performance.now();
  let elapsed = 0;
  do {
    for (const t of texts) flag(t);
    items += texts.length;
    elapsed = performance.now() - t0;
  } while (elapsed < minMs);
  return (items / elapsed) * 1000;
}

const ratio = (k: number, n: number): string => (n ? `${(k / n).toFixed(3)} (${k}/${n})` : '-');
const rate = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

/** One markdown table per set: ours and the peers side by side. Missing sets are skipped with a line. */
export async function runThreatPeersBench(sets: PeerSet[], ours: Flagger = oursFlag): Promise<void> {
  console.log('\n## Threat scanners: ours vs peers\n');
  console.log('headline recall = threat lines except `paraphrase_stretch` and policy lines; FPR over benign lines.');
  console.log("Ours' generalisation figures are the held-out sets (threat-blind/set6, set7 and set8, and the real text held out by source); on the sets it trained on, ours' figures are in-sample.");
  console.log('ATR = agent-threat-rules, each text as a `tool_response` event, flagged on any match at any severity; vard = `vard.strict()`, flagged when it would block.');
  const present = sets.filter((s) => existsSync(s.path));
  for (const s of sets) if (!present.includes(s)) console.log(`\n(skipped ${s.name}: not found at ${s.path})`);
  if (!present.length) return;
  const scanners: Scanner[] = [{ name: 'ours', flag: ours }, ...(await peers())];
  for (const set of present) {
    const lines = parseLabelled(readSet(set.path));
    const texts = lines.map((l) => l.text);
    console.log(`\n### ${set.name} (${lines.length} lines)\n`);
    console.log('| scanner | headline recall | FPR | stretch | policy | items/s |');
    console.log('|---|---|---|---|---|---|');
    let anyCapped = false;
    for (const sc of scanners) {
      const s = evaluate(lines, (text) => (sc.flag(text) ? [sc.name] : [])); // also the warm-up pass for the timing below
      const timed = sc.timingCap !== undefined && sc.timingCap < texts.length ? texts.slice(0, sc.timingCap) : texts;
      const ips = itemsPerSecond(timed, sc.flag, sc.timingCap !== undefined ? 0 : MIN_TIMED_MS);
      const onePass = sc.timingCap !== undefined;
      anyCapped ||= onePass;
      console.log(
        `| ${sc.name} | ${ratio(s.headline.caught, s.headline.n)} | ${ratio(s.benign.flagged, s.benign.n)} | ${s.stretch.caught}/${s.stretch.n} | ${s.policy.caught}/${s.policy.n} | ${rate(ips)}${onePass ? '*' : ''} |`,
      );
    }
    if (set.by) byField(lines, set.by, scanners);
    const cap = Math.min(ATR_TIMING_CAP, texts.length);
    if (anyCapped) console.log(`\n\\* items/s from one pass over the first ${cap} of ${texts.length} lines (ATR is slow); scores use every line.`);
  }
}

/** Each scanner's false-positive rate on the benign lines, per value of `field` (one column per scanner). */
function byField(lines: readonly LabelledLine[], field: string, scanners: readonly Scanner[]): void {
  const benign = lines.filter((l) => l.label === 'benign');
  const groups = [...new Set(benign.map((l) => String((l as unknown as Record<string, unknown>)[field])))].sort();
  console.log(`\nFPR by ${field}:\n\n| ${field} | lines | ${scanners.map((s) => s.name).join(' | ')} |\n|---|---|${scanners.map(() => '---|').join('')}`);
  for (const g of groups) {
    const rows = benign.filter((l) => String((l as unknown as Record<string, unknown>)[field]) === g);
    console.log(`| ${g} | ${rows.length} | ${scanners.map((s) => ratio(rows.filter((l) => s.flag(l.text)).length, rows.length)).join(' | ')} |`);
  }
}

if (typeof module !== 'undefined' && require.main === module) {
  const args = process.argv.slice(2);
  const sets = args.length ? args.map((p) => ({ name: p, path: resolve(p) })) : defaultPeerSets();
  runThreatPeersBench(sets).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
