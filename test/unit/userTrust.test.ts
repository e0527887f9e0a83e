/**
 * The person's own record of trust (`src/server/core/review/userTrust.ts`), on real files in temp folders: records forged
 * or edited on disk are ignored, the key is private (0600), two processes adding at once lose nothing, another
 * repository's folder never matches, and `since` is set once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UserTrustStore, type NewTrustRecord } from '../../src/server/core/review/userTrust';

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const rec = (folder: string, id: string, extra: Partial<NewTrustRecord> = {}): NewTrustRecord => ({ kind: 'review', folder, id, revision: 'a'.repeat(64), rulesetVersion: 'r1', how: 'self', by: 'me', ...extra });

test('a record verifies; one edited on disk, or written without the key, is ignored and counted', async () => {
  const dir = temp('sk-trust-');
  const ws = temp('sk-trust-ws-');
  const store = new UserTrustStore(dir);
  await store.add([rec(ws, 'notes/a.md'), rec(ws, 'notes/b.md')]);
  assert.ok(store.has(rec(ws, 'notes/a.md')));

  const path = join(dir, 'records.json');
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { records: { id: string; revision: string; mac: string }[] };
  // Edited: the same MAC on another revision. Forged: a record a repository could write, with a made-up MAC.
  doc.records[1]!.revision = 'b'.repeat(64);
  doc.records.push({ ...doc.records[0]!, id: 'notes/forged.md', mac: '0'.repeat(64) });
  writeFileSync(path, JSON.stringify(doc));
  const fresh = new UserTrustStore(dir);
  await fresh.load();
  assert.ok(fresh.has(rec(ws, 'notes/a.md')));
  assert.ok(!fresh.has(rec(ws, 'notes/b.md', { revision: 'b'.repeat(64) })));
  assert.ok(!fresh.has(rec(ws, 'notes/forged.md')));
  assert.equal(fresh.rejected, 2);

  // Another machine's key (the records copied, not the key): nothing verifies.
  const other = temp('sk-trust-other-');
  writeFileSync(join(other, 'records.json'), readFileSync(path));
  const copied = new UserTrustStore(other);
  await copied.add([rec(ws, 'x')]);
  assert.ok(!copied.has(rec(ws, 'notes/a.md')));
});

test('the key is 0600 in a 0700 folder', async () => {
  const dir = join(temp('sk-trust-'), 'trust');
  await new UserTrustStore(dir).add([rec(temp('sk-trust-ws-'), 'x')]);
  assert.equal(statSync(join(dir, 'key')).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
});

test("another repository's folder never matches the same id, revision and rule set", async () => {
  const dir = temp('sk-trust-');
  const mine = temp('sk-trust-ws-');
  const theirs = temp('sk-trust-ws-');
  const store = new UserTrustStore(dir);
  await store.add([rec(mine, '.knowledge/notes/a.md')]);
  assert.ok(store.has(rec(mine, '.knowledge/notes/a.md')));
  assert.ok(!store.has(rec(theirs, '.knowledge/notes/a.md')));
  assert.deepEqual(store.ofFolder(theirs), []);
  // The same folder by another spelling (a link to it) is the same folder.
  const link = join(temp('sk-trust-link-'), 'ws');
  symlinkSync(mine, link);
  assert.ok(store.has(rec(link, '.knowledge/notes/a.md')));
});

test('two processes adding at once lose nothing; refresh sees what the other wrote', async () => {
  const dir = temp('sk-trust-');
  const ws = temp('sk-trust-ws-');
  const script = (tag: string) =>
    `const { UserTrustStore } = require(${JSON.stringify(resolve(__dirname, '../../src/server/core/review/userTrust.ts'))});
(async () => { const s = new UserTrustStore(${JSON.stringify(dir)}); for (let i = 0; i < 15; i++) await s.add([{ kind: 'review', folder: ${JSON.stringify(ws)}, id: '${tag}-' + i, revision: 'r', rulesetVersion: 'v', how: 'self', by: 'me' }]); })().catch((e) => { console.error(e); process.exit(1); });`;
  const run = (tag: string) =>
    new Promise<number>((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', script(tag)], { stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('exit', (code) => done(code ?? 1));
    });
  const reader = new UserTrustStore(dir);
  await reader.load();
  assert.deepEqual(await Promise.all([run('a'), run('b')]), [0, 0]);
  assert.equal(await reader.refresh(), true);
  assert.equal(reader.ofFolder(ws).length, 30);
  assert.equal(reader.rejected, 0, 'one key: both processes agreed on the first written');
});

test('since is set once and kept; a folder is migrated once', async () => {
  const dir = temp('sk-trust-');
  const store = new UserTrustStore(dir);
  await store.load();
  const first = await store.since();
  await new Promise((r) => setTimeout(r, 20));
  const again = new UserTrustStore(dir);
  await again.load();
  assert.equal((await again.since()).getTime(), first.getTime());
  const ws = temp('sk-trust-ws-');
  mkdirSync(join(ws, 'x'));
  assert.equal(again.isMigrated(ws), false);
  await again.markMigrated(ws);
  assert.equal(again.isMigrated(ws), true);
  assert.equal(again.isMigrated(join(ws, 'x')), false);
});
