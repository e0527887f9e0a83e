/**
 * The sessions' secondary indexes (src/server/core/store/sessionIndex.ts) on real files: every answer (scheduled claims
 * by name, pins for renames, last activity for pruning, newest-first pages) agrees with the session files, across
 * two stores on one folder (two processes) and through a fold of the journal; the index is rebuilt when missing,
 * of another format or corrupt; a session file added, changed or removed behind its back (an older version, a
 * person, a process killed between its rename and its journal line) is indexed again; pages keep their order and
 * their cursor when sessions are added or removed between them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sessionsPath } from '../../src/server/core/knowledgeCore';
import { SessionService } from '../../src/server/core/delivery/sessionService';
import { SessionStore, sessionFileName, sessionsDirOf } from '../../src/server/core/store/sessionStore';
import { writeFileAtomic } from '../../src/server/core/store/atomicFile';
import type { SessionMeta } from '../../src/server/core/store/storeSchemas';
import { tempWorkspace } from '../helpers/tempWorkspace';

function indexPathOf(): string {
  const d = tempWorkspace('sk-sindex-');
  const index = sessionsPath(d.storage, d.workspace);
  mkdirSync(dirname(index), { recursive: true });
  return index;
}

function serviceOf(store: SessionStore): SessionService {
  return new SessionService({ store, checkPin: (id) => ({ ok: true, id }), reader: null, judge: () => [], memoryIndex: async () => null, defaultBudgetTokens: 4000 });
}

function meta(key: string, createdAt: string, extra: Partial<SessionMeta> = {}): SessionMeta {
  return { key, createdAt, project_context_pins: [], knowledge_context_delivered: null, deliveredAt: null, origin: 'chat', pinned_messages: [], results: [], ...extra };
}

/** Writes a session file the way a version without the index did: the file only, no journal line. */
async function writeBehindItsBack(index: string, s: SessionMeta): Promise<void> {
  await writeFileAtomic(join(sessionsDirOf(index), sessionFileName(s.key)), `${JSON.stringify({ ...s, schemaVersion: 1 }, null, 2)}\n`);
}

async function allPages(store: SessionStore, limit: number): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const page = await store.page(limit, cursor);
    keys.push(...page.sessions.map((s) => s.key));
    if (!page.next) return keys;
    cursor = page.next;
  }
  throw new Error('pages never ended');
}

/** What every answer of the index should be, computed from the files. */
async function expected(index: string, name: string, pin: string, cutoff: number) {
  const files = await new SessionStore({ indexPath: index }).list();
  const { lastActivity } = await import('../../src/server/core/store/sessionStore');
  return {
    newest: [...files].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.key < b.key ? 1 : -1)).map((s) => s.key),
    scheduled: files.filter((s) => s.origin === 'schedule' && s.label === name).map((s) => s.key).sort(),
    pinning: files.filter((s) => s.project_context_pins.some((p) => p === pin || p.startsWith(`${pin}/`))).map((s) => s.key).sort(),
    idle: files.filter((s) => lastActivity(s) < cutoff).map((s) => s.key).sort(),
  };
}

async function answers(store: SessionStore, name: string, pin: string, cutoff: number) {
  await store.sessionIndex.ready();
  return {
    newest: await allPages(store, 7),
    scheduled: [...store.sessionIndex.scheduled(name)].sort(),
    pinning: store.sessionIndex.pinning(pin).sort(),
    idle: store.sessionIndex.idleBefore(cutoff).sort(),
  };
}

test('the index answers what the files say, in this store and in a second one on the same folder, through a fold of its journal', async () => {
  const index = indexPathOf();
  const a = new SessionStore({ indexPath: index, indexFoldAfter: 25 });
  const b = new SessionStore({ indexPath: index, indexFoldAfter: 1_000_000 });
  const base = Date.parse('2026-01-01T00:00:00Z');
  const keys: string[] = [];
  for (let i = 0; i < 40; i++) {
    const key = `k-${String(i).padStart(3, '0')}`;
    keys.push(key);
    const pins = i % 3 === 0 ? ['.knowledge/notes/a.md'] : i % 3 === 1 ? ['.knowledge/notes/dir/b.md'] : ['.knowledge/plans/c.md'];
    // Some share a createdAt: the key breaks the tie.
    if (i % 5 === 0) await Promise.all([a.sessionIndex.ready(), b.sessionIndex.ready()]); // a server reads as it goes
    await (i % 2 === 0 ? a : b).update(key, () => meta(key, new Date(base + Math.floor(i / 2) * 1000).toISOString(), { project_context_pins: pins, ...(i % 10 === 0 ? { origin: 'schedule', label: 'nightly' } : {}) }));
  }
  // Changes through both stores: pins, removals, a label on a schedule.
  await a.sessionIndex.ready();
  for (let i = 0; i < 40; i += 4) await b.update(keys[i]!, (s) => (s ? { ...s, project_context_pins: ['.knowledge/notes/dir'] } : undefined));
  for (let i = 1; i < 40; i += 9) await a.update(keys[i]!, () => 'delete');
  await a.update(keys[20]!, (s) => (s ? { ...s, origin: 'schedule', label: 'weekly' } : undefined));
  const cutoff = Date.now() + 1;
  for (const store of [a, b]) {
    for (const [name, pin] of [['nightly', '.knowledge/notes/dir'], ['weekly', '.knowledge/notes/a.md']] as const) {
      assert.deepEqual(await answers(store, name, pin, cutoff), await expected(index, name, pin, cutoff));
    }
  }
  assert.ok(a.sessionIndex.folds > 0, 'store a folded its journal into the snapshot');
  // b read the fold (the journal moved under it) and keeps up with writes after it.
  await a.update(keys[2]!, (s) => (s ? { ...s, project_context_pins: ['.knowledge/notes/late.md'] } : undefined));
  await b.sessionIndex.ready();
  assert.deepEqual(b.sessionIndex.pinning('.knowledge/notes/late.md'), [keys[2]]);
  assert.equal(a.sessionIndex.rebuilds + b.sessionIndex.rebuilds, 1, 'built once, when there was none (the other store read it)');
});

