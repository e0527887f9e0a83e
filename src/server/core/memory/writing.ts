/**
 * Owns writing and trust: remember (secrets refused, restatements superseded, caps kept), a person's edit,
 * approval, "this is wrong" flags, and "reviewed — not a threat" for a flagged revision.
 */
import {
  FlagWrongParamsSchema,
  RememberParamsSchema,
  UpdateMemoryParamsSchema,
  type MemoryEntryView,
  type RememberParams,
  type UpdateMemoryParams,
} from '../../../shared/memorySchemas';
import { currentUser } from '../review/reviewStore';
import { RULESET_VERSION } from '../threat/threatScanner';
import { MemoryError } from './errors';
import { capCheck, superseded, supersedeTargets } from './lifecycle';
import { approveItems } from './inboxDecisions';
import { computeRevision, isPendingProposal, normalizeTags, type StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { newId, zodToMemoryError } from './memoryScopes';
import { refuseSecrets } from './secrets';
import { findingsOf, viewNow } from './visibility';
import { fromRepository, personallyApproved, recordApprovals } from './approvals';

export async function remember(st: MemoryState, params: RememberParams): Promise<MemoryEntryView> {
  const p = zodToMemoryError(RememberParamsSchema, params);
  st.assertWritable();
  if (p.scope === 'session' && !p.sessionKey) throw new MemoryError('invalid', 'A session-scope entry needs the sessionKey of its session.');
  const store = st.target(p.scope, p.folder);
  const tags = normalizeTags(p.tags);
  refuseSecrets({ title: p.title, body: p.body, tags });
  const at = st.now().toISOString();
  const human = p.source === 'human';
  const identity = p.identity ?? (human ? currentUser() : 'agent');
  const entry: StoredEntry = {
    id: newId(),
    scope: p.scope,
    ...(p.scope === 'session' ? { sessionKey: p.sessionKey } : {}),
    type: p.type,
    ...(p.type === 'decision' ? { status: 'active' as const } : {}),
    title: p.title,
    body: p.body,
    tags,
    importance: p.importance,
    confidence: p.confidence,
    provenance: { sourceKind: p.source, identity, ...(p.sessionKey ? { sessionKey: p.sessionKey } : {}), at },
    trust: human ? { state: 'approved', approvedBy: identity, approvedAt: at } : { state: 'pending' },
    revision: computeRevision({ type: p.type, title: p.title, body: p.body, tags }),
    createdAt: at,
    updatedAt: at,
    ...(p.expiresAt ? { expiresAt: p.expiresAt } : {}),
    wrongFlags: [],
  };
  st.place(entry, store);
  await st.mutate(store, (entries) => {
    const targets = supersedeTargets(st, entry, entries);
    capCheck(st, p.scope, entries, p.sessionKey, 1, targets.length);
    return { result: undefined, upserts: [entry, ...targets.map((t) => superseded(t, entry.id, at))] };
  });
  // A person remembered it here: approved by them (a project entry's approval is kept in their own record).
  if (human) await recordApprovals(st, [entry], 'self', identity);
  return viewNow(st, entry);
}

/** Replaces the entry `id` of `found`'s scope with `edit` of its fresh copy; returns the new view. */
async function editEntry(st: MemoryState, found: StoredEntry, id: string, edit: (e: StoredEntry) => StoredEntry): Promise<MemoryEntryView> {
  const updated = await st.mutate(st.storeOf(found), (entries) => {
    const e = entries.find((x) => x.id === id);
    if (!e) throw new MemoryError('not-found', `No memory entry has the id ${id}.`);
    const next = edit(e);
    return { result: next, upserts: [next] };
  });
  return viewNow(st, updated);
}

/** A person edits an entry: new revision, judged again (an earlier review no longer covers it). */
export async function update(st: MemoryState, params: UpdateMemoryParams): Promise<MemoryEntryView> {
  const p = zodToMemoryError(UpdateMemoryParamsSchema, params);
  st.assertWritable();
  const found = await st.findOrThrow(p.id);
  const tags = p.tags ? normalizeTags(p.tags) : undefined;
  refuseSecrets({ ...(p.title !== undefined ? { title: p.title } : {}), ...(p.body !== undefined ? { body: p.body } : {}), ...(tags ? { tags } : {}) });
  const at = st.now().toISOString();
  // An approved entry this person edits stays approved by them (the new revision is their text). One approved only in
  // the repository's file stays waiting for acceptance when its text is unchanged (an importance change, say).
  const mine = found.trust.state === 'approved' && personallyApproved(st, found);
  const view = await editEntry(st, found, p.id, (e) => {
    const next: StoredEntry = { ...e, title: p.title ?? e.title, body: p.body ?? e.body, tags: tags ?? e.tags, type: p.type ?? e.type, importance: p.importance ?? e.importance, updatedAt: at };
    if (next.type === 'decision' && !next.status) next.status = next.supersededBy ? 'superseded' : 'active';
    if (next.type !== 'decision') delete next.status;
    next.revision = computeRevision(next);
    return next;
  });
  const edited = st.find(p.id);
  if (edited && (mine || edited.revision !== found.revision)) {
    await recordApprovals(st, [edited], 'self');
    return viewNow(st, edited);
  }
  return view;
}

/** A person approves: the entry may now reach every session (a legacy one, too). Clears "wrong" flags. */
export async function approve(st: MemoryState, id: string, by?: string): Promise<MemoryEntryView> {
  st.assertWritable();
  const found = await st.findOrThrow(id);
  // A pending proposal goes through the inbox; so does a repository entry (accepting it records this person's approval
  // and leaves the committed line as it is), unless someone flagged it wrong here (approving again clears that).
  if (isPendingProposal(found) || (fromRepository(st, found) && found.wrongFlags.length === 0)) {
    const r = await approveItems(st, [id], by);
    const refused = r.refused[0];
    if (refused) throw new MemoryError(refused.reason as MemoryError['reason'], refused.message);
    return r.done[0]!;
  }
  const at = st.now().toISOString();
  const approvedBy = by ?? currentUser();
  const view = await editEntry(st, found, id, (e) => ({ ...e, trust: { ...e.trust, state: 'approved', approvedBy, approvedAt: at }, wrongFlags: [], updatedAt: at }));
  const approved = st.find(id);
  if (!approved) return view;
  await recordApprovals(st, [approved], 'self', approvedBy);
  return viewNow(st, approved);
}

/** A person says "this is wrong": the entry leaves what models see until someone approves it again. */
export async function flagWrong(st: MemoryState, id: string, reason: string, by?: string): Promise<MemoryEntryView> {
  const p = zodToMemoryError(FlagWrongParamsSchema, { id, reason });
  st.assertWritable();
  const found = await st.findOrThrow(p.id);
  const at = st.now().toISOString();
  const who = by ?? currentUser();
  // One flag per person: flagging again replaces the reason.
  return editEntry(st, found, p.id, (e) => ({ ...e, wrongFlags: [...e.wrongFlags.filter((f) => f.by !== who), { reason: p.reason, by: who, at }], updatedAt: at }));
}

/** "Reviewed — not a threat" for exactly this revision under the current rule set. */
export async function markReviewed(st: MemoryState, id: string, revision: string): Promise<MemoryEntryView> {
  st.assertWritable();
  const e = await st.findOrThrow(id);
  const reviews = st.reviewsOf(e);
  if (!reviews) throw new MemoryError('scope-unavailable', 'Open a folder first: reviews are kept in its .knowledge/ folder.');
  if (e.revision !== revision) throw new MemoryError('invalid', `"${e.title}" changed since it was judged; look at it again before marking it reviewed.`);
  const findings = findingsOf(st, e);
  if (findings.length === 0) throw new MemoryError('invalid', `"${e.title}" is not flagged.`);
  await reviews.markReviewed({ id: `memory:${id}`, contentHash: revision, rulesetVersion: RULESET_VERSION, rules: [...new Set(findings.map((f) => f.ruleId))] });
  return viewNow(st, e);
}
