/**
 * Owns the reads: people's listing (filters, paging), a model's recall (trigram candidates ranked by fuse.js),
 * reading one entry, and the layered index of titles for a session's block.
 */
import Fuse, { type IFuseOptions } from 'fuse.js';
import type { z } from 'zod';
import {
  MemoryListParamsSchema,
  RecallParamsSchema,
  type MemoryEntryView,
  type MemoryListParams,
  type MemoryListResult,
  type RecallParams,
} from '../../../shared/memorySchemas';
import type { MemoryIndexEntry } from '../delivery/knowledgeBlock';
import { buildLayeredIndex } from './layeredIndex';
import type { StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { searchKey, zodToMemoryError } from './memoryScopes';
import { trigrams } from './similarity';
import { isAged, judge, modelView, toView } from './visibility';

/** Fuse scores are 0 (perfect) to 1; results worse than this are not recalled. */
export const RECALL_SCORE_THRESHOLD = 0.45;
/** How many trigram candidates the fuzzy scorer ranks (keeps recall flat as the store grows). */
const CANDIDATES = 64;

interface SearchDoc {
  key: string;
  title: string;
  body: string;
  tags: string[];
}

const FUSE_OPTIONS: IFuseOptions<SearchDoc> = {
  keys: [
    { name: 'title', weight: 2 },
    { name: 'tags', weight: 1.5 },
    { name: 'body', weight: 1 },
  ],
  includeScore: true,
  threshold: 0.4,
  ignoreLocation: true,
  useTokenSearch: true,
};

/** People's view: every entry of the loaded scopes, flagged ones included with their findings. */
export async function list(st: MemoryState, params: MemoryListParams): Promise<MemoryListResult> {
  const p = zodToMemoryError(MemoryListParamsSchema, params);
  if (!st.config.on) return { entries: [], total: 0 };
  return listLoaded(st, p);
}

/**
 * People's view of the flagged entries only, with their findings — also while memory is off, so that an
 * attack committed to the project file is seen. The other filters narrow it; `flagged` cannot widen it.
 */
export async function listFlagged(st: MemoryState, params: MemoryListParams): Promise<MemoryListResult> {
  const p = zodToMemoryError(MemoryListParamsSchema, params);
  return listLoaded(st, { ...p, flagged: true });
}

async function listLoaded(st: MemoryState, p: z.output<typeof MemoryListParamsSchema>): Promise<MemoryListResult> {
  await st.refresh();
  const now = st.now().getTime();
  const accept = (e: StoredEntry): boolean => {
    if (p.scope && e.scope !== p.scope) return false;
    if (p.folder !== undefined && (e.scope !== 'project' || st.storeOf(e).folder?.name !== p.folder)) return false;
    if (p.type && e.type !== p.type) return false;
    if (p.trust && e.trust.state !== p.trust) return false;
    if (p.sessionKey !== undefined && e.sessionKey !== p.sessionKey && e.provenance.sessionKey !== p.sessionKey) return false;
    if (p.flagged !== undefined && judge(st, e).flagged !== p.flagged) return false;
    if (p.aged !== undefined && isAged(st, e, now) !== p.aged) return false;
    return true;
  };
  const matched = p.query && p.query.trim() !== '' ? searchEntries(st, p.query, accept, Math.max(CANDIDATES, p.offset + p.limit)) : st.allOrdered().filter(accept);
  return { entries: matched.slice(p.offset, p.offset + p.limit).map((e) => toView(st, e, now)), total: matched.length };
}

/** A model's view: never flagged, aged, legacy, wrong, superseded, or another session's pending entries. */
export async function recall(st: MemoryState, params: RecallParams): Promise<MemoryEntryView[]> {
  const p = zodToMemoryError(RecallParamsSchema, params);
  if (!st.config.on) return [];
  await st.refresh();
  const now = st.now().getTime();
  const accept = (e: StoredEntry) => (!p.scope || e.scope === p.scope) && (!p.type || e.type === p.type) && modelView(st, e, p.sessionKey, now);
  if (p.query.trim() === '') {
    const rank = { high: 0, medium: 1, low: 2 } as const;
    return st
      .allOrdered()
      .filter(accept)
      .sort((a, b) => rank[a.importance] - rank[b.importance] || (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
      .slice(0, p.limit)
      .map((e) => modelEntryView(st, e, now));
  }
  return searchEntries(st, p.query, accept, CANDIDATES)
    .slice(0, p.limit)
    .map((e) => modelEntryView(st, e, now));
}

/** An entry as a model is given it: a folder whose name reads as an instruction is named by its place. */
function modelEntryView(st: MemoryState, e: StoredEntry, now: number): MemoryEntryView {
  const view = toView(st, e, now);
  const folder = st.folderForModel(e);
  return folder === view.folder ? view : { ...view, ...(folder !== undefined ? { folder } : {}) };
}

/** Trigram candidates (accepted only), then fuse.js over title, body and tags with a score threshold. */
function searchEntries(st: MemoryState, query: string, accept: (e: StoredEntry) => boolean, k: number): StoredEntry[] {
  const grams = trigrams(query);
  let candidates: StoredEntry[];
  if (grams.length > 0) {
    candidates = st.search
      .topCandidates(grams, k, (key) => {
        const e = st.byKey(key);
        return e !== undefined && accept(e);
      })
      .map((key) => st.byKey(key)!);
  } else {
    const q = query.trim().toLowerCase();
    candidates = st
      .allOrdered()
      .filter((e) => accept(e) && `${e.title} ${e.body} ${e.tags.join(' ')}`.toLowerCase().includes(q))
      .slice(0, k);
  }
  if (candidates.length === 0) return [];
  const docs: SearchDoc[] = candidates.map((e) => ({ key: searchKey(st.storeOf(e), e.id), title: e.title, body: e.body, tags: e.tags }));
  const fuse = new Fuse(docs, FUSE_OPTIONS);
  const results = fuse.search(query.slice(0, 500)).filter((r) => (r.score ?? 1) <= RECALL_SCORE_THRESHOLD);
  return results.map((r) => candidates[r.refIndex]!);
}

/**
 * One entry. For a model (`forModel`, or a `sessionKey` given): null unless the model may see it. For
 * people: null only when no entry has that id.
 */
export async function read(st: MemoryState, id: string, opts: { sessionKey?: string; forModel?: boolean }): Promise<MemoryEntryView | null> {
  if (!st.config.on) return null;
  await st.refresh();
  const e = st.find(id);
  if (!e) return null;
  const now = st.now().getTime();
  const forModel = opts.forModel ?? opts.sessionKey !== undefined;
  if (forModel && !modelView(st, e, opts.sessionKey, now)) return null;
  return forModel ? modelEntryView(st, e, now) : toView(st, e, now);
}

interface IndexMemo {
  inputs: readonly unknown[];
  index: MemoryIndexEntry[];
}
const indexMemos = new WeakMap<MemoryState, Map<string, IndexMemo>>();
/** Aging is judged to the minute: a memoised index is recomputed at least once a minute. */
const AGING_STEP_MS = 60_000;

/**
 * The layered index for a session's block; null when memory is off. Titles only, never bodies. Memoised by the
 * revisions of its inputs — each scope's snapshot (a new array whenever its file changed), the configuration, the
 * reviews as loaded, this person's approvals as loaded, the judgement cache's generation and the minute (aging) — so that with nothing changed it costs
 * the scopes' stats and one comparison, and answers the very same array (the block's memo compares it by reference).
 */
export async function indexFor(st: MemoryState, sessionKey: string | undefined): Promise<MemoryIndexEntry[] | null> {
  if (!st.config.on) return null;
  await st.refresh();
  const now = st.now().getTime();
  const stores = st.stores();
  const inputs = [...stores.flatMap((s) => [s, s.entries, s.loaded, s.folder?.name, s.folder?.reviews?.revision]), st.config, st.deps.reviews?.revision, st.userTrust?.revision, st.verdicts.judgedSince, Math.floor(now / AGING_STEP_MS)];
  let memos = indexMemos.get(st);
  if (!memos) indexMemos.set(st, (memos = new Map()));
  const memoKey = sessionKey ?? '\u0000none';
  const memo = memos.get(memoKey);
  if (memo && memo.inputs.length === inputs.length && memo.inputs.every((v, i) => v === inputs[i])) return memo.index;
  const visible = st.allOrdered().filter((e) => modelView(st, e, sessionKey, now));
  const index = buildLayeredIndex(visible, sessionKey, (e) => st.folderForModel(e));
  memos.set(memoKey, { inputs, index });
  if (memos.size > 64) memos.delete(memos.keys().next().value!);
  return index;
}
