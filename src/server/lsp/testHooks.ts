/**
 * Test hooks of the server, honoured only when `SK_TEST_HOOKS=1` (never in production): a delay before every
 * routed request, to show that a slow or unresponsive server never blocks a chat send.
 * - `SK_TEST_SLOW_MS`: the delay in milliseconds;
 * - `SK_TEST_SLOW_FILE`: a file holding the delay, read at each request, so a running test can turn it on and off.
 */
import { readFileSync } from 'node:fs';

export function testDelayMs(): number {
  if (process.env.SK_TEST_HOOKS !== '1') return 0;
  let value = process.env.SK_TEST_SLOW_MS ?? '';
  const file = process.env.SK_TEST_SLOW_FILE;
  if (file) {
    try {
      value = readFileSync(file, 'utf8').trim();
    } catch {
      /* no file: no delay */
    }
  }
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}
