/**
 * kill -9 while writing: no acknowledged write is lost, in the sessions store (session service over
 * JsonDocument) and in memory's JSONL file. A seeded sample here (the kill moments come from the seed);
 * `npm run bench` runs 1,000 acknowledged writes per store. See test/helpers/crashCampaign.ts.
 * Replay the kill schedule: `SK_FUZZ_SEED=<seed> node --import tsx --test test/unit/crashRecovery.test.ts`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFileLock } from '../../src/server/core/store/atomicFile';
import { runKillCampaign, type StoreUnderTest } from '../helpers/crashCampaign';
import { fuzzCount, fuzzSeed } from '../helpers/hostile';

for (const store of ['sessions', 'memory'] as StoreUnderTest[]) {
  test(`kill -9 during acknowledged writes to the ${store} store: none lost, the file loads`, { timeout: 180_000 }, async (t) => {
    const seed = fuzzSeed();
    t.diagnostic(`seed ${seed} (replay: SK_FUZZ_SEED=${seed})`);
    const r = await runKillCampaign({ store, target: fuzzCount('SK_KILL_WRITES', 100), seed, maxDelayMs: 500 });
    const line = `${store}: ${r.acknowledged} acknowledged writes, ${r.kills} kill -9, ${r.lost} lost, ${r.torn} torn lines (unacknowledged, kept and reported), ${r.unacknowledgedOnDisk} unacknowledged writes on disk, ${r.lockTimeouts} lock timeouts after a kill (seed ${r.seed}, ${(r.ms / 1000).toFixed(1)} s)`;
    t.diagnostic(line);
    console.log(`[kill-9] ${line}`);
    assert.equal(r.lost, 0);
    assert.ok(r.kills > 0, 'the writer was killed at least once');
  });
}

// Known bug, reported (src/server/core/store/atomicFile.ts): `withFileLock` creates the lock file, then writes its pid
// into it. A writer killed in between leaves an EMPTY lock, which is neither "owner gone" nor stale until 15 s,
// so the next writer's 10 s wait runs out and its write is refused. Seen in the kill -9 runs above
// (`lock timeouts after a kill`). Fixed: the lock is now created with its owner in it (a hard link of a complete
// file), and an empty lock left by an older version is broken after 1 s.
test('an empty lock left by a writer killed while taking it is broken at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sk-empty-lock-'));
  const target = join(dir, 'doc.json');
  writeFileSync(`${target}.lock`, '');
  assert.equal(await withFileLock(target, async () => 42, { timeoutMs: 3_000 }), 42);
});