test('the panel pages newest first; a session added or removed between pages never shifts the next page', async () => {
  const index = indexPathOf();
  const store = new SessionStore({ indexPath: index });
  const base = Date.parse('2026-02-01T00:00:00Z');
  for (let i = 0; i < 25; i++) await store.update(`s-${String(i).padStart(2, '0')}`, (_) => meta(`s-${String(i).padStart(2, '0')}`, new Date(base + i * 60_000).toISOString()));
  const first = await store.page(10);
  assert.deepEqual(first.sessions.map((s) => s.key), Array.from({ length: 10 }, (_, i) => `s-${String(24 - i).padStart(2, '0')}`));
  assert.equal(first.total, 25);
  assert.ok(first.next);
  // Between pages: a new session (newest of all), and one of the next page removed.
  await store.update('s-new', () => meta('s-new', new Date(base + 999 * 60_000).toISOString()));
  await store.update('s-12', () => 'delete');
  const second = await store.page(10, first.next!);
  assert.deepEqual(second.sessions.map((s) => s.key), ['s-14', 's-13', 's-11', 's-10', 's-09', 's-08', 's-07', 's-06', 's-05', 's-04']);
  const third = await store.page(10, second.next!);
  assert.deepEqual(third.sessions.map((s) => s.key), ['s-03', 's-02', 's-01', 's-00']);
  assert.equal(third.next, null);
  // A fresh first page shows the new one first; a cursor that is not ours starts from the top.
  assert.equal((await store.page(1)).sessions[0]!.key, 's-new');
  assert.equal((await store.page(1, 'not-a-cursor')).sessions[0]!.key, 's-new');
  // The server's view: the service pages the same way.
  const page = await serviceOf(store).listPage({ limit: 3 });
  assert.deepEqual(page.sessions.map((s) => s.key), ['s-new', 's-24', 's-23']);
});

test('a missing, foreign-format or corrupt index is rebuilt from the session files', async (t) => {
  const index = indexPathOf();
  const seed = new SessionStore({ indexPath: index });
  for (let i = 0; i < 12; i++) await seed.update(`r-${i}`, () => meta(`r-${i}`, new Date(Date.parse('2026-03-01T00:00:00Z') + i * 1000).toISOString(), { project_context_pins: [`.knowledge/notes/n${i % 2}.md`], ...(i === 5 ? { origin: 'schedule', label: 'daily' } : {}) }));
  await seed.sessionIndex.ready();
  seed.sessionIndex.close();
  const snapshot = join(dirname(index), 'sessions-index.json');
  const journal = join(dirname(index), 'sessions-index.log');
  const cases: [string, () => void][] = [
    ['missing (a store written before the index)', () => {
      rmSync(snapshot, { force: true });
      rmSync(journal, { force: true });
    }],
    ['a snapshot of another format', () => writeFileSync(snapshot, JSON.stringify({ format: 99, entries: 'elsewhere' }))],
    ['a snapshot that does not parse', () => writeFileSync(snapshot, '{"format":1,"entries":[["r-1",')],
    ['a snapshot entry of the wrong shape', () => writeFileSync(snapshot, JSON.stringify({ format: 1, entries: [['r-1', 3]] }))],
    ['a journal line that does not parse', () => writeFileSync(journal, `${readFileSync(journal, 'utf8')}{"u":[garbage\n`)],
    ['a journal line torn by a crash, then a whole one after it', () => writeFileSync(journal, `${readFileSync(journal, 'utf8')}{"u":["r-1","x`, { flag: 'w' }) ],
  ];
  for (const [what, damage] of cases) {
    await t.test(what, async () => {
      // A journal to damage: one more write through a store.
      const w = new SessionStore({ indexPath: index });
      await w.update('r-0', (s) => (s ? { ...s } : undefined));
      w.sessionIndex.close();
      damage();
      if (what.startsWith('a journal line torn')) {
        const again = new SessionStore({ indexPath: index });
        await again.update('r-3', (s) => (s ? { ...s } : undefined)); // lands after the torn bytes: the line is garbage
        again.sessionIndex.close();
      }
      const cutoff = Date.parse('2026-03-01T00:00:06Z');
      // Two sessions aged on disk, so that pruning has something to find.
      for (const k of ['r-1', 'r-2']) {
        const s = (await seed.get(k))!;
        await writeBehindItsBack(index, { ...s, lastActivityAt: s.createdAt });
      }
      const want = await expected(index, 'daily', '.knowledge/notes/n1.md', cutoff);
      const store = new SessionStore({ indexPath: index });
      const got = await answers(store, 'daily', '.knowledge/notes/n1.md', cutoff);
      assert.equal(store.sessionIndex.rebuilds, 1, `${what}: rebuilt`);
      assert.deepEqual(got, want);
      assert.deepEqual(got.idle, ['r-1', 'r-2']);
      assert.equal(got.newest.length, 12);
      store.sessionIndex.close();
    });
  }
});

