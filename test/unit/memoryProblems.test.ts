/**
 * Store Health for memory files through the real KnowledgeCore: a problem found on load is listed until a
 * later load of the same file is clean, then it is cleared; a repeated load does not pile up copies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserTrustStore } from '../../src/server/core/review/userTrust';
import { KnowledgeCore } from '../../src/server/core/knowledgeCore';
import { memoryPaths } from '../../src/server/core/memory/memoryService';
import type { StoreProblem } from '../../src/shared/schemas';
import { tempWorkspace } from '../helpers/tempWorkspace';

const good = JSON.stringify({ id: 'g', title: 'Good entry', createdAt: '2026-01-01T00:00:00.000Z' });

async function core() {
  const d = tempWorkspace('sk-memhealth-');
  const notified: StoreProblem[] = [];
  const c = new KnowledgeCore({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: true, userTrust: new UserTrustStore(join(d.storage, '..', 'state', 'trust')), onProblem: (p) => notified.push(p) });
  await c.load();
  await c.memory!.configure({ on: true });
  return { ...d, core: c, notified, paths: memoryPaths(d.workspace, d.storage) };
}

const memoryProblems = async (c: KnowledgeCore) => (await c.stats()).problems.filter((p) => p.source.startsWith('memory:'));

test('a malformed memory line stays in Store Health until the file loads clean, then its problem is cleared', async () => {
  const s = await core();
  const path = s.paths.project!;
  writeFileSync(path, `${good}\n{"broken"\n`);
  await s.core.memory!.list({});
  assert.equal((await memoryProblems(s.core)).length, 1);
  assert.equal(s.notified.length, 1, 'the person was told');
  // Another bad line: the newer report replaces the older one rather than piling up.
  writeFileSync(path, `${good}\n{"broken"\nnope\n`);
  await s.core.memory!.list({});
  const now = await memoryProblems(s.core);
  assert.equal(now.length, 1);
  assert.match(now[0]!.message, /2 malformed lines/);
  // Fixed by hand: the next load is clean and the problem goes.
  writeFileSync(path, `${good}\n`);
  await s.core.memory!.list({});
  assert.deepEqual(await memoryProblems(s.core), []);
});

test('an unreadable memory scope is listed until it can be read again', async () => {
  const s = await core();
  const personal = s.paths.personal!;
  mkdirSync(personal, { recursive: true }); // a folder where the file should be
  await s.core.memory!.list({});
  assert.equal((await memoryProblems(s.core)).filter((p) => p.path === personal).length, 1);
  rmSync(personal, { recursive: true });
  await s.core.memory!.reload('personal');
  assert.deepEqual(await memoryProblems(s.core), []);
});
