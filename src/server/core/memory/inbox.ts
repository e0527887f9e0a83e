/**
 * Owns the decision inbox's listing: which pending entries wait for a person (proposals that distillation wrote,
 * entries an agent wrote, entries an import brought, project entries approved only in the repository's file), how
 * they are grouped (by session, with the target and a diff for an update or a conflict), ordered, paged, stamped and
 * counted. What a person does with them is inboxDecisions.ts.
 */
import { createHash } from 'node:crypto';
import {
  InboxParamsSchema,
  type InboxCounts,
  type InboxGroup,
  type InboxItem,
  type InboxParams,
  type InboxResult,
} from '../../../shared/inboxSchemas';
import { isPendingProposal, isRejected, proposalOf, type StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { isActive, zodToMemoryError } from './memoryScopes';
import { fieldDiffs } from './textDiff';
import { judge, toView } from './visibility';
import { fromRepository } from './approvals';
import { memorySource } from '../../../shared/memorySource';

/**
 * A pending entry still waiting for a person, or a project entry approved only in the repository's file (with `st`:
 * see approvals.ts): not superseded, consolidated or archived; rejected ones only on request.
 */
export function inInbox(e: StoredEntry, includeRejected = false, st?: MemoryState): boolean {
  if (e.trust.state !== 'pending' && !(st && fromRepository(st, e))) return false;
  if (e.supersededBy || e.consolidatedInto || e.status === 'archived' || e.status === 'superseded') return false;
  return includeRejected || !isRejected(e);
}

export function originOf(e: StoredEntry, st?: MemoryState): InboxItem['origin'] {
  if (st && fromRepository(st, e)) return 'repository';
  if (isPendingProposal(e)) return 'proposal';
  return e.provenance.sourceKind === 'import' ? 'import' : 'agent';
}

/** Group keys of repository items (one group per folder) start with this; never a session key (those have no U+0001). */
const REPO_GROUP = '\u0001repository\u0001';

/**
 * The session an item belongs to: the distilled session of a proposal, else the session that wrote it (null: none).
 * A repository item: its folder's repository group (the session its line names is the repository's say, not ours).
 */
export function groupKeyOf(e: StoredEntry, st?: MemoryState): string | null {
  if (st && fromRepository(st, e)) return `${REPO_GROUP}${st.storeOf(e).folder?.name ?? ''}`;
  const p = proposalOf(e);
  if (p) return p.distilledFrom.sessionKey;
  return e.provenance.sessionKey ?? e.sessionKey ?? null;
}

/** One inbox item as people see it: the entry, and for an update or a conflict its target now and the diff. */
export function itemView(st: MemoryState, e: StoredEntry, now: number): InboxItem {
  const entry = toView(st, e, now);
  const p = proposalOf(e);
  if (!p || p.kind === 'new' || !p.target) return { origin: originOf(e, st), entry };
  const home = st.storeOf(e);
  const t = home.loaded ? home.byId.get(p.target) : undefined;
  if (!t) return { origin: 'proposal', entry, target: null };
  return { origin: 'proposal', entry, target: toView(st, t, now), diff: fieldDiffs(t, e), targetChanged: p.targetRevision !== undefined && p.targetRevision !== t.revision };
}

function emptyCounts(): InboxCounts {
  return { total: 0, proposals: 0, agentEntries: 0, flagged: 0, updates: 0, conflicts: 0 };
}

function count(st: MemoryState, c: InboxCounts, e: StoredEntry): void {
  c.total += 1;
  if (isPendingProposal(e)) {
    c.proposals += 1;
    const kind = proposalOf(e)?.kind;
    if (kind === 'update') c.updates += 1;
    else if (kind === 'conflict') c.conflicts += 1;
  } else c.agentEntries += 1;
  if (fromRepository(st, e)) c.fromRepository = (c.fromRepository ?? 0) + 1;
  else {
    const source = memorySource({ provenance: e.provenance, proposal: proposalOf(e) });
    const key = source === 'you' || source === 'legacy' ? 'agent' : source;
    const by = (c.bySource ??= {});
    by[key] = (by[key] ?? 0) + 1;
  }
  if (judge(st, e).flagged) c.flagged += 1;
}

/** Newest first by creation; within one distillation (one creation time), by the turn each proposal quotes. */
function itemOrder(a: StoredEntry, b: StoredEntry): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  const ta = proposalOf(a)?.distilledFrom.turn ?? 0;
  const tb = proposalOf(b)?.distilledFrom.turn ?? 0;
  return ta - tb || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The inbox counts only (badges): no views built. Zero while memory is off. */
export async function inboxCounts(st: MemoryState): Promise<InboxCounts> {
  const c = emptyCounts();
  if (!st.config.on) return c;
  await st.refresh();
  for (const e of st.allOrdered()) if (inInbox(e, false, st)) count(st, c, e);
  return c;
}

/** Proposals and pending agent entries, grouped by session (newest group first), paged over items. */
export async function inbox(st: MemoryState, params: InboxParams = {}): Promise<InboxResult> {
  const p = zodToMemoryError(InboxParamsSchema, params);
  if (!st.config.on) return { groups: [], counts: emptyCounts(), total: 0, stamp: 'off' };
  await st.refresh();
  const now = st.now().getTime();
  const counts = emptyCounts();
  const groups = new Map<string | null, { items: StoredEntry[]; counts: InboxCounts; newest: string }>();
  for (const e of st.allOrdered()) {
    if (!inInbox(e, p.includeRejected, st)) continue;
    const rejected = isRejected(e);
    if (!rejected) count(st, counts, e);
    const key = groupKeyOf(e, st);
    if (p.sessionKey !== undefined && key !== p.sessionKey) continue;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { items: [], counts: emptyCounts(), newest: e.createdAt }));
    g.items.push(e);
    if (!rejected) count(st, g.counts, e);
    if (e.createdAt > g.newest) g.newest = e.createdAt;
  }
  const ordered = [...groups.entries()].sort((a, b) => (a[1].newest < b[1].newest ? 1 : a[1].newest > b[1].newest ? -1 : 0));
  const total = ordered.reduce((n, [, g]) => n + g.items.length, 0);
  // The whole listing in order (for the stamp), cheap beside building the views of one page.
  const stamp = createHash('sha256');
  for (const [sessionKey, g] of ordered) {
    g.items.sort(itemOrder);
    stamp.update(`\u0002${sessionKey ?? ''}`);
    for (const e of g.items) stamp.update(stampOf(st, e));
  }
  const out: InboxGroup[] = [];
  let skip = p.offset;
  let room = p.limit;
  for (const [sessionKey, g] of ordered) {
    if (room <= 0) break;
    if (skip >= g.items.length) {
      skip -= g.items.length;
      continue;
    }
    const page = g.items.slice(skip, skip + room);
    skip = 0;
    room -= page.length;
    const repository = sessionKey?.startsWith(REPO_GROUP) ? { folder: sessionKey.slice(REPO_GROUP.length) } : undefined;
    out.push({ sessionKey: repository ? null : sessionKey, counts: g.counts, items: page.map((e) => itemView(st, e, now)), ids: g.items.map((e) => e.id), ...(repository ? { repository } : {}) });
  }
  return { groups: out, counts, total, stamp: stamp.digest('base64url').slice(0, 22) };
}

/** One item's part of the listing's stamp: what places it and what its card shows (see InboxResult.stamp). */
function stampOf(st: MemoryState, e: StoredEntry): string {
  const j = judge(st, e);
  const p = proposalOf(e);
  const home = p?.target ? st.storeOf(e) : undefined;
  const target = p?.target && home?.loaded ? home.byId.get(p.target) : undefined;
  return `\u0001${e.id}\u0000${e.revision}\u0000${j.flagged ? 'f' : ''}${j.reviewed ? 'r' : ''}${isRejected(e) ? 'x' : ''}${fromRepository(st, e) ? 'o' : ''}\u0000${target ? `${target.revision}${isActive(target) ? '' : '-'}` : ''}`;
}
