/**
 * Distillation and the decision inbox, each beside a baseline measured in the same run:
 *
 * - distil a 200-turn transcript with an in-process fake model that answers 20 proposals at once: the prompt built
 *   (numbered, in the envelope, cut to a 100k-token model), the answer read with zod, then the server side —
 *   secrets refused, classified against 1,000 stored entries (restatements become updates, a reversed decision a
 *   conflict), scanned, stored in one write per scope. Baseline: the same 20 proposals remembered one by one
 *   through the existing remember path (scan, supersede, one write each).
 * - the inbox at 1,000 pending proposals: grouped by session, each item with its findings and, for updates and
 *   conflicts, the target and a word diff. Baseline: the existing people's listing (`list`) of the same 1,000
 *   pending entries. Figures in proposals per second.
 *
 * Runnable alone: `node --import tsx bench/distill.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryService, memoryPaths } from '../src/server/core/memory/memoryService';
import { serializeEntry } from '../src/server/core/memory/memoryEntry';
import { sharedScanner } from '../src/server/core/threat/judgement';
import { DISTILL_INPUT_SHARE, buildDistillPrompt, parseDistillAnswer, type DistillTurn } from '../src/extension/memory/distillPrompt';
import type { DistilledProposal } from '../src/shared/inboxSchemas';
import { fmt, printTable, timeRuns } from './harness';
import { makeEntries } from './memory';

const TURNS = 200;
const STORED = 1000;
const PROPOSALS = 20;
const PENDING = 1000;
const RUNS = Number(process.env.BENCH_DISTILL_RUNS ?? 15);
const MODEL_INPUT_TOKENS = 100_000;

function transcript(n: number): DistillTurn[] {
  return Array.from({ length: n }, (_, i) => ({
    prompt: `Turn ${i + 1} question: why does the upload test fail on the S3 mock when the cache is cold, and should we retry it? `.repeat(2),
    response: `Answer ${i + 1}: the S3 mock answers slowly on a cold cache; one retry makes it pass. We decided to keep the retry in CI and to document it in the runbook. `.repeat(4),
  }));
}

/** Distinct words for proposal `k` of run `r`, so that proposals do not restate each other. */
function words(r: number, k: number, n: number): string {
  const syl = 'ka lo mi ne su ta ri po be da fu gi ho ja ku le ma no pi ra se ti vo wa ze'.split(' ');
  let s = (r * 7919 + k * 104_729 + 1) >>> 0;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) % syl.length;
  return Array.from({ length: n }, () => `${syl[next()]}${syl[next()]}${syl[next()]}`).join(' ');
}

/** What the fake model answers for run `r`: 16 new lessons, 3 restatements of stored entries (updates), 1 reversed decision. */
function answer(r: number, stored: ReturnType<typeof makeEntries>, decisionId: string): string {
  const out: DistilledProposal[] = [];
  for (let k = 0; k < PROPOSALS - 4; k++) {
    out.push({ type: 'lesson', title: `Lesson ${words(r, k, 4)}`, body: `The ${words(r, k + 100, 12)} when the cache is cold.`, tags: ['ci', `r${r}`], importance: 'medium', rationale: `Turn ${k + 1}: "one retry makes it pass"`, turn: k + 1 });
  }
  for (let k = 0; k < 3; k++) {
    const e = stored[(r * 3 + k) % stored.length]!;
    out.push({ type: e.type, title: e.title, body: `${e.body} Restated in run ${r}.`, tags: e.tags, importance: 'medium', rationale: `Turn ${100 + k}: "as we said"`, turn: 100 + k });
  }
  out.push({ type: 'decision', title: `Run ${r}: keep the retry out of CI`, body: 'Reversed.', tags: [], importance: 'high', rationale: 'Turn 199: "no retries in CI"', turn: 199, contradicts: decisionId });
  return JSON.stringify(out);
}

