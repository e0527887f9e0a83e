/**
 * The snapshot of a memory file's parsed entries (src/server/core/memory/scopeSnapshot.ts), against real files: it loads
 * exactly what a full parse gives (every kind of line: unknown fields, flags, a lone surrogate, CRLF, blank and
 * malformed lines, a union merge's duplicate, an undated line), only for the content it was made from; an
 * append-only growth parses only the tail; a stale, corrupt or truncated snapshot, or one of another file or
 * version, falls back to the full parse; writes after a snapshot load keep every line; verdicts are judged under the
 * current rule set; the snapshot lives in per-user state.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { JsonlScopeFile, type JsonlScopeSpec } from '../../src/server/core/memory/jsonlStore';
import { ENTRY_PARSE_VERSION, StoredEntrySchema, isUndated, serializeEntry, type StoredEntry } from '../../src/server/core/memory/memoryEntry';
import { MemoryService, memoryPaths } from '../../src/server/core/memory/memoryService';
import { snapshotPathFor } from '../../src/server/core/memory/scopeSnapshot';
import { KnowledgeCore } from '../../src/server/core/knowledgeCore';
import type { StoreProblem } from '../../src/shared/schemas';
import { storedLine } from './memoryLines';

const AT = '2026-01-01T00:00:00.000Z';

function dirs() {
  const root = mkdtempSync(join(tmpdir(), 'sk-memsnap-'));
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.knowledge'), { recursive: true });
  const storage = join(root, 'global');
  return { root, workspace, storage, path: join(workspace, '.knowledge', 'memory.jsonl'), snapshots: join(storage, 'snapshots') };
}

/** An entry as the extension writes it (the usual shape). */
function written(i: number, extra: Partial<StoredEntry> = {}): string {
  const at = new Date(Date.parse(AT) + i * 60_000).toISOString();
  return serializeEntry({
    id: `mem_${i}`,
    scope: 'project',
    type: i % 4 === 0 ? 'decision' : 'fact',
    ...(i % 4 === 0 ? { status: 'active' as const } : {}),
    title: `Entry ${i} ünïcødé 🙂`,
    body: `Body of entry ${i}: use pnpm, not npm.`,
    tags: ['build', `t${i % 3}`],
    importance: i % 5 === 0 ? 'high' : 'medium',
    confidence: 0.9,
    provenance: { sourceKind: i % 2 ? 'agent' : 'human', identity: i % 2 ? 'agent' : 'me', ...(i % 2 ? { sessionKey: `s${i}` } : {}), at },
    trust: i % 2 ? { state: 'pending' } : { state: 'approved', approvedBy: 'me', approvedAt: at },
    revision: 'ignored: recomputed on load',
    createdAt: at,
    updatedAt: at,
    wrongFlags: [],
    ...extra,
  });
}

/** Every kind of line a file may hold. */
function mixedLines(): string[] {
  return [
    written(1),
    written(2, { supersededBy: 'mem_3', expiresAt: '2030-01-01T00:00:00.000Z' }),
    '',
    storedLine('hand', 'Hand-written, fields in another order', { fromTheFuture: { nested: [1, -0, 'x'] } }),
    written(3, { wrongFlags: [{ reason: 'wrong', by: 'me', at: AT }] }),
    '{ this is not JSON',
    written(4, { proposal: { kind: 'new', rationale: 'r', distilledFrom: { sessionKey: 's', turn: 1, model: 'm' } }, trust: { state: 'pending' } }),
    JSON.stringify({ title: 'No date at all' }),
    JSON.stringify({ id: 'no-title', body: 'a schema problem' }),
    written(5, { body: 'a lone surrogate \ud800 and a CJK 記憶', confidence: -0 }),
    `${written(6)}\r`,
    written(7, { consolidatedFrom: ['mem_1', 'mem_2'] }),
    storedLine('dup', 'Union merge: older copy', { updatedAt: '2026-01-01T00:00:00.000Z' }),
    storedLine('dup', 'Union merge: newer copy', { updatedAt: '2026-02-01T00:00:00.000Z' }),
    written(8, { scope: 'project', sessionKey: 'k' } as Partial<StoredEntry>),
  ];
}

