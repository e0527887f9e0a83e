/**
 * The shared project memory file as people and git leave it, against real files: hand-written lines without
 * dates, writes that change only what changed (line order, file mode, malformed lines kept), every bad line reported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryService, memoryPaths } from '../../src/server/core/memory/memoryService';
import { parseStoredEntry } from '../../src/server/core/memory/memoryEntry';
import { sharedScanner } from '../../src/server/core/threat/judgement';
import type { MemoryConfig } from '../../src/shared/memorySchemas';
import type { StoreProblem } from '../../src/shared/schemas';
import { tempWorkspace } from '../helpers/tempWorkspace';
import { storedLine } from './memoryLines';

const DAY = 86_400_000;
const isWindows = process.platform === 'win32';

function setup(config: Partial<MemoryConfig> = {}, now?: () => Date) {
  const d = tempWorkspace('sk-memfile-');
  const path = memoryPaths(d.workspace, d.storage).project!;
  const problems: StoreProblem[] = [];
  const open = async () => {
    const m = new MemoryService({ workspaceFolder: d.workspace, globalStoragePath: d.storage, scan: (t) => sharedScanner.scan(t), reviews: null, onProblem: (p) => problems.push(p), ...(now ? { now } : {}) });
    await m.configure({ on: true, ...config });
    return m;
  };
  return { ...d, path, problems, open };
}

/** A complete line of an entry still pending (so that approving it changes it). */
const full = (id: string, title: string, extra: Record<string, unknown> = {}) => storedLine(id, title, { trust: { state: 'pending' }, ...extra });

// ---- dates of hand-written lines ----------------------------------------------------------------------

test('a hand-written line without dates takes the file\'s date, not 1970, and does not turn aged as soon as a maximum age is set', async () => {
  const s = setup({ maxAgeDays: 30 });
  writeFileSync(s.path, `${JSON.stringify({ title: 'Use pnpm, not npm', body: 'The lockfile is pnpm-lock.yaml.' })}\n`);
  const tenDaysAgo = new Date(Date.now() - 10 * DAY);
  utimesSync(s.path, tenDaysAgo, tenDaysAgo);
  const m = await s.open();
  const [e] = (await m.list({})).entries;
  assert.ok(e);
  assert.notEqual(e.updatedAt.slice(0, 4), '1970');
  assert.notEqual(e.createdAt.slice(0, 4), '1970');
  assert.ok(Math.abs(Date.parse(e.createdAt) - statSync(s.path).mtimeMs) < 2, 'the file\'s mtime at load');
  assert.equal(e.updatedAt, e.createdAt);
  assert.equal(e.aged, false, '10 days old by the file, the maximum is 30');
  await m.configure({ on: true, maxAgeDays: 5 });
  assert.equal((await m.list({})).entries[0]!.aged, true, 'older than 5 days by the file: aged, sensibly');
});

test('a line with only one of its dates uses it for the other; provenance.at is a creation date too', async () => {
  const s = setup({ maxAgeDays: 30 }, () => new Date('2026-06-10T00:00:00.000Z'));
  writeFileSync(
    s.path,
    [
      JSON.stringify({ id: 'u', title: 'Only updated', updatedAt: '2026-06-01T00:00:00.000Z' }),
      JSON.stringify({ id: 'c', title: 'Only created', createdAt: '2026-06-02T00:00:00.000Z' }),
      JSON.stringify({ id: 'p', title: 'Only provenance', provenance: { sourceKind: 'agent', identity: 'agent', at: '2026-06-03T00:00:00.000Z' } }),
    ].join('\n') + '\n',
  );
  const m = await s.open();
  const byId = new Map((await m.list({})).entries.map((e) => [e.id, e]));
  assert.deepEqual([byId.get('u')!.createdAt, byId.get('u')!.updatedAt], ['2026-06-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z']);
  assert.deepEqual([byId.get('c')!.createdAt, byId.get('c')!.updatedAt], ['2026-06-02T00:00:00.000Z', '2026-06-02T00:00:00.000Z']);
  assert.deepEqual([byId.get('p')!.createdAt, byId.get('p')!.updatedAt], ['2026-06-03T00:00:00.000Z', '2026-06-03T00:00:00.000Z']);
  assert.ok([...byId.values()].every((e) => !e.aged), 'none of them is older than 30 days');
});

test('with no date anywhere, the date is "unknown" (never epoch 0) and an unknown date never ages an entry', () => {
  const parsed = parseStoredEntry({ title: 'No date' }, 'project', '{"title":"No date"}');
  assert.ok(parsed.ok);
  assert.equal(parsed.entry.createdAt, 'unknown');
  assert.equal(parsed.entry.updatedAt, 'unknown');
  const withFile = parseStoredEntry({ title: 'No date' }, 'project', '{"title":"No date"}', '2026-03-04T05:06:07.000Z');
  assert.ok(withFile.ok);
  assert.equal(withFile.entry.updatedAt, '2026-03-04T05:06:07.000Z');
});

test('a union merge with a dated and an undated copy of one id keeps the dated one', async () => {
  const s = setup();
  writeFileSync(s.path, `${full('x', 'Dated copy', { updatedAt: '2026-02-01T00:00:00.000Z' })}\n${JSON.stringify({ id: 'x', title: 'Undated copy' })}\n`);
  const m = await s.open();
  assert.deepEqual((await m.list({})).entries.map((e) => e.title), ['Dated copy']);
});

