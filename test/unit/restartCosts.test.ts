/**
 * Costs that do not grow with history, on real files: scan verdicts kept across a restart (and thrown away whole
 * when the rule set changes), the first block not waiting for memory's full load, a reader catching up on another
 * process's append by reading only the tail, and the memoised index and block.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryService, memoryPaths } from '../../src/server/core/memory/memoryService';
import { JsonlScopeFile } from '../../src/server/core/memory/jsonlStore';
import { VerdictStore } from '../../src/server/core/threat/verdictStore';
import { BlockMemo, type PinnedContent } from '../../src/server/core/delivery/knowledgeBlock';
import { sameExceptNonce } from '../../src/server/core/threat/envelope';
import { RULESET_VERSION, type ThreatFinding } from '../../src/server/core/threat/threatScanner';
import type { BlockFinding } from '../../src/server/core/delivery/knowledgeBlock';
import { storedLine } from './memoryLines';

function dirs(): { workspace: string; storage: string; verdicts: string } {
  const root = mkdtempSync(join(tmpdir(), 'sk-restart-'));
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.knowledge'), { recursive: true });
  return { workspace, storage: join(root, 'global'), verdicts: join(root, 'global', 'verdicts.json') };
}

/** A scan that counts its calls and flags text containing EVIL. */
function countingScan(): { scan: (t: string) => readonly BlockFinding[] & never[]; calls: () => number } {
  let calls = 0;
  const scan = (t: string) => {
    calls += 1;
    const at = t.indexOf('EVIL');
    return (at < 0 ? [] : [{ ruleId: 'test.evil', category: 'instruction', severity: 'high', message: 'evil', start: at, end: at + 4 }]) as never;
  };
  return { scan, calls: () => calls };
}

function writeProject(workspace: string, n: number): void {
  const lines = Array.from({ length: n }, (_, i) => storedLine(`m${i}`, i === 3 ? 'EVIL entry' : `Entry ${i}`, { importance: 'high' }));
  writeFileSync(memoryPaths(workspace, '/unused').project!, `${lines.join('\n')}\n`);
}

async function open(d: ReturnType<typeof dirs>, scan: ReturnType<typeof countingScan>['scan']): Promise<MemoryService> {
  const m = new MemoryService({ workspaceFolder: d.workspace, globalStoragePath: d.storage, scan, reviews: null, verdictsPath: d.verdicts });
  await m.configure({ on: true });
  return m;
}

test('a restart with nothing changed judges nothing again; a changed entry is judged; a rule-set change judges everything', async () => {
  const d = dirs();
  writeProject(d.workspace, 50);
  const first = countingScan();
  const m1 = await open(d, first.scan);
  const index1 = (await m1.indexFor('s'))!;
  assert.equal(first.calls(), 50, 'the first start judges every entry');
  assert.ok(!index1.some((e) => e.id === 'm3'), 'the flagged entry is kept out');
  await m1.flushVerdicts();
  const stored = JSON.parse(readFileSync(d.verdicts, 'utf8')) as { rulesetVersion: string; clean: string[]; flagged: Record<string, unknown> };
  assert.equal(stored.rulesetVersion, RULESET_VERSION);
  assert.equal(stored.clean.length + Object.keys(stored.flagged).length, 50);

  const second = countingScan();
  const m2 = await open(d, second.scan);
  const index2 = (await m2.indexFor('s'))!;
  assert.equal(second.calls(), 0, 'a restart with nothing changed judges nothing');
  assert.deepEqual(index2, index1, 'and answers the same index: the flagged entry still out');

  // An entry edited on disk: only it is judged again.
  const path = memoryPaths(d.workspace, d.storage).project!;
  writeFileSync(path, readFileSync(path, 'utf8').replace('"Entry 7"', '"EVIL seven"'));
  const third = countingScan();
  const m3 = await open(d, third.scan);
  const index3 = (await m3.indexFor('s'))!;
  assert.equal(third.calls(), 1);
  assert.ok(!index3.some((e) => e.id === 'm7'), 'the edited entry is judged now, and flagged');
  await m3.flushVerdicts();

  // Verdicts of another rule set are thrown away whole.
  const file = JSON.parse(readFileSync(d.verdicts, 'utf8')) as Record<string, unknown>;
  writeFileSync(d.verdicts, JSON.stringify({ ...file, rulesetVersion: 'an-older-rule-set' }));
  const fourth = countingScan();
  const m4 = await open(d, fourth.scan);
  await m4.indexFor('s');
  assert.equal(fourth.calls(), 50, 'a rule-set change judges every entry again');
  // A malformed verdicts file is a cache miss, never an error.
  writeFileSync(d.verdicts, '{ not json');
  const fifth = countingScan();
  const m5 = await open(d, fifth.scan);
  assert.equal((await m5.indexFor('s'))!.length, index3.length);
  assert.equal(fifth.calls(), 50);
});