export async function runDistillBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sk-bench-distill-'));
  try {
    const workspace = join(root, 'ws');
    const storage = join(root, 'global');
    mkdirSync(join(workspace, '.knowledge'), { recursive: true });
    const stored = makeEntries(STORED);
    writeFileSync(memoryPaths(workspace, storage).project!, `${stored.map(serializeEntry).join('\n')}\n`);
    const caps = { session: 100_000, project: 100_000, personal: 100_000 };
    const memory = new MemoryService({ workspaceFolder: workspace, globalStoragePath: storage, scan: (t) => sharedScanner.scan(t), reviews: null });
    await memory.configure({ on: true, caps });
    await memory.warmUp();
    const decision = await memory.remember({ scope: 'project', type: 'decision', title: 'Keep the upload retry in CI', source: 'human' });
    const turns = transcript(TURNS);
    const decisions = [{ id: decision.id, title: decision.title }];

    // ---- ours: prompt, parse, classify + scan + store (one write per scope)
    let kinds = '';
    let promptTokens = 0;
    let cut = 0;
    const prompt = await timeRuns(RUNS, () => buildDistillPrompt(turns, decisions, Math.floor(MODEL_INPUT_TOKENS * DISTILL_INPUT_SHARE)));
    const distil = await timeRuns(RUNS, async (r) => {
      const p = buildDistillPrompt(turns, decisions, Math.floor(MODEL_INPUT_TOKENS * DISTILL_INPUT_SHARE));
      promptTokens = Math.ceil(p.text.length / 4);
      cut = p.cutTurns;
      const parsed = parseDistillAnswer(answer(r, stored, decision.id));
      if (!parsed.ok) throw new Error(parsed.problem);
      const out = await memory.submitDistilled({ sessionKey: `bench-${r}`, model: 'fake/bench', turns: TURNS, proposals: parsed.proposals });
      if (r === 0) {
        const count = (k: string) => out.items.filter((i) => i.entry.proposal?.kind === k).length;
        kinds = `${count('new')} new, ${count('update')} updates, ${count('conflict')} conflict, ${out.skipped.length} skipped`;
      }
    });

    // ---- baseline: the same proposals remembered one by one (scan, supersede, one write each)
    const baseline = await timeRuns(RUNS, async (r) => {
      const parsed = parseDistillAnswer(answer(RUNS + r, stored, decision.id));
      if (!parsed.ok) throw new Error(parsed.problem);
      for (const p of parsed.proposals) {
        await memory.remember({ scope: 'project', type: p.type, title: p.title, body: p.body, tags: p.tags, importance: p.importance, source: 'agent', sessionKey: `base-${r}` });
      }
    });

    printTable(
      `Distil a ${TURNS}-turn transcript (fake model, ${PROPOSALS} proposals against ${STORED.toLocaleString('en')} stored entries; prompt ~${promptTokens.toLocaleString('en')} tokens, ${cut} turns cut; first run: ${kinds}; ${RUNS} runs; ms)`,
      ['case', 'p50', 'p95', 'per proposal p50'],
      [
        ['prompt only: number, envelope, cut to fit', fmt(prompt.p50), fmt(prompt.p95), '—'],
        ['distil: prompt + parse + classify + scan + store', fmt(distil.p50), fmt(distil.p95), fmt(distil.p50 / PROPOSALS)],
        ['baseline: remember the same proposals one by one', fmt(baseline.p50), fmt(baseline.p95), fmt(baseline.p50 / PROPOSALS)],
        ['ratio (baseline / distil)', `${(baseline.p50 / distil.p50).toFixed(1)}×`, '', ''],
      ],
    );

    // ---- the inbox at 1,000 pending proposals (a fresh store: only the pending ones and the stored entries)
    const inboxRoot = join(root, 'inbox');
    mkdirSync(join(inboxRoot, 'ws', '.knowledge'), { recursive: true });
    writeFileSync(memoryPaths(join(inboxRoot, 'ws'), join(inboxRoot, 'global')).project!, `${stored.map(serializeEntry).join('\n')}\n`);
    const inboxMemory = new MemoryService({ workspaceFolder: join(inboxRoot, 'ws'), globalStoragePath: join(inboxRoot, 'global'), scan: (t) => sharedScanner.scan(t), reviews: null });
    await inboxMemory.configure({ on: true, caps });
    await inboxMemory.warmUp();
    const d2 = await inboxMemory.remember({ scope: 'project', type: 'decision', title: 'Keep the upload retry in CI', source: 'human' });
    for (let r = 0; inboxMemory && (await inboxMemory.inboxCounts()).total < PENDING; r++) {
      const parsed = parseDistillAnswer(answer(r, stored, d2.id));
      if (!parsed.ok) throw new Error(parsed.problem);
      await inboxMemory.submitDistilled({ sessionKey: `inbox-${r}`, model: 'fake/bench', turns: TURNS, proposals: parsed.proposals });
    }
    const counts = await inboxMemory.inboxCounts();
    const listing = await timeRuns(RUNS, () => inboxMemory.inbox({ limit: 1000 }));
    const counting = await timeRuns(RUNS, () => inboxMemory.inboxCounts());
    const baseList = await timeRuns(RUNS, async () => {
      await inboxMemory.list({ trust: 'pending', offset: 0, limit: 500 });
      await inboxMemory.list({ trust: 'pending', offset: 500, limit: 500 });
    });
    const perSecond = (ms: number) => Math.round((counts.total / ms) * 1000).toLocaleString('en');
    printTable(
      `Inbox at ${counts.total.toLocaleString('en')} pending (${counts.updates} updates, ${counts.conflicts} conflicts, in ${STORED.toLocaleString('en')} stored entries; ${RUNS} runs)`,
      ['case', 'p50 ms', 'p95 ms', 'proposals/s (p50)'],
      [
        ['inbox: grouped, findings, targets and diffs', fmt(listing.p50), fmt(listing.p95), perSecond(listing.p50)],
        ['inbox count (badges)', fmt(counting.p50), fmt(counting.p95), perSecond(counting.p50)],
        ['baseline: list the same pending entries (2 pages of 500)', fmt(baseList.p50), fmt(baseList.p95), perSecond(baseList.p50)],
      ],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) void runDistillBench();