const fileSpec = (d: ReturnType<typeof dirs>, extra: Partial<JsonlScopeSpec> = {}): JsonlScopeSpec => ({ source: 'memory:project', path: d.path, scope: 'project', snapshotPath: snapshotPathFor(d.snapshots, 'project', d.path), ...extra });

/** What a full parse gives: entries, malformed lines, problems, and per entry its serialised line and whether it is undated. */
async function fullParse(d: ReturnType<typeof dirs>) {
  const problems: StoreProblem[] = [];
  const f = new JsonlScopeFile({ source: 'memory:project', path: d.path, scope: 'project', onProblem: (p) => problems.push(p) });
  const r = await f.read(true);
  assert.equal(f.lastLoad, 'parse');
  return { entries: r.entries, badLines: r.badLines, problems: problems.map((p) => p.message), f };
}

async function load(d: ReturnType<typeof dirs>, extra: Partial<JsonlScopeSpec> = {}) {
  const problems: StoreProblem[] = [];
  const f = new JsonlScopeFile({ ...fileSpec(d, extra), onProblem: (p) => problems.push(p) });
  const r = await f.read();
  return { entries: r.entries, badLines: r.badLines, problems: problems.map((p) => p.message), f };
}

/** Exactly the same: values (-0 included), key order, serialised lines, undated marks, malformed lines, problems. */
function assertSame(got: Awaited<ReturnType<typeof load>>, want: Awaited<ReturnType<typeof fullParse>>): void {
  assert.deepStrictEqual(got.entries, want.entries);
  assert.deepStrictEqual(got.entries.map((e) => Object.keys(e)), want.entries.map((e) => Object.keys(e)), 'key order');
  assert.deepStrictEqual(got.entries.map(serializeEntry), want.entries.map(serializeEntry));
  assert.deepStrictEqual(got.entries.map(isUndated), want.entries.map(isUndated));
  assert.deepStrictEqual(got.badLines, want.badLines);
  assert.deepStrictEqual(got.problems, want.problems);
}

/** Makes a snapshot of the file as it is now (a first read parses it, then the snapshot is written). */
async function snapshot(d: ReturnType<typeof dirs>, extra: Partial<JsonlScopeSpec> = {}): Promise<void> {
  const f = new JsonlScopeFile(fileSpec(d, extra));
  await f.read();
  await f.flushSnapshot();
  assert.ok(existsSync(fileSpec(d).snapshotPath!), 'a snapshot was written');
}

/** The stat alone (and the first and last 64 KiB) vouches for the snapshot; `Infinity`: only the whole file's hash does. */
const TRUST_STAT = { racyMs: Number.NEGATIVE_INFINITY };
const RACY = { racyMs: Number.POSITIVE_INFINITY };

test('a snapshot loads exactly what a full parse gives — every kind of line — trusted by the stat, or by the whole file\'s hash', async () => {
  const d = dirs();
  writeFileSync(d.path, `${mixedLines().join('\n')}\n`);
  const want = await fullParse(d);
  assert.ok(want.entries.length >= 11 && want.badLines.length === 2, 'the fixture holds entries and two malformed lines');
  await snapshot(d, TRUST_STAT);
  const byStat = await load(d, TRUST_STAT);
  assert.equal(byStat.f.lastLoad, 'snapshot');
  assertSame(byStat, want);
  const byHash = await load(d, RACY);
  assert.equal(byHash.f.lastLoad, 'snapshot');
  assertSame(byHash, want);
});

