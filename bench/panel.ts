/**
 * Knowledge panel bench, in two parts.
 *
 * 1. Memory list: the first page of a 10k-entry memory store (BENCH_PANEL_SIZE) must show within
 * 300 ms of the request. Measured end to end: the real language server over IPC answers the first page
 * (knowledge/memory/list), the rows cross into headless Debian Chromium, and the panel's real rendering
 * code (media/panel/render.ts, bundled here with esbuild: plain buttons and checkboxes per row,
 * @vscode-elements only in the inline editors) builds the page and lays it out. Beside it, in the same
 * run, a naive baseline: fetch every entry (in 500-entry requests, the protocol's maximum) and render all
 * of them with the same code. The verdict holds the p50 and the worst run to the target.
 *
 * 2. Decision inbox at 1k pending (BENCH_INBOX_SIZE): 1,000 distilled proposals submitted through the real server
 *    (`knowledge/memory/distill/submit`, 20 at a time from 50 sessions; one in ten restates an approved entry, so it
 *    is an update with a diff). Measured as the memory list's first page is: the panel's first inbox page
 *    (`knowledge/memory/inbox`, offset 0, the panel's INBOX_PAGE read from its bundle) rendered with the panel's
 *    inbox code (media/panel/inboxRender.ts) in headless Chromium — time to first paint of the section (request +
 *    render + layout + a frame) — and the next page appended as a scroll loads it. Beside it, the baseline: the
 *    memory list's first page of the same entries (renderMemoryRows, memory/list); and what it was before, the
 *    whole inbox in one request rendered at once, beside the memory list of the same entries rendered whole.
 *
 * Runnable alone: `node --import tsx bench/panel.ts` (needs `npm run build` for dist/server.js);
 * `BENCH_PANEL_PARTS=inbox` runs only the inbox part.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { MemoryConfigureRequest, MemoryDistillSubmitRequest, MemoryInboxRequest, MemoryListRequest } from '../src/shared/memoryProtocol';
import type { MemoryEntryView } from '../src/shared/memorySchemas';
import type { DistilledProposal } from '../src/shared/inboxSchemas';
import type { InboxGroupView, MemoryEntryRow } from '../src/shared/panelProtocol';
import { startRealServer } from '../test/helpers/serverConnection';
import { fmt, printTable } from './harness';

const SIZE = Number(process.env.BENCH_PANEL_SIZE ?? 10_000);
const RUNS = Number(process.env.BENCH_PANEL_RUNS ?? 15);
const BASELINE_RUNS = Number(process.env.BENCH_PANEL_BASELINE_RUNS ?? 3);
const PAGE = 50;
const TARGET_MS = 300;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WORDS = 'build test deploy pnpm lockfile cache docker node typescript eslint server client memory index search store atomic write parse json branch merge release version token model prompt session block budget schema query retry queue worker backup staging feature flag metrics'.split(' ');

function memoryLines(n: number): string {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  const phrase = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  const base = Date.parse('2026-01-01T00:00:00Z');
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(base + i * 60_000).toISOString();
    const agent = i % 3 === 0;
    out.push(
      JSON.stringify({
        id: `mem_${i.toString(16).padStart(12, '0')}`,
        scope: 'project',
        type: ['fact', 'preference', 'lesson', 'decision', 'reference'][i % 5],
        title: `${phrase(5)} #${i}`,
        body: `${phrase(40)}.`,
        tags: [WORDS[i % WORDS.length]],
        importance: i % 10 === 0 ? 'high' : 'medium',
        confidence: 0.9,
        provenance: agent ? { sourceKind: 'agent', identity: 'agent', sessionKey: `s${i % 50}`, at } : { sourceKind: 'human', identity: 'bench', at },
        trust: agent ? { state: 'pending' } : { state: 'approved', approvedBy: 'bench', approvedAt: at },
        createdAt: at,
        updatedAt: at,
        wrongFlags: [],
      }),
    );
  }
  return `${out.join('\n')}\n`;
}

/** The panel's rendering code as one browser script exposing `__renderMemoryRows`. */
async function renderBundle(): Promise<string> {
  const result = await esbuild.build({
    stdin: {
      contents:
        "import { renderMemoryRows } from './media/panel/render';\nimport { appendInboxGroups, INBOX_PAGE, renderInboxGroups } from './media/panel/inboxRender';\n(globalThis as any).__renderMemoryRows = renderMemoryRows;\n(globalThis as any).__renderInboxGroups = renderInboxGroups;\n(globalThis as any).__appendInboxGroups = appendInboxGroups;\n(globalThis as any).__INBOX_PAGE = INBOX_PAGE;",
      resolveDir: resolve(__dirname, '..'),
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    tsconfig: resolve(__dirname, '../media/panel/tsconfig.json'),
    logLevel: 'warning',
  });
  return result.outputFiles[0]!.text;
}

interface BrowserGlobals {
  performance: { now(): number };
  document: { getElementById(id: string): { getBoundingClientRect(): { height: number }; replaceChildren(): void } };
  requestAnimationFrame(cb: () => void): void;
  __renderMemoryRows(container: unknown, rows: unknown[], ui: unknown): void;
  __renderInboxGroups(container: unknown, groups: unknown[], ui: unknown, total: number): void;
  __appendInboxGroups(container: unknown, groups: unknown[], ui: unknown, shown: number, total: number): void;
  __INBOX_PAGE: number;
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const max = (xs: number[]) => Math.max(...xs);

export async function runPanelBench(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`\nKnowledge panel bench skipped: no Chromium at ${CHROMIUM}`);
    return;
  }
  const parts = (process.env.BENCH_PANEL_PARTS ?? 'memory,inbox').split(',');
  if (parts.includes('memory')) await runMemoryListBench();
  if (parts.includes('inbox')) await runInboxBench();
}