test('VerdictStore: saved under one rule-set version, loaded under another, answers nothing, quietly; a malformed or foreign file too', async () => {
  const d = dirs();
  const finding: ThreatFinding = { ruleId: 'x', category: 'instruction-override', severity: 'high', message: 'x', start: 0, end: 1 };
  const logs: string[] = [];
  const a = new VerdictStore(d.verdicts, (m) => logs.push(m), 'A');
  await a.save([['h1', []], ['h2', [finding]]]);
  assert.deepEqual([...(await a.load())], [['h1', []], ['h2', [finding]]]);
  const b = new VerdictStore(d.verdicts, (m) => logs.push(m), 'B');
  assert.equal((await b.load()).size, 0, 'another rule set: nothing');
  // the format before memory judged through judge(): per-field findings, never read as verdicts
  writeFileSync(d.verdicts, JSON.stringify({ format: 1, rulesetVersion: 'A', clean: ['h1'], flagged: {} }));
  assert.equal((await a.load()).size, 0, 'another format: nothing');
  // a finding of the wrong shape: the whole file is ignored, not a part of it read as clean
  writeFileSync(d.verdicts, JSON.stringify({ format: 2, rulesetVersion: 'A', clean: ['h1'], flagged: { h2: [{ ruleId: 'x' }] } }));
  assert.equal((await a.load()).size, 0, 'a malformed finding: nothing');
  writeFileSync(d.verdicts, '{ not json');
  assert.equal((await a.load()).size, 0, 'not JSON: nothing');
  assert.deepEqual(logs, [], 'a cache miss is said nowhere');
  await a.save([['h3', []]]);
  assert.deepEqual([...(await a.load())], [['h3', []]], 'and the next save rewrites it');
});

test('the first block does not wait for a full load: it goes without the memory index and says so in the log', async () => {
  const d = dirs();
  writeProject(d.workspace, 200);
  const logs: string[] = [];
  // A slow scan: 5 ms per entry, a full judgement takes about a second.
  const slow = (t: string) => {
    const until = Date.now() + 5;
    while (Date.now() < until) {
      /* busy */
    }
    return countingScan().scan(t);
  };
  const m = new MemoryService({ workspaceFolder: d.workspace, globalStoragePath: d.storage, scan: slow, reviews: null, verdictsPath: d.verdicts, log: (msg) => logs.push(msg) });
  await m.configure({ on: true });
  const started = Date.now();
  const first = await m.indexFor('s', 50);
  assert.ok(Date.now() - started < 600, `answered in ${Date.now() - started} ms, not after the full scan`);
  assert.equal(first, null, 'memory left out this time (not an empty index)');
  assert.ok(logs.some((l) => /still loading/.test(l)), logs.join('\n'));
  const later = await m.indexFor('s');
  assert.ok(later && later.length > 100, 'once loaded, the index is there');
});

test('a reader catches up on another process\'s append by reading only the appended tail', async () => {
  const d = dirs();
  const path = memoryPaths(d.workspace, d.storage).project!;
  // Over 64 KiB, so that the start of the file lies outside the tail the reader checks.
  const lines = Array.from({ length: 400 }, (_, i) => storedLine(`m${i}`, `Entry ${i}`, { body: 'x'.repeat(300) }));
  writeFileSync(path, `${lines.join('\n')}\n`);
  const file = new JsonlScopeFile({ source: 'memory:project', path, scope: 'project' });
  assert.equal((await file.read()).entries.length, 400);
  // Scribble over the first line in place (same size): a whole re-read would now find it malformed.
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.from('#'), 0, 1, 0);
  closeSync(fd);
  appendFileSync(path, `${storedLine('late', 'Appended by another process', { createdAt: '2027-01-01T00:00:00.000Z' })}\n`);
  const after = await file.read();
  assert.equal(after.changed, true);
  assert.equal(after.entries.length, 401, 'the appended entry is there');
  assert.equal(after.entries.at(-1)!.id, 'late');
  assert.deepEqual(after.badLines, [], 'only the tail was read: the scribbled first line was not');
  // A rewrite (a new file by rename) is read whole: the scribble is found.
  writeFileSync(`${path}.new`, readFileSync(path));
  const { renameSync } = await import('node:fs');
  renameSync(`${path}.new`, path);
  const whole = await file.read();
  assert.equal(whole.badLines.length, 1, 'a rewritten file is read whole');
  // An append that repeats a known id is read whole too (the newest updatedAt wins).
  appendFileSync(path, `${storedLine('m5', 'Entry 5 edited', { updatedAt: '2027-02-01T00:00:00.000Z' })}\n`);
  const dup = await file.read();
  assert.equal(dup.entries.find((e) => e.id === 'm5')!.title, 'Entry 5 edited');
});

test('the layered index and the block are memoised: nothing changed answers the same objects; a change recomputes', async () => {
  const d = dirs();
  writeProject(d.workspace, 20);
  const m = await open(d, countingScan().scan);
  const a = await m.indexFor('s');
  const b = await m.indexFor('s');
  assert.equal(a, b, 'the very same index');
  appendFileSync(memoryPaths(d.workspace, d.storage).project!, `${storedLine('z', 'Another', { importance: 'high', createdAt: '2027-01-01T00:00:00.000Z' })}\n`);
  const c = await m.indexFor('s');
  assert.notEqual(c, b);
  assert.equal(c!.length, b!.length + 1);
  const memo = new BlockMemo();
  const items: PinnedContent[] = [{ id: 'n.md', kind: 'note', state: 'ok', revision: 'r1', text: 'hello' }];
  const x = memo.compile(items, c, 8000);
  const x2 = memo.compile([{ ...items[0]! }], c, 8000);
  assert.equal(x2.signature, x.signature, 'same revisions: the same signature');
  assert.ok(sameExceptNonce(x2.text, x.text), 'same revisions: the same block but for its nonce');
  assert.notEqual(x2.text, x.text, 'each block text carries its own fresh nonce');
  const y = memo.compile([{ ...items[0]!, revision: 'r2', text: 'hello again' }], c, 8000);
  assert.notEqual(y, x);
  assert.notEqual(y.signature, x.signature);
  assert.notEqual(memo.compile(items, b, 8000).signature, x.signature, 'another memory index: compiled again');
});