test('a stale snapshot is never used: the file edited in the middle with the same size (mtime put back), truncated, replaced', async (t) => {
  const big = Array.from({ length: 400 }, (_, i) => written(i)); // > 128 KiB: an edit in the middle misses the first and last 64 KiB
  const cases: [string, (d: ReturnType<typeof dirs>) => void][] = [
    [
      'edited in the middle, same size, mtime put back',
      (d) => {
        const before = statSync(d.path);
        const text = readFileSync(d.path, 'utf8');
        const at = text.indexOf('Entry 200 ');
        writeFileSync(d.path, `${text.slice(0, at)}Entry 999 ${text.slice(at + 'Entry 200 '.length)}`);
        utimesSync(d.path, before.atimeMs / 1000, before.mtimeMs / 1000);
        assert.equal(statSync(d.path).size, before.size);
        assert.ok(Math.abs(statSync(d.path).mtimeMs - before.mtimeMs) < 1, 'the mtime put back');
      },
    ],
    ['truncated', (d) => truncateSync(d.path, statSync(d.path).size - 100)],
    [
      'replaced by another file of the same size',
      (d) => {
        const text = readFileSync(d.path, 'utf8');
        writeFileSync(`${d.path}.new`, text.replace('Entry 5 ', 'Entry X '));
        renameSync(`${d.path}.new`, d.path);
      },
    ],
    ['grown, with an earlier line edited too', (d) => writeFileSync(d.path, `${readFileSync(d.path, 'utf8').replace('Entry 7 ', 'Entry Y ')}${written(1000)}\n`)],
    ['emptied', (d) => writeFileSync(d.path, '')],
  ];
  for (const [name, change] of cases) {
    await t.test(name, async () => {
      for (const mode of [TRUST_STAT, RACY]) {
        const d = dirs();
        writeFileSync(d.path, `${big.join('\n')}\n`);
        await snapshot(d, mode);
        change(d);
        const want = await fullParse(d);
        const got = await load(d, mode);
        assert.equal(got.f.lastLoad, 'parse', `${name}: parsed whole`);
        assertSame(got, want);
      }
    });
  }
});