async function runMemoryListBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sk-bench-panel-'));
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.knowledge/notes'), { recursive: true });
  writeFileSync(join(workspace, '.knowledge/memory.jsonl'), memoryLines(SIZE));
  const storage = join(root, 'storage');
  mkdirSync(storage, { recursive: true });
  const server = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: true });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    try {
      await server.connection.sendRequest(MemoryConfigureRequest.type, { on: true, readonly: false, caps: { session: 200, project: SIZE * 2, personal: 1000 }, maxAgeDays: 0, supersedeThreshold: 0.85, indexBudgetTokens: 2000 });
    } catch (err) {
      console.log(`\nKnowledge panel bench skipped: the server has no memory routes yet (${(err as Error).message})`);
      return;
    }
    const page = await browser.newPage({ viewport: { width: 400, height: 900 } });
    await page.setContent('<!DOCTYPE html><html><body><div id="list"></div></body></html>');
    await page.addScriptTag({ content: await renderBundle() });

    const toRows = (entries: MemoryEntryView[]): MemoryEntryRow[] => entries.map((entry) => ({ entry, badge: null, spans: [] }));
    /** Rows into the page (as postMessage would carry them), rendered with the panel's code, laid out. */
    const render = (rows: MemoryEntryRow[]) =>
      page.evaluate((r) => {
        // Runs in the page; the root tsconfig has no DOM lib, so the few browser globals are typed here.
        const g = globalThis as unknown as BrowserGlobals;
        const start = g.performance.now();
        const list = g.document.getElementById('list');
        g.__renderMemoryRows(list, r, { warning: 'Withheld from the agent — reads as an instruction', selected: new Set(), inline: new Map() });
        void list.getBoundingClientRect().height; // force style and layout
        return new Promise<number>((res) => g.requestAnimationFrame(() => res(g.performance.now() - start)));
      }, rows);

    // Warm up the server's load of the store and the page's custom elements.
    await render(toRows((await server.connection.sendRequest(MemoryListRequest.type, { offset: 0, limit: PAGE })).entries));

    const ours = { request: [] as number[], render: [] as number[], total: [] as number[] };
    let total = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const result = await server.connection.sendRequest(MemoryListRequest.type, { offset: 0, limit: PAGE });
      const t1 = performance.now();
      total = result.total;
      const inPage = await render(toRows(result.entries));
      const t2 = performance.now();
      ours.request.push(t1 - t0);
      ours.render.push(inPage);
      ours.total.push(t2 - t0);
    }

    const naive = { request: [] as number[], render: [] as number[], total: [] as number[] };
    for (let i = 0; i < BASELINE_RUNS; i++) {
      const t0 = performance.now();
      const all: MemoryEntryView[] = [];
      for (let offset = 0; ; offset += 500) {
        const r = await server.connection.sendRequest(MemoryListRequest.type, { offset, limit: 500 });
        all.push(...r.entries);
        if (r.entries.length < 500 || all.length >= r.total) break;
      }
      const t1 = performance.now();
      const inPage = await render(toRows(all));
      const t2 = performance.now();
      naive.request.push(t1 - t0);
      naive.render.push(inPage);
      naive.total.push(t2 - t0);
    }

    const row = (name: string, m: typeof ours) => [name, fmt(p50(m.request)), fmt(p50(m.render)), fmt(p50(m.total)), fmt(max(m.total))];
    printTable(
      `Knowledge panel — first page of ${total.toLocaleString('en')} memory entries (ms; real server over IPC + panel rendering in headless Chromium; target p50 and max < ${TARGET_MS} ms)`,
      ['', 'request p50', 'render p50', 'shown p50', 'shown max'],
      [row(`panel: first page of ${PAGE} (${RUNS} runs)`, ours), row(`naive: fetch and render all (${BASELINE_RUNS} runs)`, naive)],
    );
    const verdict = (x: number) => (x < TARGET_MS ? 'meets' : 'MISSES');
    console.log(`first page shown p50 ${fmt(p50(ours.total))} ms, max ${fmt(max(ours.total))} ms — p50 ${verdict(p50(ours.total))} and max ${verdict(max(ours.total))} the ${TARGET_MS} ms target; naive is ${(p50(naive.total) / p50(ours.total)).toFixed(0)}× slower`);
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

