/**
 * Owns how entries end: supersede (restatements replace what they restate), scope caps, consolidation into
 * one entry, and forgetting — one entry with its provenance cascade, or a whole scope — recorded in the audit log.
 */
import { recordApprovals } from './approvals';
import {
  ConsolidateParamsSchema,
  type ConsolidateParams,
  type ForgetPlan,
  type MemoryEntryView,
  type MemoryScope,
} from '../../../shared/memorySchemas';
import { currentUser } from '../review/reviewStore';
import { MemoryError } from './errors';
import { computeRevision, normalizeTags, type StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { isActive, newId, searchKey, zodToMemoryError, type ScopeState } from './memoryScopes';
import { refuseSecrets } from './secrets';
import { judge, viewNow } from './visibility';

export function capCheck(st: MemoryState, scope: MemoryScope, entries: readonly StoredEntry[], sessionKey: string | undefined, adding: number, freeing: number): void {
  const cap = st.config.caps[scope];
  // Fewer lines than the cap: no need to count the active ones (a remember at 10k entries pays nothing here).
  if (entries.length + adding - freeing <= cap) return;
  let active = 0;
  for (const e of entries) if (isActive(e) && (scope !== 'session' || e.sessionKey === sessionKey)) active += 1;
  if (active + adding - freeing <= cap) return;
  const inScope = entries.filter((e) => isActive(e) && (scope !== 'session' || e.sessionKey === sessionKey));
  const shown = inScope.slice(0, 100).map((e) => `"${e.title}" (${e.id})`);
  const more = inScope.length > shown.length ? `, and ${inScope.length - shown.length} more` : '';
  throw new MemoryError(
    'scope-full',
    `The ${scope} memory${scope === 'session' ? ' of this session' : ''} is full (${inScope.length} of ${cap} entries); nothing was stored. Consolidate related entries into one (or forget some) first. Its entries: ${shown.join('; ')}${more}.`,
  );
}

/** Active entries of the same scope (and session) that `entry` restates: same title, or near-duplicate text. */
export function supersedeTargets(st: MemoryState, entry: StoredEntry, entries: readonly StoredEntry[]): StoredEntry[] {
  const s = st.storeOf(entry);
  const sameGroup = (e: StoredEntry) => e.id !== entry.id && isActive(e) && (entry.scope !== 'session' || e.sessionKey === entry.sessionKey);
  const out = new Map<string, StoredEntry>();
  const title = entry.title.toLowerCase();
  // The store's title index when `entries` is what the store holds (a plan's fresh read); else a pass over them.
  const sameTitle = entries === s.entries ? st.sameTitle(s, entry.title) : entries;
  for (const e of sameTitle) if (e.title.length === entry.title.length && sameGroup(e) && e.title.toLowerCase() === title) out.set(e.id, e);
  const threshold = st.config.supersedeThreshold;
  if (threshold < 1) {
    const prefix = searchKey(s, '');
    for (const hit of st.wordsIndex.nearDuplicates(st.gramsOf(entry).words, threshold, (key) => {
      if (!key.startsWith(prefix)) return false;
      const e = s.byId.get(key.slice(prefix.length));
      return e !== undefined && sameGroup(e);
    })) {
      const e = s.byId.get(hit.id.slice(prefix.length));
      if (e) out.set(e.id, e);
    }
  }
  return [...out.values()];
}

export function superseded(old: StoredEntry, by: string, at: string): StoredEntry {
  return { ...old, supersededBy: by, ...(old.type === 'decision' ? { status: 'superseded' as const } : {}), updatedAt: at };
}

/** Merges a chosen set of one scope into one new entry; the sources stay, marked consolidated. */
export async function consolidate(st: MemoryState, params: ConsolidateParams, by: { source?: 'human' | 'agent'; identity?: string; sessionKey?: string }): Promise<MemoryEntryView> {
  const p = zodToMemoryError(ConsolidateParamsSchema, params);
  st.assertWritable();
  refuseSecrets({ title: p.title, body: p.body });
  const ids = [...new Set(p.ids)];
  if (ids.length < 2) throw new MemoryError('invalid', 'Consolidation needs at least two different entries.');
  const first = await st.findOrThrow(ids[0]!);
  const at = st.now().toISOString();
  const human = (by.source ?? 'human') === 'human';
  const identity = by.identity ?? (human ? currentUser() : 'agent');
  const merged = await st.mutate(st.storeOf(first), (entries) => {
    const map = new Map(entries.map((e) => [e.id, e]));
    const sources = ids.map((id) => {
      const e = map.get(id);
      if (!e) throw new MemoryError('not-found', `No ${first.scope} memory entry has the id ${id}; entries can only be consolidated within one scope${st.multiFolder && first.scope === 'project' ? ' (and one folder)' : ''}.`);
      if (e.consolidatedInto) throw new MemoryError('invalid', `"${e.title}" (${id}) is already consolidated into ${e.consolidatedInto}.`);
      if (first.scope === 'session' && e.sessionKey !== first.sessionKey) throw new MemoryError('invalid', 'Session entries can only be consolidated within one session.');
      return e;
    });
    const types = new Set(sources.map((s) => s.type));
    const type = p.type ?? (types.size === 1 ? sources[0]!.type : 'fact');
    const rank = { low: 0, medium: 1, high: 2 } as const;
    const importance = sources.reduce((best, s) => (rank[s.importance] > rank[best] ? s.importance : best), 'low' as StoredEntry['importance']);
    const tags = normalizeTags(sources.flatMap((s) => s.tags)).slice(0, 20);
    const entry: StoredEntry = {
      id: newId(),
      scope: first.scope,
      ...(first.scope === 'session' && first.sessionKey ? { sessionKey: first.sessionKey } : {}),
      type,
      ...(type === 'decision' ? { status: 'active' as const } : {}),
      title: p.title,
      body: p.body,
      tags,
      importance,
      confidence: Math.round((sources.reduce((sum, s) => sum + s.confidence, 0) / sources.length) * 100) / 100,
      provenance: { sourceKind: human ? 'human' : 'agent', identity, ...(by.sessionKey ? { sessionKey: by.sessionKey } : {}), at },
      trust: human ? { state: 'approved', approvedBy: identity, approvedAt: at } : { state: 'pending' },
      revision: computeRevision({ type, title: p.title, body: p.body, tags }),
      createdAt: at,
      updatedAt: at,
      consolidatedFrom: ids,
      wrongFlags: [],
    };
    return { result: entry, upserts: [entry, ...sources.map((s) => ({ ...s, consolidatedInto: entry.id, updatedAt: at }))] };
  });
  if (human) await recordApprovals(st, [merged], 'self', merged.trust.approvedBy);
  return viewNow(st, merged);
}

/**
 * What forgetting `id` deletes and restores. Follows provenance: the entry, everything it was
 * consolidated from (recursively), and everything it was consolidated into (recursively, upwards);
 * restores the other sources of a deleted merged entry, and what any deleted entry had superseded.
 */
export function planForget(entries: readonly StoredEntry[], id: string): ForgetPlan {
  const map = new Map(entries.map((e) => [e.id, e]));
  const deleted = new Set<string>();
  const down = (x: string) => {
    const e = map.get(x);
    if (!e || deleted.has(x)) return;
    deleted.add(x);
    for (const s of e.consolidatedFrom ?? []) down(s);
  };
  down(id);
  // Upwards: a merged entry carries the deleted content, so it goes too (and what it was merged into).
  for (const x of [...deleted]) {
    for (let up = map.get(x)?.consolidatedInto; up && map.has(up) && !deleted.has(up); up = map.get(up)?.consolidatedInto) deleted.add(up);
  }
  const restored = entries.filter((e) => !deleted.has(e.id) && ((e.consolidatedInto && deleted.has(e.consolidatedInto)) || (e.supersededBy && deleted.has(e.supersededBy)))).map((e) => e.id);
  return { deleted: entries.filter((e) => deleted.has(e.id)).map((e) => e.id), restored };
}

export async function forgetPreview(st: MemoryState, id: string): Promise<ForgetPlan> {
  st.assertWritable();
  const e = await st.findOrThrow(id);
  return planForget(st.storeOf(e).entries, id);
}

/**
 * What forgetting the flagged entry `id` deletes and restores: only that entry (what it was consolidated
 * from or into is judged on its own, and stays); what it superseded or absorbed comes back.
 */
export function planForgetOne(entries: readonly StoredEntry[], id: string): ForgetPlan {
  const restored = entries.filter((e) => e.id !== id && (e.consolidatedInto === id || e.supersededBy === id)).map((e) => e.id);
  return { deleted: entries.some((e) => e.id === id) ? [id] : [], restored };
}

/** Forgets `id` and what follows from it (see planForget). Final; recorded in the audit log (ids, counts). */
export async function forget(st: MemoryState, id: string): Promise<ForgetPlan> {
  st.assertWritable();
  return forgetWith(st, id, 'forget', planForget);
}

/**
 * Forgets one flagged entry (see planForgetOne) — also while memory is off, the one write a person can make
 * then, so that an attack committed to the project file can be removed without turning memory on. Refuses an
 * entry the threat scan does not flag (now, fresh from the file) and read-only memory.
 */
export async function forgetFlagged(st: MemoryState, id: string): Promise<ForgetPlan> {
  st.assertWritable({ evenWhenOff: true });
  return forgetWith(st, id, 'forget-flagged', planForgetOne, (e) => {
    if (!judge(st, e).flagged) throw new MemoryError('invalid', `"${e.title}" (${e.id}) is not flagged; only flagged entries can be forgotten this way. Turn memory on to forget other entries.`);
  });
}

async function forgetWith(st: MemoryState, id: string, action: 'forget' | 'forget-flagged', planFor: (entries: readonly StoredEntry[], id: string) => ForgetPlan, check?: (e: StoredEntry) => void): Promise<ForgetPlan> {
  const found = await st.findOrThrow(id);
  const at = st.now().toISOString();
  const plan = await st.mutate(st.storeOf(found), (entries) => {
    const target = entries.find((x) => x.id === id);
    if (!target) throw new MemoryError('not-found', `No memory entry has the id ${id}.`);
    check?.(target);
    const plan = planFor(entries, id);
    const deleted = new Set(plan.deleted);
    const restored = new Set(plan.restored);
    const upserts = entries
      .filter((e) => restored.has(e.id))
      .map((e) => {
        const next: StoredEntry = { ...e, updatedAt: at };
        if (next.consolidatedInto && deleted.has(next.consolidatedInto)) delete next.consolidatedInto;
        if (next.supersededBy && deleted.has(next.supersededBy)) {
          delete next.supersededBy;
          if (next.type === 'decision' && next.status === 'superseded') next.status = 'active';
        }
        return next;
      });
    return { result: plan, upserts, deletes: deleted };
  });
  await st.audit.append({ at, action, scope: found.scope, by: currentUser(), target: id, deleted: plan.deleted, restored: plan.restored, counts: { deleted: plan.deleted.length, restored: plan.restored.length } });
  return plan;
}

/**
 * The proposals distilled from these sessions that no person approved (waiting or rejected), in project and personal
 * memory: they go with their session. Approved ones stay — a person made them the project's — keeping the session
 * in their provenance. A scope that is not available is left as it is.
 */
async function forgetProposalsOf(st: MemoryState, keys: ReadonlySet<string>, by: string, at: string): Promise<number> {
  let n = 0;
  for (const s of st.stores()) {
    if (s.scope === 'session' || !s.file) continue;
    const scope = s.scope;
    let ids: string[];
    try {
      ids = await st.mutate(s, (entries) => {
        const gone = new Set(
          entries
            .filter((e) => e.trust.state === 'pending' && e.proposal !== undefined && e.proposal !== null)
            .filter((e) => {
              const from = (e.proposal as { distilledFrom?: { sessionKey?: unknown } }).distilledFrom?.sessionKey;
              return typeof from === 'string' && keys.has(from);
            })
            .map((e) => e.id),
        );
        return { result: [...gone], deletes: gone };
      });
    } catch (err) {
      if (MemoryError.is(err) && err.reason === 'scope-unavailable') continue;
      throw err;
    }
    if (ids.length > 0) await st.audit.append({ at, action: 'forget-proposals', scope, by, deleted: ids, restored: [], counts: { deleted: ids.length, restored: 0 } });
    n += ids.length;
  }
  return n;
}

/**
 * "Forget everything" in a scope (session scope: one session's entries when `sessionKey` is given — and the
 * proposals distilled from that session that no person approved). Project memory: the folder named `folder`, or
 * every folder's when none is named.
 */
export async function forgetScope(st: MemoryState, scope: MemoryScope, sessionKey?: string, folder?: string): Promise<{ deleted: number }> {
  st.assertWritable();
  const at = st.now().toISOString();
  let ids: string[] = [];
  for (const store of folder !== undefined ? [st.target(scope, folder)] : st.storesOf(scope)) ids = ids.concat(await forgetStore(st, store, scope, sessionKey, at));
  const proposals = scope === 'session' && sessionKey !== undefined ? await forgetProposalsOf(st, new Set([sessionKey]), currentUser(), at) : 0;
  return { deleted: ids.length + proposals };
}

async function forgetStore(st: MemoryState, store: ScopeState, scope: MemoryScope, sessionKey: string | undefined, at: string): Promise<string[]> {
  const ids = await st.mutate(store, (entries) => {
    const doomed = entries.filter((e) => scope !== 'session' || sessionKey === undefined || e.sessionKey === sessionKey);
    const gone = new Set(doomed.map((e) => e.id));
    // Links from survivors into the deleted set are cleared (only possible within one session's entries).
    const upserts = entries
      .filter((e) => !gone.has(e.id) && ((e.supersededBy && gone.has(e.supersededBy)) || (e.consolidatedInto && gone.has(e.consolidatedInto))))
      .map((e) => {
        const next: StoredEntry = { ...e, updatedAt: at };
        if (next.supersededBy && gone.has(next.supersededBy)) delete next.supersededBy;
        if (next.consolidatedInto && gone.has(next.consolidatedInto)) delete next.consolidatedInto;
        return next;
      });
    return { result: doomed.map((e) => e.id), upserts, deletes: gone };
  });
  await st.audit.append({ at, action: 'forget-scope', scope, by: currentUser(), ...(sessionKey ? { sessionKey } : {}), deleted: ids, restored: [], counts: { deleted: ids.length, restored: 0 } });
  return ids;
}

/**
 * Retention: removes the session-scope entries of the given (pruned) sessions in one rewrite (and the proposals
 * distilled from them that no person approved) — also while memory
 * is off (the sessions are gone; their memory must not outlive them), never while read-only. Recorded in the audit log.
 */
export async function forgetSessions(st: MemoryState, keys: ReadonlySet<string>): Promise<number> {
  st.assertWritable({ evenWhenOff: true });
  if (keys.size === 0) return 0;
  const at = st.now().toISOString();
  const ids = await st.mutate('session', (entries) => {
    const gone = new Set(entries.filter((e) => e.sessionKey !== undefined && keys.has(e.sessionKey)).map((e) => e.id));
    return { result: [...gone], deletes: gone };
  });
  if (ids.length > 0) await st.audit.append({ at, action: 'forget-scope', scope: 'session', by: 'retention', deleted: ids, restored: [], counts: { deleted: ids.length, restored: 0 } });
  return ids.length + (await forgetProposalsOf(st, keys, 'retention', at));
}
