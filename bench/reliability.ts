/**
 * Reliability figures at full count (the test suite runs seeded samples of the same code):
 *   - 10,000 hostile messages to the language server's requests, and 10,000 to the knowledge panel's host
 *     (test/helpers/hostileServer.ts, hostilePanel.ts): no crash, nothing changed by invalid input, a clear error each time;
 *   - kill -9 during 1,000 acknowledged writes, per store (test/helpers/crashCampaign.ts): acknowledged writes lost;
 *   - two processes writing 1,000 each at once, per store: writes kept.
 * These are counts, not timings; each prints its seed (`SK_FUZZ_SEED=<seed>` replays the generated messages and
 * the kill schedule). A figure that does not hold throws with its seed. Needs `npm run build` (dist/server.js).
 * Runnable alone: `node --import tsx bench/reliability.ts`.
 */
import { runKillCampaign, runTwoWriters, type StoreUnderTest } from '../test/helpers/crashCampaign';
import { fuzzCount, fuzzSeed } from '../test/helpers/hostile';
import { runPanelCampaign } from '../test/helpers/hostilePanel';
import { runServerCampaign } from '../test/helpers/hostileServer';
import { printTable } from './harness';

const HOSTILE = fuzzCount('BENCH_HOSTILE', 10_000);
const WRITES = fuzzCount('BENCH_KILL_WRITES', 1_000);
const PER_WRITER = fuzzCount('BENCH_WRITERS', 1_000);

export async function runReliabilityBench(): Promise<void> {
  const rows: (string | number)[][] = [];
  const seed = fuzzSeed();
  console.log(`\nReliability (seed ${seed}; replay with SK_FUZZ_SEED=${seed})`);

  /** One figure: its row, or the failure with its seed (and the bench goes on to the next). */
  const figure = async (name: string, count: () => Promise<[string, string]>) => {
    try {
      rows.push([name, ...(await count())]);
    } catch (err) {
      process.exitCode = 1;
      rows.push([name, 'FAILED', (err as Error).message.split('\n')[0]!.slice(0, 300)]);
    }
  };

  await figure('hostile messages → language-server requests', async () => {
    const s = await runServerCampaign({ seed, invalid: HOSTILE, valid: 1_000, raw: 1_000 });
    return [
      (s.invalid + s.valid + s.raw).toLocaleString('en'),
      `${s.requests} requests; ${s.invalid.toLocaleString('en')} invalid (≥ ${s.minPerRequest}/request): all InvalidParams naming the field, files byte-identical; ${s.valid} schema-valid: ${s.validAnswered} answered, ${s.validRefused} refused (untyped InternalError: ${JSON.stringify(s.untyped)}); ${s.raw} raw JSON-RPC; server up`,
    ];
  });
  await figure('hostile messages → panel host', async () => {
    const p = await runPanelCampaign({ seed, invalid: HOSTILE, valid: 1_000 });
    return [
      (p.invalid + p.valid).toLocaleString('en'),
      `${p.methods} methods; ${p.invalid.toLocaleString('en')} invalid (${p.envelope} envelopes, ${p.params} params): all invalid-message, ${p.unnamed} naming no field; nothing sent, written or opened; ${p.valid} schema-valid: ${p.validOk} ok, refused ${JSON.stringify(p.validRefused)}`,
    ];
  });
  for (const store of ['sessions', 'memory'] as StoreUnderTest[]) {
    await figure(`kill -9 during writes, ${store}`, async () => {
      const k = await runKillCampaign({ store, target: WRITES, seed, maxDelayMs: 800 });
      return [`${k.acknowledged.toLocaleString('en')} acked`, `${k.lost} lost; ${k.kills} kills; ${k.torn} torn lines; ${k.unacknowledgedOnDisk} unacked on disk; ${k.lockTimeouts} lock timeouts after a kill`];
    });
  }
  for (const store of ['sessions', 'memory'] as StoreUnderTest[]) {
    await figure(`two processes × ${PER_WRITER.toLocaleString('en')} writes, ${store}`, async () => {
      const w = await runTwoWriters({ store, perWriter: PER_WRITER });
      return [`${w.kept.toLocaleString('en')} kept`, `of ${(2 * w.perWriter).toLocaleString('en')}; ${(w.ms / 1000).toFixed(1)} s`];
    });
  }
  printTable('Reliability figures (counts, same run)', ['case', 'count', 'result'], rows);
}

if (require.main === module) void runReliabilityBench();