test('a session written, changed or removed behind the index (an older version, a person, a killed writer) is indexed again at the next open', async () => {
  const index = indexPathOf();
  const store = new SessionStore({ indexPath: index });
  const service = serviceOf(store);
  const old = new Date(Date.now() - 200 * 86_400_000).toISOString();
  await store.update('kept', () => meta('kept', '2026-04-01T00:00:00.000Z', { project_context_pins: ['.knowledge/notes/x.md'] }));
  await store.update('changed', () => meta('changed', '2026-04-02T00:00:00.000Z', { project_context_pins: ['.knowledge/notes/y.md'] }));
  await store.update('removed', () => meta('removed', '2026-04-03T00:00:00.000Z', { project_context_pins: ['.knowledge/notes/x.md'] }));
  await store.update('aged', () => meta('aged', '2026-04-00T00:00:00.000Z'.replace('04-00', '03-31')));
  await store.sessionIndex.ready();
  store.sessionIndex.close();
  // Behind its back: a new scheduled session (an older window), pins changed and the session aged, a file removed.
  await writeBehindItsBack(index, meta('sched', '2026-04-04T00:00:00.000Z', { origin: 'schedule', label: 'nightly' }));
  // (An older version's write stamps its activity: the rename below is bookkeeping and leaves the stamp as it is.)
  await writeBehindItsBack(index, meta('changed', '2026-04-02T00:00:00.000Z', { project_context_pins: ['.knowledge/notes/x.md'], lastActivityAt: new Date().toISOString() }));
  await writeBehindItsBack(index, meta('aged', old, { lastActivityAt: old }));
  rmSync(join(sessionsDirOf(index), sessionFileName('removed')));

  const next = new SessionStore({ indexPath: index });
  const nextService = serviceOf(next);
  const claim = await nextService.claimScheduledRun('nightly', 'slot-1', []);
  assert.deepEqual(claim, { claimed: true, key: 'sched' }, 'the claim finds the schedule an older version created: no second session');
  assert.equal(next.sessionIndex.rebuilds, 0, 'checked file by file, not rebuilt');
  assert.equal(next.sessionIndex.reindexed, 4);
  assert.equal(await nextService.renamePin('.knowledge/notes/x.md', '.knowledge/notes/z.md'), 2, 'kept and changed follow the rename; removed is gone');
  assert.deepEqual((await next.get('changed'))!.project_context_pins, ['.knowledge/notes/z.md']);
  assert.deepEqual((await nextService.prune(100)).pruned, ['aged'], 'aged behind its back, pruned by the index');
  assert.deepEqual((await next.page(10)).sessions.map((s) => s.key), ['sched', 'changed', 'kept']);
  assert.equal((await service.listPage({ limit: 10 })).sessions.length, 3, 'the first store still runs on what it knew; its next open checks again');
});

test('a claim finds a schedule another process created after this one read the index, and one created behind its back while it runs', async () => {
  const index = indexPathOf();
  const a = new SessionStore({ indexPath: index });
  const b = new SessionStore({ indexPath: index });
  await a.sessionIndex.ready();
  await b.sessionIndex.ready();
  const first = await serviceOf(a).claimScheduledRun('hourly', 'h1', []);
  assert.equal(first.claimed, true);
  const second = await serviceOf(b).claimScheduledRun('hourly', 'h1', []);
  assert.deepEqual(second, { claimed: false, key: first.key }, 'the other process sees it through the journal');
  // Written with no journal line while both run (a writer killed between its rename and its line).
  await writeBehindItsBack(index, meta('ghost', '2026-05-01T00:00:00.000Z', { origin: 'schedule', label: 'ghostly', lastScheduledSlot: 'g1' }));
  assert.deepEqual(await serviceOf(b).claimScheduledRun('ghostly', 'g1', []), { claimed: false, key: 'ghost' }, 'not found in the index: every file is checked before a session is created');
  assert.equal(existsSync(join(sessionsDirOf(index), sessionFileName('ghost'))), true);
});

