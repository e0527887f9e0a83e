/**
 * Hostile webview messages to the knowledge panel's real host (run in node with a stubbed `vscode`, the real
 * language server behind it): one `invalid-message` answer each, nothing changes, the host keeps answering.
 * See test/helpers/hostilePanel.ts. Replay a failure: `SK_FUZZ_SEED=<seed> node --import tsx --test test/protocol/hostilePanel.test.ts`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzCount, fuzzSeed } from '../helpers/hostile';
import { runPanelCampaign } from '../helpers/hostilePanel';

test('hostile webview messages to every panel method: invalid-message each time, nothing changes, the host keeps answering', { timeout: 120_000 }, async (t) => {
  const seed = fuzzSeed();
  t.diagnostic(`seed ${seed} (replay: SK_FUZZ_SEED=${seed})`);
  const r = await runPanelCampaign({ seed, invalid: fuzzCount('SK_FUZZ_INVALID', 10_000), valid: fuzzCount('SK_FUZZ_VALID', 300) });
  const line = `${r.invalid + r.valid} hostile webview messages to ${r.methods} panel methods (seed ${r.seed}): ${r.invalid} invalid (${r.envelope} envelopes, ${r.params} params, ≥ ${r.minPerMethod} per method) → one invalid-message answer each (${r.unnamed} without a field name), no request to the server, no state written, files byte-identical; ${r.valid} schema-valid → ${r.validOk} ok, refused ${JSON.stringify(r.validRefused)}, 0 programming errors; ${(r.ms / 1000).toFixed(1)} s`;
  t.diagnostic(line);
  console.log(`[hostile-panel] ${line}`);
  assert.ok(r.minPerMethod > 0, 'every panel method received invalid messages');
});
