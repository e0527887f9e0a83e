/**
 * Project memory counts as approved only with this person's own approval (memory/approvals.ts): the block's memoised
 * memory index follows this person's record (an acceptance shows at once, for the same session), and a record made
 * for one folder never approves the same id in another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryService } from '../../src/server/core/memory/memoryService';
import { UserTrustStore } from '../../src/server/core/review/userTrust';
import { defaultScan } from '../../src/server/core/threat/judgement';
import type { ThreatFinding } from '../../src/server/core/threat/threatScanner';

const at = '2026-05-01T10:00:00.000Z';
const line = (id: string, title: string) => JSON.stringify({ id, scope: 'project', type: 'fact', title, body: '', provenance: { sourceKind: 'human', identity: 'mallory', at }, trust: { state: 'approved', approvedBy: 'mallory', approvedAt: at }, createdAt: at, updatedAt: at });

function service(root: string, folder: string, trust: UserTrustStore): MemoryService {
  mkdirSync(join(folder, '.knowledge'), { recursive: true });
  return new MemoryService({ workspaceFolder: folder, globalStoragePath: join(root, 'global'), scan: (t) => defaultScan(t) as readonly ThreatFinding[], reviews: null, userTrust: trust });
}

test('the memoised index follows this person\'s record: accepted, the entry is in the same session\'s next index', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sk-approvals-unit-'));
  const trust = new UserTrustStore(join(root, 'state', 'trust'));
  const ws = join(root, 'ws');
  const memory = service(root, ws, trust);
  writeFileSync(join(ws, '.knowledge', 'memory.jsonl'), `${line('mem_a', 'Builds use pnpm')}\n`);
  await memory.configure({ on: true });
  assert.deepEqual((await memory.indexFor('chat:1'))!.map((l) => l.id), []);
  assert.equal((await memory.inboxCounts()).fromRepository, 1);
  assert.deepEqual((await memory.approveItems(['mem_a'])).done.map((e) => e.id), ['mem_a']);
  assert.deepEqual((await memory.indexFor('chat:1'))!.map((l) => l.id), ['mem_a']);
  assert.equal((await memory.inboxCounts()).total, 0);
});

test('an approval recorded for one folder does not approve the same id and text committed in another', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sk-approvals-unit-'));
  const trust = new UserTrustStore(join(root, 'state', 'trust'));
  const a = service(root, join(root, 'a'), trust);
  writeFileSync(join(root, 'a', '.knowledge', 'memory.jsonl'), `${line('mem_same', 'Builds use pnpm')}\n`);
  await a.configure({ on: true });
  await a.acceptRepository();
  assert.deepEqual((await a.recall({ query: 'pnpm' })).map((e) => e.id), ['mem_same']);
  const b = service(root, join(root, 'b'), new UserTrustStore(join(root, 'state', 'trust')));
  writeFileSync(join(root, 'b', '.knowledge', 'memory.jsonl'), `${line('mem_same', 'Builds use pnpm')}\n`);
  await b.configure({ on: true });
  assert.deepEqual(await b.recall({ query: 'pnpm' }), []);
});