// ---- writes change only what changed --------------------------------------------------------------------

test('an approve rewrites only its own line: order, other lines, malformed lines and the mode (0644) stay as they were', async (t) => {
  const s = setup();
  const lines = [
    full('b', 'Second by date', { createdAt: '2026-01-05T00:00:00.000Z', fromTheFuture: { x: 1 } }),
    JSON.stringify({ title: 'Hand-written, no id, no dates' }),
    '{"id": "torn", "title": ',
    '',
    full('a', 'First by date'),
    full('c', 'Third', { createdAt: '2026-01-09T00:00:00.000Z' }),
  ];
  writeFileSync(s.path, `${lines.join('\n')}\n`);
  if (!isWindows) chmodSync(s.path, 0o644);
  const m = await s.open();
  await m.approve('a');
  const after = readFileSync(s.path, 'utf8').split('\n');
  assert.equal(after.length, lines.length + 1, 'no line added or removed');
  for (const i of [0, 1, 2, 3, 5]) assert.equal(after[i], lines[i], `line ${i + 1} is untouched`);
  const approved = JSON.parse(after[4]!) as { id: string; trust: { state: string } };
  assert.equal(approved.id, 'a', 'replaced in place');
  assert.equal(approved.trust.state, 'approved');
  if (isWindows) return t.skip('file modes');
  assert.equal(statSync(s.path).mode & 0o777, 0o644, 'the mode stays');
  assert.deepEqual(readdirSync(dirname(s.path)).filter((f) => f.includes('malformed')), [], 'nothing set aside: the bad line stays where it was');
});

test('remember appends, forget removes only its lines (every copy of the id), and a torn last line is never glued to a new one', async () => {
  const s = setup();
  const base = [full('k', 'Keep me'), full('x', 'Forget me', { updatedAt: '2026-01-02T00:00:00.000Z' }), full('y', 'Stay'), full('x', 'Forget me too'), '{"id": "torn"'];
  writeFileSync(s.path, base.join('\n')); // no final newline: a torn last line
  const m = await s.open();
  const added = await m.remember({ scope: 'project', type: 'fact', title: 'Appended after the torn line', source: 'human' });
  let now = readFileSync(s.path, 'utf8').split('\n');
  assert.deepEqual(now.slice(0, base.length), base, 'the old lines, the torn one included, are as they were');
  assert.equal((JSON.parse(now[base.length]!) as { id: string }).id, added.id, 'the new entry is a line of its own');
  await m.forget('x');
  now = readFileSync(s.path, 'utf8').split('\n').filter((l) => l !== '');
  assert.deepEqual(now.slice(0, 3), [base[0], base[2], base[4]]);
  assert.equal(now.length, 4);
});

test('a CRLF file (a Windows checkout) keeps its line ends: a replaced line and new lines end in CRLF too', async () => {
  const s = setup();
  writeFileSync(s.path, `${full('a', 'First')}\r\n${full('b', 'Second')}\r\n`);
  const m = await s.open();
  await m.approve('a');
  await m.remember({ scope: 'project', type: 'fact', title: 'Third', source: 'human' });
  const text = readFileSync(s.path, 'utf8');
  assert.equal(text.split('\r\n').length, 4, 'three lines, each ending in CRLF');
  assert.ok(!/[^\r]\n/.test(text), 'no bare LF');
  assert.equal(text.split('\r\n')[1], full('b', 'Second'));
});

test('a new project file is created like any file in the workspace (umask applies), personal memory stays private (0600)', async (t) => {
  if (isWindows) return t.skip('file modes');
  const s = setup();
  const m = await s.open();
  await m.remember({ scope: 'project', type: 'fact', title: 'First project entry', source: 'human' });
  await m.remember({ scope: 'personal', type: 'fact', title: 'First personal entry', source: 'human' });
  const umask = process.umask();
  assert.equal(statSync(s.path).mode & 0o777, 0o666 & ~umask);
  assert.equal(statSync(memoryPaths(s.workspace, s.storage).personal!).mode & 0o777, 0o600);
});

// ---- every malformed line reported --------------------------------------------------------------------

test('every malformed line is reported with its number and reason, in one problem per load; a new bad line is a new report', async () => {
  const s = setup();
  const good = full('g', 'Good');
  const bad = Array.from({ length: 7 }, (_, i) => (i % 2 === 0 ? `{"broken": ${i}` : JSON.stringify({ id: `t${i}`, title: 'x', type: 'rumour' })));
  writeFileSync(s.path, `${[good, ...bad].join('\n')}\n`);
  const m = await s.open();
  assert.equal((await m.list({})).total, 1);
  assert.equal(s.problems.length, 1, 'one problem for the load');
  for (let i = 0; i < bad.length; i++) assert.match(s.problems[0]!.message, new RegExp(`line ${i + 2} \\(${i % 2 === 0 ? 'not valid JSON' : 'type'}`));
  await m.list({});
  assert.equal(s.problems.length, 1, 'nothing new: not reported again');
  appendFileSync(s.path, 'not json at all\n');
  await m.list({});
  assert.equal(s.problems.length, 2, 'the file changed and has a new bad line');
  assert.match(s.problems[1]!.message, /8 malformed lines/);
  assert.match(s.problems[1]!.message, /line 9 \(not valid JSON/);
});