const INBOX_SIZE = Number(process.env.BENCH_INBOX_SIZE ?? 1000);
const INBOX_RUNS = Number(process.env.BENCH_INBOX_RUNS ?? 7);
const INBOX_SESSIONS = 50;

/** Approved entries the update proposals restate (one in ten proposals), in memory.jsonl. */
function approvedLines(n: number): string {
  const at = '2026-01-01T00:00:00.000Z';
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(
      JSON.stringify({
        id: `base_${i}`, scope: 'project', type: 'fact', title: `Service ${i} settings`, body: `Service ${i} listens on port ${8000 + i} and logs to stdout.`,
        tags: [], importance: 'medium', confidence: 1, provenance: { sourceKind: 'human', identity: 'bench', at },
        trust: { state: 'approved', approvedBy: 'bench', approvedAt: at }, createdAt: at, updatedAt: at, wrongFlags: [],
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Part 2: the decision inbox at `INBOX_SIZE` pending proposals beside the memory list of the same entries. */
async function runInboxBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sk-bench-inbox-'));
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.knowledge/notes'), { recursive: true });
  const updates = Math.floor(INBOX_SIZE / 10);
  writeFileSync(join(workspace, '.knowledge/memory.jsonl'), approvedLines(updates));
  const storage = join(root, 'storage');
  mkdirSync(storage, { recursive: true });
  const server = await startRealServer({ workspaceFolder: workspace, globalStoragePath: storage, memoryEnabled: true });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const c = server.connection;
    try {
      await c.sendRequest(MemoryConfigureRequest.type, { on: true, readonly: false, caps: { session: 200, project: INBOX_SIZE * 4, personal: 1000 }, maxAgeDays: 0, supersedeThreshold: 0.85, indexBudgetTokens: 2000 });
    } catch (err) {
      console.log(`\nDecision inbox bench skipped: the server has no memory routes (${(err as Error).message})`);
      return;
    }
    // Seed: 1,000 proposals from 50 sessions, 20 per distillation (the protocol's maximum), one in ten an update.
    let seed = 11;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
    const phrase = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
    const perCall = 20;
    let made = 0;
    let submitMs = 0;
    for (let call = 0; made < INBOX_SIZE; call++) {
      const proposals: DistilledProposal[] = [];
      for (let k = 0; k < perCall && made < INBOX_SIZE; k++, made++) {
        const update = made % 10 === 0 && made / 10 < updates;
        proposals.push({
          type: (['fact', 'lesson', 'decision', 'reference'] as const)[made % 4]!,
          title: update ? `Service ${made / 10} settings` : `${phrase(4)} ${made}`,
          body: update ? `Service ${made / 10} listens on port ${9000 + made / 10} and logs to a file.` : `${phrase(30)}.`,
          tags: [WORDS[made % WORDS.length]!],
          importance: 'medium',
          rationale: `Turn ${k + 1}: "${phrase(12)}"`,
          turn: k + 1,
        });
      }
      const t0 = performance.now();
      const r = await c.sendRequest(MemoryDistillSubmitRequest.type, { sessionKey: `bench-session-${call % INBOX_SESSIONS}`, model: 'bench-model', turns: perCall, proposals, scope: 'project' });
      submitMs += performance.now() - t0;
      if (r.skipped.length > 0) throw new Error(`the bench's proposals were skipped: ${JSON.stringify(r.skipped.slice(0, 3))}`);
    }

    const page = await browser.newPage({ viewport: { width: 400, height: 900 } });
    await page.setContent('<!DOCTYPE html><html><body><div id="list"></div></body></html>');
    // The panel's own stylesheet (both sides): layout is most of a whole inbox's first paint.
    await page.addStyleTag({ content: readFileSync(resolve(__dirname, '../media/panel/panel.css'), 'utf8') });
    await page.addScriptTag({ content: await renderBundle() });
    const ui = { warning: 'Withheld from the agent — reads as an instruction', selected: [], active: undefined, part: undefined, notices: [] };
    // The panel's own page size (media/panel/inboxRender.ts), read from the bundle: the bench pages as the panel does.
    const inboxPage = await page.evaluate(() => (globalThis as unknown as BrowserGlobals).__INBOX_PAGE);
    /**
     * Renders in the page (as postMessage would carry the data), lays out, waits a frame: ms in the page. `shown`
     * undefined: the list is rendered anew (a first paint); a number: the page is appended after `shown` items (a scroll).
     */
    const renderInbox = (groups: InboxGroupView[], total: number, shown?: number) =>
      page.evaluate(
        ([g, u, n, at]) => {
          const w = globalThis as unknown as BrowserGlobals;
          const start = w.performance.now();
          const list = w.document.getElementById('list');
          const view = { ...(u as object), selected: new Set(), notices: new Map() };
          if (typeof at === 'number') w.__appendInboxGroups(list, g as unknown[], view, at, n as number);
          else w.__renderInboxGroups(list, g as unknown[], view, n as number);
          void list.getBoundingClientRect().height;
          return new Promise<number>((res) => w.requestAnimationFrame(() => res(w.performance.now() - start)));
        },
        [groups, ui, total, shown ?? null] as const,
      );
    const renderList = (rows: MemoryEntryRow[]) =>
      page.evaluate((r) => {
        const w = globalThis as unknown as BrowserGlobals;
        const start = w.performance.now();
        const list = w.document.getElementById('list');
        w.__renderMemoryRows(list, r, { warning: 'Withheld from the agent — reads as an instruction', selected: new Set(), inline: new Map() });
        void list.getBoundingClientRect().height;
        return new Promise<number>((res) => w.requestAnimationFrame(() => res(w.performance.now() - start)));
      }, rows);

    const fetchInbox = async (offset: number, limit: number) => {
      const r = await c.sendRequest(MemoryInboxRequest.type, { offset, limit });
      const groups: InboxGroupView[] = r.groups.map((g) => ({ sessionKey: g.sessionKey, counts: g.counts, ids: g.ids, items: g.items.map((item) => ({ ...item, spans: [] })) }));
      return { groups, total: r.total, items: groups.reduce((n, g) => n + g.items.length, 0), diffs: groups.reduce((n, g) => n + g.items.filter((i) => i.diff?.length).length, 0) };
    };
    const fetchList = async (limit: number) => {
      const all: MemoryEntryView[] = [];
      for (let offset = 0; ; offset += 500) {
        const r = await c.sendRequest(MemoryListRequest.type, { trust: 'pending', offset, limit: Math.min(500, limit - offset) });
        all.push(...r.entries);
        if (r.entries.length < 500 || all.length >= Math.min(limit, r.total)) break;
      }
      return all.map((entry): MemoryEntryRow => ({ entry, badge: null, spans: [] }));
    };

    // Warm up: the server's load and scan of the store, the page's custom elements.
    const warm = await fetchInbox(0, 1000);
    await renderInbox(warm.groups, warm.total);
    await renderList(await fetchList(INBOX_SIZE));

    type Series = { request: number[]; render: number[]; total: number[] };
    const series = (): Series => ({ request: [], render: [], total: [] });
    const firstPage = series();
    const nextPage = series();
    const listPage = series();
    const whole = series();
    const wholeList = series();
    let items = 0;
    let diffs = 0;
    let listed = 0;
    let pageItems = 0;
    /** An empty list and a quiet page before a first paint (untimed): no run pays for removing the one before it. */
    const reset = () =>
      page.evaluate(() => {
        const w = globalThis as unknown as BrowserGlobals;
        w.document.getElementById('list').replaceChildren();
        return new Promise<void>((res) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => res())));
      });
    const measure = async <T>(into: Series, fetch: () => Promise<T>, render: (r: T) => Promise<number>, fresh = true): Promise<T> => {
      if (fresh) await reset();
      const t0 = performance.now();
      const r = await fetch();
      const t1 = performance.now();
      const inPage = await render(r);
      into.request.push(t1 - t0);
      into.render.push(inPage);
      into.total.push(performance.now() - t0);
      return r;
    };
    for (let i = 0; i < INBOX_RUNS; i++) {
      // Alternated, so neither side gets a warmer page or server.
      // The panel now: the first page, then (scrolled to its end) the next page appended below it.
      const first = await measure(firstPage, () => fetchInbox(0, inboxPage), (r) => renderInbox(r.groups, r.total));
      pageItems = first.items;
      await measure(nextPage, () => fetchInbox(first.items, inboxPage), (r) => renderInbox(r.groups, r.total, first.items), false);
      // The memory list's first page of the same entries: the target.
      await measure(listPage, () => fetchList(inboxPage), (rows) => renderList(rows));
      // Before: the whole inbox in one request, rendered at once; and the memory list of the same entries rendered whole.
      const all = await measure(whole, () => fetchInbox(0, 1000), (r) => renderInbox(r.groups, r.total));
      items = all.items;
      diffs = all.diffs;
      listed = (await measure(wholeList, () => fetchList(INBOX_SIZE), (rows) => renderList(rows))).length;
    }
    const perSecond = (n: number, ms: number) => Math.round((n / ms) * 1000).toLocaleString('en');
    const row = (name: string, m: Series, n: number) => [name, fmt(p50(m.request)), fmt(p50(m.render)), perSecond(n, p50(m.render)), fmt(p50(m.total)), fmt(max(m.total))];
    printTable(
      `Decision inbox — ${items.toLocaleString('en')} pending proposals from ${INBOX_SESSIONS} sessions (${diffs} updates with a diff): first page first, the rest on scroll, beside the memory list's first page (ms; real server over IPC + panel rendering in headless Chromium; p50 of ${INBOX_RUNS} runs; target first paint ≤ ${TARGET_MS} ms)`,
      ['', 'request p50', 'render p50', 'items/s', 'first paint p50', 'first paint max'],
      [
        row(`inbox: first page (${pageItems} of ${items})`, firstPage, pageItems),
        row(`inbox: next page on scroll (appended)`, nextPage, pageItems),
        row(`baseline: memory list, first page (${inboxPage} of the same entries)`, listPage, inboxPage),
        row(`before: inbox of ${items} in one request, rendered whole`, whole, items),
        row(`before: memory list of the same ${listed} rendered whole`, wholeList, listed),
      ],
    );
    const verdict = (x: number) => (x <= TARGET_MS ? 'meets' : 'MISSES');
    console.log(
      `inbox at ${items.toLocaleString('en')} pending: first paint ${fmt(p50(firstPage.total))} ms p50 (max ${fmt(max(firstPage.total))}) — ${verdict(p50(firstPage.total))} the ${TARGET_MS} ms target; memory list's first page ${fmt(p50(listPage.total))} ms (${(p50(firstPage.total) / p50(listPage.total)).toFixed(2)}×); rendered whole it was ${fmt(p50(whole.total))} ms (${(p50(whole.total) / p50(firstPage.total)).toFixed(1)}× the first page); a scrolled page ${fmt(p50(nextPage.total))} ms; seeding took ${fmt(submitMs)} ms for ${Math.ceil(INBOX_SIZE / perCall)} distill/submit requests`,
    );
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) void runPanelBench();