test('a snapshot whose stat matches but whose bytes do not is refused: the first and last 64 KiB, or the whole file when racy', async () => {
  const d = dirs();
  const lines = Array.from({ length: 400 }, (_, i) => written(i));
  writeFileSync(d.path, `${lines.join('\n')}\n`);
  await snapshot(d, RACY);
  // A snapshot claiming the current stat for other content: forged by taking the snapshot of the changed file's twin.
  const original = readFileSync(d.path);
  const other = Buffer.from(original.toString('utf8').replace('Entry 200 ', 'Entry 999 '));
  assert.equal(other.length, original.length);
  writeFileSync(d.path, other);
  const snapPath = fileSpec(d).snapshotPath!;
  const snap = readFileSync(snapPath);
  const headerLength = snap.readUInt32LE(10);
  const header = JSON.parse(snap.toString('utf8', 14, 14 + headerLength)) as { key: { stat: string } };
  const s = statSync(d.path, { bigint: true });
  const forgedStat = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:f`;
  const patched = Buffer.from(snap.toString('latin1').replace(`"stat":"${header.key.stat}"`, `"stat":"${forgedStat}"`.padEnd(`"stat":"${header.key.stat}"`.length, ' ')), 'latin1');
  assert.equal(patched.length, snap.length);
  writeFileSync(snapPath, patched);
  const got = await load(d, RACY);
  assert.equal(got.f.lastLoad, 'parse', 'the whole file does not hash to the snapshot');
  assertSame(got, await fullParse(d));
  // Trusted by its stat (not racy), the ends must still match: an edit in the last 64 KiB is caught.
  writeFileSync(d.path, original.toString('utf8').replace('Entry 398 ', 'Entry 998 '));
  const s2 = statSync(d.path, { bigint: true });
  writeFileSync(snapPath, Buffer.from(patched.toString('latin1').replace(forgedStat, `${s2.dev}:${s2.ino}:${s2.size}:${s2.mtimeNs}:${s2.ctimeNs}:f`.padEnd(forgedStat.length, ' ')), 'latin1'));
  const ends = await load(d, TRUST_STAT);
  assert.equal(ends.f.lastLoad, 'parse', 'the last 64 KiB do not hash to the snapshot');
  assertSame(ends, await fullParse(d));
});

test('an append-only growth reuses the snapshot and parses only the tail (malformed and blank lines too); a duplicate id, a torn line or an undated entry parse whole', async (t) => {
  const base = Array.from({ length: 50 }, (_, i) => written(i));
  const growths: [string, string, string][] = [
    ['new entries, a blank line and a malformed one', `${written(100)}\n\n{"oops"\n${written(101)}\n`, 'snapshot+tail'],
    ['a second line for a known id (a union merge)', `${written(3, { title: 'changed' })}\n`, 'parse'],
    ['an append still in progress (no line break yet)', written(102), 'parse'],
  ];
  for (const [name, appended, kind] of growths) {
    await t.test(name, async () => {
      for (const mode of [TRUST_STAT, RACY]) {
        const d = dirs();
        writeFileSync(d.path, `${base.join('\n')}\n`);
        await snapshot(d, mode);
        appendFileSync(d.path, appended);
        const want = await fullParse(d);
        const got = await load(d, mode);
        assert.equal(got.f.lastLoad, kind);
        assertSame(got, want);
      }
    });
  }
  await t.test('a file with an undated entry (dated by the file\'s mtime, which the append moved)', async () => {
    const d = dirs();
    writeFileSync(d.path, `${[...base, JSON.stringify({ id: 'undated', title: 'No date' })].join('\n')}\n`);
    await snapshot(d, TRUST_STAT);
    appendFileSync(d.path, `${written(100)}\n`);
    utimesSync(d.path, new Date(), new Date(Date.now() + 5000));
    const want = await fullParse(d);
    const got = await load(d, TRUST_STAT);
    assert.equal(got.f.lastLoad, 'parse');
    assertSame(got, want);
    assert.equal(got.entries.find((e) => e.id === 'undated')!.createdAt, new Date(statSync(d.path).mtimeMs).toISOString().replace(/\.\d+Z$/, (m) => m));
  });
});

test('a corrupt, truncated or empty snapshot, one made for another file, or under another parser or format, is ignored', async (t) => {
  const lines = Array.from({ length: 30 }, (_, i) => written(i));
  const damage: [string, (snap: Buffer, d: ReturnType<typeof dirs>) => Buffer][] = [
    ['a byte of an entry flipped', (b) => {
      const c = Buffer.from(b);
      const at = c.indexOf('Body of entry 17');
      c[at] = 'X'.charCodeAt(0);
      return c;
    }],
    ['truncated', (b) => b.subarray(0, Math.floor(b.length / 2))],
    ['cut inside its header', (b) => b.subarray(0, 30)],
    ['empty', () => Buffer.alloc(0)],
    ['not a snapshot', () => Buffer.from('{"entries":[]}')],
    ['another parser', (b) => Buffer.from(b.toString('latin1').replace(`"parser":"${ENTRY_PARSE_VERSION}:`, `"parser":"${ENTRY_PARSE_VERSION + 1}:`.slice(0, `"parser":"${ENTRY_PARSE_VERSION}:`.length)), 'latin1')],
    ['another format', (b) => Buffer.from(b.toString('latin1').replace('"format":1,', '"format":9,'), 'latin1')],
    ['made for another file', (b, d) => Buffer.from(b.toString('latin1').replace(JSON.stringify(d.path).slice(1, -1), JSON.stringify(d.path).slice(1, -1).replace('ws', 'wz')), 'latin1')],
  ];
  for (const [name, hurt] of damage) {
    await t.test(name, async () => {
      const d = dirs();
      writeFileSync(d.path, `${lines.join('\n')}\n`);
      await snapshot(d, TRUST_STAT);
      const snapPath = fileSpec(d).snapshotPath!;
      const before = readFileSync(snapPath);
      const after = hurt(before, d);
      assert.notDeepEqual(after, before, 'the snapshot was changed');
      writeFileSync(snapPath, after);
      const got = await load(d, TRUST_STAT);
      assert.equal(got.f.lastLoad, 'parse');
      assertSame(got, await fullParse(d));
    });
  }
  await t.test('another file\'s snapshot put in this one\'s place', async () => {
    const a = dirs();
    const b = dirs();
    writeFileSync(a.path, `${lines.join('\n')}\n`);
    writeFileSync(b.path, `${lines.slice(0, 10).join('\n')}\n`);
    await snapshot(a, TRUST_STAT);
    mkdirSync(b.snapshots, { recursive: true });
    writeFileSync(fileSpec(b).snapshotPath!, readFileSync(fileSpec(a).snapshotPath!));
    const got = await load(b, TRUST_STAT);
    assert.equal(got.f.lastLoad, 'parse');
    assertSame(got, await fullParse(b));
  });
});

