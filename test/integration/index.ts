/**
 * Test runner loaded by VS Code's extension host (the payload's `extensionTestsPath`): VS Code calls
 * `run()` and treats a rejected promise as a failed run. Mocha with the tdd ui (`suite`/`test`).
 *
 * Phase 1 (SK_TEST_PHASE unset or 1) runs every `*.test.js` beside this file (recursively);
 * phase 2 (SK_TEST_PHASE=2, a fresh extension host on the same user-data-dir and workspace) runs
 * `*.restart.test.js`. SK_TEST_GREP filters tests by title. Zero tests is a failure unless
 * SK_TEST_ALLOW_EMPTY=1 (set by the launcher when --grep is given: it checks the total itself).
 * The last line is `SK_MOCHA_RESULT {json}`, which scripts/run-vscode-tests.mjs parses for its counts.
 */
import Mocha from 'mocha';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';

// Mocha's reporters print with printf-style arguments; the extension host forwards console.log calls
// to the launcher without formatting them, so format here.
Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(format(...args));

/**
 * Phase 1: `*.test.js`; phase 2 (after a restart): `*.restart.test.js`; phase memory (flag set): `*.memory.test.js`;
 * phase flag0 (flag `0`, a folder without .knowledge/): `*.flag0.test.js`; phase mrbefore (the multi-root fixture's
 * first folder alone): `*.mrbefore.test.js`; phase multiroot (its .code-workspace): `*.multiroot.test.js`; phases
 * synca and syncb (two user-data folders, personal memory through Settings Sync): `*.synca.test.js`, `*.syncb.test.js`;
 * phase restricted (an untrusted folder: Restricted Mode): `*.restricted.test.js`.
 */
function matchesPhase(name: string, phase: string): boolean {
  if (phase === '2') return name.endsWith('.restart.test.js');
  if (phase === 'memory') return name.endsWith('.memory.test.js');
  if (phase === 'flag0') return name.endsWith('.flag0.test.js');
  if (phase === 'mrbefore') return name.endsWith('.mrbefore.test.js');
  if (phase === 'multiroot') return name.endsWith('.multiroot.test.js');
  if (phase === 'synca') return name.endsWith('.synca.test.js');
  if (phase === 'syncb') return name.endsWith('.syncb.test.js');
  if (phase === 'restricted') return name.endsWith('.restricted.test.js');
  return name.endsWith('.test.js') && !/\.(restart|memory|flag0|mrbefore|multiroot|synca|syncb|restricted)\.test\.js$/.test(name);
}

function findTests(dir: string, phase: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findTests(p, phase));
    else if (matchesPhase(entry.name, phase)) out.push(p);
  }
  return out.sort();
}

export async function run(): Promise<void> {
  const phase = process.env.SK_TEST_PHASE ?? '1';
  const mocha = new Mocha({
    ui: 'tdd',
    timeout: 60_000,
    reporter: 'spec', // writes through console.log, which the extension host forwards to the launcher
    color: false,
    grep: process.env.SK_TEST_GREP || undefined,
  });
  const files = findTests(__dirname, phase);
  for (const f of files) mocha.addFile(f);
  console.log(`[integration] phase ${phase}: ${files.length} test file(s) in ${__dirname}`);

  const stats = await new Promise<Mocha.Stats>((resolve, reject) => {
    try {
      const runner = mocha.run(() => resolve(runner.stats ?? ({ passes: 0, failures: 0, pending: 0, tests: 0 } as Mocha.Stats)));
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e))); // e.g. a test file that throws while loading
    }
  });
  const result = { phase, passes: stats.passes, failures: stats.failures, pending: stats.pending };
  console.log(`SK_MOCHA_RESULT ${JSON.stringify(result)}`);
  if (stats.failures > 0) throw new Error(`${stats.failures} integration test(s) failed in phase ${phase}`);
  if (stats.passes + stats.failures === 0 && process.env.SK_TEST_ALLOW_EMPTY !== '1') {
    throw new Error(`no integration tests ran in phase ${phase} (files: ${files.length})`);
  }
}
