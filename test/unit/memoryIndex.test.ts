/**
 * Every approved memory entry is eligible for the index: importance orders the layers, it never excludes an
 * entry; what does not fit the index budget (or the block's) is cut loudly, with a count and a pointer to
 * knowledge_recall. MemoryService over real files in a temp folder, with the real scanner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryService } from '../../src/server/core/memory/memoryService';
import { defaultScan } from '../../src/server/core/threat/judgement';
import { compileBlock } from '../../src/server/core/delivery/knowledgeBlock';
import type { ThreatFinding } from '../../src/server/core/threat/threatScanner';

async function memoryOn(): Promise<MemoryService> {
  const root = mkdtempSync(join(tmpdir(), 'sk-memindex-'));
  let t = Date.parse('2026-06-01T12:00:00.000Z');
  const memory = new MemoryService({ workspaceFolder: join(root, 'ws'), globalStoragePath: join(root, 'global'), scan: (text) => defaultScan(text) as readonly ThreatFinding[], reviews: null, now: () => new Date((t += 1000)) });
  await memory.configure({ on: true });
  return memory;
}

test('approving a medium lesson and a low preference brings them into every session’s index, after the more important layers', async () => {
  const memory = await memoryOn();
  const lesson = await memory.remember({ scope: 'project', type: 'lesson', title: 'Retry the flaky upload test once', importance: 'medium', source: 'agent', sessionKey: 'A' });
  const pref = await memory.remember({ scope: 'personal', type: 'preference', title: 'Prefers tabs', importance: 'low', source: 'agent', sessionKey: 'A' });
  const ref = await memory.remember({ scope: 'project', type: 'reference', title: 'Design doc lives in docs/design.md', importance: 'medium', source: 'human' });
  const decision = await memory.remember({ scope: 'project', type: 'decision', title: 'Ship on Tuesdays', source: 'human' });
  const ids = async (key: string) => (await memory.indexFor(key))!.map((l) => l.id);

  assert.deepEqual(await ids('B'), [decision.id, ref.id], 'pending entries of session A do not reach B');
  await memory.approve(lesson.id, 'reviewer');
  await memory.approve(pref.id, 'reviewer');
  assert.deepEqual(await ids('B'), [decision.id, lesson.id, ref.id, pref.id], 'approved: they reach B, medium before low');
  const block = compileBlock([], await memory.indexFor('B'), 8000);
  assert.ok(block.text.includes('[lesson] Retry the flaky upload test once'));
  assert.ok(block.text.includes('[preference] Prefers tabs'));
  assert.equal(block.budget.cutMemoryEntries, 0);
  assert.ok(!block.text.includes('not listed'));
});

test('what does not fit the index budget or the block budget is cut loudly: a count and a pointer to knowledge_recall', async () => {
  const memory = await memoryOn();
  for (let i = 0; i < 60; i++) await memory.remember({ scope: 'project', type: 'fact', title: `Approved fact number ${i} about the build`, importance: i % 2 ? 'low' : 'medium', source: 'human' });
  const index = (await memory.indexFor(undefined))!;
  assert.equal(index.length, 60, 'all sixty are eligible');

  const byIndexBudget = compileBlock([], index, 8000, 200);
  const listed = (byIndexBudget.text.match(/^- \[fact\]/gm) ?? []).length;
  assert.ok(listed > 0 && listed < 60, `listed ${listed}`);
  assert.equal(byIndexBudget.budget.cutMemoryEntries, 60 - listed);
  assert.ok(byIndexBudget.text.includes(`[${60 - listed} more remembered entries not listed — use knowledge_recall to search them.]`), byIndexBudget.text);

  const byBlockBudget = compileBlock([], index, 400);
  assert.ok(byBlockBudget.budget.usedTokens <= 400, `used ${byBlockBudget.budget.usedTokens}`);
  assert.ok(byBlockBudget.budget.cutMemoryEntries > 0);
  assert.ok(byBlockBudget.text.includes(`[${byBlockBudget.budget.cutMemoryEntries} more remembered entries not listed — use knowledge_recall to search them.]`));
  // Importance orders the layers, so a cut takes the low ones first: the 30 medium facts lead the index.
  const isMedium = (line: string) => /number \d*[02468] /.test(line);
  assert.ok(index.slice(0, 30).every((e) => isMedium(e.line)) && index.slice(30).every((e) => !isMedium(e.line)));
});