test('writes after a snapshot load keep every line: an approve rewrites only its line, remember appends; then a snapshot of the result loads as a parse does', async () => {
  const d = dirs();
  writeFileSync(d.path, `${mixedLines().join('\n')}\n`);
  await snapshot(d, TRUST_STAT);
  const before = readFileSync(d.path, 'utf8').split('\n');
  const f = new JsonlScopeFile(fileSpec(d, TRUST_STAT));
  await f.read();
  assert.equal(f.lastLoad, 'snapshot');
  const approved = await f.mutate((entries) => {
    const e = entries.find((x) => x.id === 'mem_1')!;
    const next = { ...e, trust: { state: 'approved' as const, approvedBy: 'you', approvedAt: AT } };
    return { result: next, upserts: [next] };
  });
  const after = readFileSync(d.path, 'utf8').split('\n');
  assert.equal(after.length, before.length);
  after.forEach((line, i) => (i === 0 ? assert.notEqual(line, before[0]) : assert.equal(line, before[i], `line ${i + 1} as it was`)));
  assert.equal(approved.result.trust.approvedBy, 'you');
  await f.mutate(() => ({ result: undefined, upserts: [JSON.parse(JSON.stringify({ ...approved.result, id: 'mem_new', createdAt: '2027-01-01T00:00:00.000Z' })) as StoredEntry] }));
  // (An undated line keeps, in this process, the date it was loaded with; a parse dates it by the rewritten file.)
  const dated = (entries: readonly StoredEntry[]) => entries.filter((e) => !isUndated(e));
  assert.deepStrictEqual(dated(f.current.entries), dated((await fullParse(d)).entries), 'what this process holds is what the file says');
  await f.flushSnapshot();
  const again = await load(d, TRUST_STAT);
  assert.equal(again.f.lastLoad, 'parse', 'an undated entry holds a date the file no longer gives: no snapshot of it was written');
  assertSame(again, await fullParse(d));
  await again.f.flushSnapshot();
  const third = await load(d, TRUST_STAT);
  assert.equal(third.f.lastLoad, 'snapshot', 'the parse\'s own snapshot is written');
  assertSame(third, await fullParse(d));
});

test('the memory service: a restart loads from the snapshot and lists what a parse lists; findings are judged under the rules of now, never carried as "clean"', async () => {
  const d = dirs();
  writeFileSync(d.path, `${[...Array.from({ length: 20 }, (_, i) => written(i)), storedLine('evil', 'Harmless today', { body: 'EVIL under tomorrow\'s rules' })].join('\n')}\n`);
  const clean = () => [];
  const strict = (t: string) => {
    const at = t.indexOf('EVIL');
    return (at < 0 ? [] : [{ ruleId: 'test.evil', category: 'instruction', severity: 'high', message: 'evil', start: at, end: at + 4 }]) as never;
  };
  const open = async (scan: (t: string) => never[], snapshotDir: string | null) => {
    const m = new MemoryService({ workspaceFolder: d.workspace, globalStoragePath: d.storage, scan, reviews: null, verdictsPath: null, snapshotDir });
    await m.configure({ on: true });
    await m.indexFor('s1');
    return m;
  };
  const first = await open(clean, d.snapshots);
  assert.equal((await first.listFlagged({})).total, 0, 'nothing flagged under the old rules');
  await first.flushSnapshots();
  assert.ok(readdirSync(d.snapshots).some((n) => n.startsWith('project-')));
  const again = await open(strict, d.snapshots);
  const parsed = await open(strict, null);
  assert.deepEqual((await again.list({ limit: 500 })).entries, (await parsed.list({ limit: 500 })).entries);
  assert.deepEqual((await again.listFlagged({})).entries.map((e) => e.id), ['evil'], 'judged again under the new rules');
  assert.deepEqual(await again.indexFor('s1'), await parsed.indexFor('s1'));
});

