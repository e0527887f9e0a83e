/**
 * A first `@knowledge` message over the real language server (dist/server.js; run `npm run build` first): durable
 * writes in the server process, round trips and store-changed notifications, as the participant sends it (create,
 * resolve fitted to the model's own count, record). Target (issue 24): at most 2 writes (create, record) and at most
 * 3 round trips. The "main" columns were measured with the same harness on main before issue 24 (commit b55b0c8:
 * resolve recorded its figures with a write, and a model counting more than the estimate made the client resolve
 * again); a count cannot be re-measured on code that is gone, so they are printed as recorded.
 *
 * Runnable alone: `node --import tsx bench/firstMessage.ts`.
 */
import { measureFirstMessage, type FirstMessageOptions } from '../test/helpers/firstMessage';
import { printTable } from './harness';

const CASES: { name: string; options: FirstMessageOptions; main: { writes: number; roundTrips: number; storeChanged: number } }[] = [
  { name: 'pins named in the create (API, dispatch)', options: { modelCharsPerToken: 4, budgetTokens: 8000, noteChars: 2000, draft: false }, main: { writes: 3, roundTrips: 3, storeChanged: 2 } },
  { name: 'chat taking over a next-chat draft', options: { modelCharsPerToken: 4, budgetTokens: 8000, noteChars: 2000, draft: true }, main: { writes: 4, roundTrips: 3, storeChanged: 2 } },
  { name: 'draft, model counting 2x the estimate, over budget', options: { modelCharsPerToken: 2, budgetTokens: 1000, noteChars: 3000, draft: true }, main: { writes: 5, roundTrips: 4, storeChanged: 2 } },
];

export async function runFirstMessageBench(): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const c of CASES) {
    const now = await measureFirstMessage(c.options);
    rows.push([c.name, c.main.writes, now.writes, c.main.roundTrips, now.roundTrips, c.main.storeChanged, now.storeChanged, '<= 2 writes, <= 3 round trips']);
  }
  printTable(
    'First @knowledge message over the real server: fsync\'d writes, round trips, store-changed notifications (main = before issue 24, same harness)',
    ['case', 'writes main', 'writes now', 'round trips main', 'round trips now', 'store-changed main', 'store-changed now', 'target'],
    rows,
  );
}

if (require.main === module) void runFirstMessageBench();