test('a journal nobody folds (only agents\' hooks write) is dropped past its limit, and the next reader rebuilds the index', async () => {
  const index = indexPathOf();
  const reader = new SessionStore({ indexPath: index });
  await reader.sessionIndex.ready(); // an index exists
  reader.sessionIndex.close();
  const hook = new SessionStore({ indexPath: index, indexMaxJournalBytes: 2_000 });
  for (let i = 0; i < 30; i++) await hook.update(`h-${i}`, () => meta(`h-${i}`, new Date(Date.parse('2026-06-01T00:00:00Z') + i * 1000).toISOString()));
  const journal = join(dirname(index), 'sessions-index.log');
  for (let i = 0; i < 100 && existsSync(join(dirname(index), 'sessions-index.json')); i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(existsSync(join(dirname(index), 'sessions-index.json')), false, 'the index was dropped');
  assert.ok(!existsSync(journal) || readFileSync(journal, 'utf8').length < 2_000, 'and its journal with it');
  hook.sessionIndex.close();
  const next = new SessionStore({ indexPath: index });
  assert.equal((await next.page(100)).sessions.length, 30);
  assert.equal(next.sessionIndex.rebuilds, 1);
});

test('a store of the old single-file format: retention, a claim or a rename that comes first waits for the split, and the panel then lists the session', async () => {
  for (const first of ['prune', 'claim', 'rename'] as const) {
    const index = indexPathOf();
    const now = new Date().toISOString();
    // The old format: every session inside sessions.json (the store splits it into files when it opens).
    writeFileSync(index, JSON.stringify({ schemaVersion: 1, draftPins: [], sessions: { legacy: { ...meta('legacy', now), project_context_pins: ['.knowledge/notes/a.md'] } } }, null, 2));
    const store = new SessionStore({ indexPath: index });
    const service = serviceOf(store);
    if (first === 'prune') await service.prune(90);
    else if (first === 'claim') await service.claimScheduledRun('nightly', 'slot-1', []);
    else await service.renamePin('.knowledge/notes/b.md', '.knowledge/notes/c.md');
    const page = await store.page(30);
    assert.ok(page.sessions.some((s) => s.key === 'legacy'), `after a ${first} first, the split session is on the panel's first page`);
    assert.deepEqual(store.sessionIndex.pinning('.knowledge/notes/a.md'), ['legacy'], `after a ${first} first, the index knows its pins`);
  }
});

test('sessions an older version puts back into sessions.json while this store runs are split and seen: one claim per slot, renames follow, the panel lists them', async () => {
  const index = indexPathOf();
  const legacy = (sessions: Record<string, SessionMeta>) => writeFileSync(index, JSON.stringify({ schemaVersion: 1, draftPins: [], sessions }));
  const old = '2026-01-01T00:00:00.000Z';
  const k1 = meta('K1', old, { origin: 'schedule', label: 'nightly', lastScheduledSlot: 'S1' } as Partial<SessionMeta>);
  const p1 = meta('P1', old, { project_context_pins: ['docs/old/p.md'] });
  const a = new SessionStore({ indexPath: index });
  const aService = serviceOf(a);
  await a.open();
  await a.sessionIndex.ready(); // window A runs, its index built and checked
  legacy({ K1: k1 }); // an older version (a window, a hook) writes the single-file store
  const claimA = await aService.claimScheduledRun('nightly', 'S2', []);
  assert.deepEqual([claimA.claimed, claimA.key], [true, 'K1'], 'A splits and finds the schedule instead of making a second one');
  legacy({ P1: p1 }); // again, with a chat session
  const c = new SessionStore({ indexPath: index });
  await c.open(); // window C opens and splits it
  assert.equal((await serviceOf(c).claimScheduledRun('nightly', 'S2', [])).claimed, false, 'the slot is claimed once');
  assert.equal(await aService.renamePin('docs/old', 'docs/new'), 1);
  assert.deepEqual((await a.get('P1'))?.project_context_pins, ['docs/new/p.md'], 'the rename in A reaches the session C split');
  assert.deepEqual((await a.page(10)).sessions.map((s) => s.key).sort(), ['K1', 'P1'], 'A\'s panel lists both');
  a.sessionIndex.close();
  c.sessionIndex.close();
});