test('the snapshot lives in per-user state (global storage), never in the repository', async () => {
  const d = dirs();
  writeFileSync(d.path, `${written(1)}\n`);
  const core = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: true });
  await core.memory!.configure({ on: true });
  await core.memory!.indexFor('s1');
  await core.memory!.flushSnapshots();
  const under = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' });
  assert.ok(under(d.storage).some((p) => p.includes('memory-snapshots') && p.endsWith('.snap')), 'in global storage');
  assert.deepEqual(under(join(d.workspace, '.knowledge')).filter((p) => !p.startsWith('notes') && !p.startsWith('plans')), ['memory.jsonl'], 'nothing beside the project file');
  assert.ok(memoryPaths(d.workspace, d.storage).project!.startsWith(d.workspace));
});

test('the entry schema is pinned to ENTRY_PARSE_VERSION: change what a line parses to, and bump it (snapshots of the old parser are then ignored)', () => {
  const shape = createHash('sha256').update(JSON.stringify(z.toJSONSchema(StoredEntrySchema, { io: 'input', unrepresentable: 'any' }))).digest('hex');
  assert.deepEqual({ ENTRY_PARSE_VERSION, shape }, { ENTRY_PARSE_VERSION: 1, shape: 'aaad608d4ac4fc20b0a190f3d618875760ae689bb3f21033977371d46b6a9ff8' });
});

test('an edit in place in the middle that a running reader never saw (it read only the appended tail) is not written into a snapshot a later start trusts', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sk-snap-inplace-'));
  const dir = join(root, 'ws', '.knowledge');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'memory.jsonl');
  const snapshots = join(root, 'global', 'snapshots');
  const spec = (snap = true): JsonlScopeSpec => ({ source: 'memory:project', path, scope: 'project', ...(snap ? { snapshotPath: snapshotPathFor(snapshots, 'project', path) } : {}) }) as JsonlScopeSpec;
  const AT = '2026-01-01T00:00:00.000Z';
  const line = (i: number, trust: string) => `{"id":"mem_${i}","type":"fact","title":"Entry ${i}","body":"${'x'.repeat(400)}","tags":[],"provenance":{"sourceKind":"agent","identity":"agent","at":"${AT}"},"trust":${trust},"createdAt":"${AT}","updatedAt":"${AT}"}`;
  writeFileSync(path, `${Array.from({ length: 600 }, (_, i) => line(i, i === 300 ? '{"state":"approved"}' : '{"state":"pending"}')).join('\n')}\n`);
  const state = (f: JsonlScopeFile) => (f.current as unknown as { entries: StoredEntry[] }).entries.find((e) => e.id === 'mem_300')!.trust.state;
  const running = new JsonlScopeFile(spec());
  await running.read();
  assert.equal(state(running), 'approved');
  // The approval revoked in place (same length, same inode, as an editor saves) and one line appended.
  const { openSync, writeSync, closeSync } = await import('node:fs');
  const text = readFileSync(path, 'utf8').replace('"trust":{"state":"approved"}', '"trust":{"state":"pending" }') + `${line(600, '{"state":"pending"}')}\n`;
  const fd = openSync(path, 'r+');
  writeSync(fd, text, 0, 'utf8');
  closeSync(fd);
  await new Promise((r) => setTimeout(r, 2_200)); // past the racy window: the stat alone would be trusted
  await running.read(); // catches up on the appended line only
  await running.flushSnapshot();
  const restarted = new JsonlScopeFile(spec());
  await restarted.read();
  const parsed = new JsonlScopeFile(spec(false));
  await parsed.read();
  assert.equal(state(parsed), 'pending');
  assert.equal(state(restarted), 'pending', 'a start reads what the file holds, not what a reader believed');
});
