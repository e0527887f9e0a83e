/**
 * Owns what a person decides in the decision inbox (listed by inbox.ts): approve (in bulk), accept the repository's
 * approvals, edit then approve, reject with a reason that is kept, merge into an existing entry.
 *
 * The flagged rule: an item the threat scan flags is never approved or merged silently. It is refused
 * (`flagged`) until a person marks that exact revision "Reviewed — not a threat" (markReviewed), the explicit
 * override; an edit makes a new revision, judged again.
 */
import { MEMORY_BODY_MAX, type MemoryEntryView, type MemoryScope } from '../../../shared/memorySchemas';
import {
  InboxApproveEditedParamsSchema,
  InboxMergeParamsSchema,
  type InboxApproveEditedParams,
  type InboxBulkResult,
  type InboxMergeParams,
} from '../../../shared/inboxSchemas';
import { currentUser } from '../review/reviewStore';
import { MemoryError } from './errors';
import { superseded } from './lifecycle';
import { computeRevision, isRejected, normalizeTags, proposalOf, type StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { isActive, zodToMemoryError, type ScopeState } from './memoryScopes';
import { refuseSecrets } from './secrets';
import { viewNow, judge } from './visibility';
import { fromRepository, recordApprovals } from './approvals';
import { inInbox } from './inbox';

interface BulkOutcome {
  done: StoredEntry[];
  refused: InboxBulkResult['refused'];
}

/**
 * Runs `step` over `ids`, one read-modify-write per scope. `step` sees the entry as it is now (earlier steps of
 * the same call applied) and answers the entries to write, or throws a MemoryError that refuses only that id.
 */
async function bulk(st: MemoryState, ids: readonly string[], step: (e: StoredEntry, map: Map<string, StoredEntry>, entries: readonly StoredEntry[]) => { done: StoredEntry; also?: StoredEntry[] }): Promise<BulkOutcome> {
  st.assertWritable();
  await st.refresh();
  const out: BulkOutcome = { done: [], refused: [] };
  const byStore = new Map<ScopeState, string[]>();
  for (const id of new Set(ids)) {
    const e = st.find(id);
    if (!e) {
      out.refused.push({ id, reason: 'not-found', message: `No memory entry has the id ${id}. It may have been forgotten, or its scope is not loaded.` });
      continue;
    }
    const store = st.storeOf(e);
    byStore.set(store, [...(byStore.get(store) ?? []), id]);
  }
  for (const [store, scopeIds] of byStore) {
    const result = await st.mutate(store, (entries) => {
      const map = new Map(entries.map((e) => [e.id, e]));
      const upserts = new Map<string, StoredEntry>();
      const done: StoredEntry[] = [];
      const refused: InboxBulkResult['refused'] = [];
      for (const id of scopeIds) {
        const e = map.get(id);
        try {
          if (!e) throw new MemoryError('not-found', `No memory entry has the id ${id}; it was forgotten meanwhile.`);
          const r = step(e, map, entries);
          for (const x of [r.done, ...(r.also ?? [])]) {
            map.set(x.id, x);
            upserts.set(x.id, x);
          }
          done.push(r.done);
        } catch (err) {
          if (!MemoryError.is(err)) throw err;
          refused.push({ id, reason: err.reason, message: err.message });
        }
      }
      return { result: { done, refused }, upserts: [...upserts.values()] };
    });
    out.done.push(...result.done);
    out.refused.push(...result.refused);
  }
  return out;
}

function assertWaiting(st: MemoryState, e: StoredEntry): void {
  if (!inInbox(e, false, st)) {
    const why = isRejected(e) ? 'it was rejected' : e.trust.state !== 'pending' ? `it is ${e.trust.state}` : 'it was superseded or merged';
    throw new MemoryError('invalid', `"${e.title}" (${e.id}) is not waiting in the inbox: ${why}.`);
  }
}

/** The flagged rule (see the module comment). */
function assertNotFlagged(st: MemoryState, e: StoredEntry, doing: string): void {
  const j = judge(st, e);
  if (!j.flagged) return;
  const rules = [...new Set(j.findings.map((f) => f.ruleId))].join(', ');
  throw new MemoryError(
    'flagged',
    `"${e.title}" (${e.id}) reads as an instruction to a model (${rules}); it was not ${doing}. Look at it, and mark it "Reviewed — not a threat" first if you are sure, or edit it.`,
  );
}

function activeCount(entries: readonly StoredEntry[], scope: MemoryScope, sessionKey: string | undefined): number {
  let n = 0;
  for (const e of entries) if (isActive(e) && (scope !== 'session' || e.sessionKey === sessionKey)) n++;
  return n;
}

/**
 * Approves inbox items. A proposal becomes an approved entry (its `proposal` record goes; `provenance.distilledFrom`
 * stays); an update or a conflict supersedes its live target, which records the session (`supersededInSession`).
 * Refused per id: not waiting, flagged, a full scope.
 */
export async function approveItems(st: MemoryState, ids: readonly string[], by?: string): Promise<InboxBulkResult> {
  const at = st.now().toISOString();
  const approvedBy = by ?? currentUser();
  const counts = new Map<string, number>();
  st.assertWritable();
  await st.refresh();
  // Repository items: their line already says approved; accepting records this person's approval, the file stays as committed.
  const fromRepo = new Set(ids.filter((id) => {
    const e = st.find(id);
    return e !== undefined && fromRepository(st, e);
  }));
  const accepted = fromRepo.size > 0 ? await acceptFromRepository(st, [...fromRepo], 'accepted') : { done: [], refused: [] };
  const rest = ids.filter((id) => !fromRepo.has(id));
  if (rest.length === 0) return accepted;
  const outcome = await bulk(st, rest, (e, map, entries) => {
    assertWaiting(st, e);
    assertNotFlagged(st, e, 'approved');
    const p = proposalOf(e);
    const target = p && p.kind !== 'new' && p.target ? map.get(p.target) : undefined;
    const live = target !== undefined && isActive(target);
    const group = `${st.storeOf(e).key}\u0000${e.scope === 'session' ? (e.sessionKey ?? '') : ''}`;
    const active = counts.get(group) ?? activeCount(entries, e.scope, e.sessionKey);
    const cap = st.config.caps[e.scope];
    if (active + 1 - (live ? 1 : 0) > cap) {
      throw new MemoryError('scope-full', `The ${e.scope} memory is full (${active} of ${cap} entries); "${e.title}" was not approved. Consolidate or forget entries first.`);
    }
    counts.set(group, active + 1 - (live ? 1 : 0));
    const next: StoredEntry = { ...e, trust: { ...e.trust, state: 'approved', approvedBy, approvedAt: at }, wrongFlags: [], updatedAt: at };
    delete next.proposal;
    if (next.type === 'decision' && !next.status) next.status = 'active';
    if (!live) return { done: next };
    const old: StoredEntry = { ...superseded(target, e.id, at), supersededInSession: p!.distilledFrom.sessionKey };
    return { done: next, also: [old] };
  });
  await recordApprovals(st, outcome.done, 'self', approvedBy);
  return { done: [...accepted.done, ...outcome.done.map((e) => viewNow(st, e))], refused: [...accepted.refused, ...outcome.refused] };
}

/**
 * Accepts project entries approved in the repository's file (the team's claim): records this person's approval of
 * each revision (`accepted`, or `self` after an edit), never rewriting the committed line. Flagged ones are refused
 * until reviewed, like every other inbox item.
 */
async function acceptFromRepository(st: MemoryState, ids: readonly string[], how: 'accepted' | 'self', by?: string): Promise<InboxBulkResult> {
  const out: InboxBulkResult = { done: [], refused: [] };
  const ok: StoredEntry[] = [];
  for (const id of ids) {
    const e = st.find(id);
    try {
      if (!e) throw new MemoryError('not-found', `No memory entry has the id ${id}.`);
      assertWaiting(st, e);
      assertNotFlagged(st, e, how === 'accepted' ? 'accepted' : 'approved');
      ok.push(e);
    } catch (err) {
      if (!MemoryError.is(err)) throw err;
      out.refused.push({ id, reason: err.reason, message: err.message });
    }
  }
  await recordApprovals(st, ok, how, by);
  out.done = ok.map((e) => viewNow(st, e));
  return out;
}

/**
 * "Accept all from the repository" for one folder (by name; every folder when none is named): each project entry
 * approved in its committed memory.jsonl and not yet by this person. Flagged ones are refused until reviewed.
 */
export async function acceptRepository(st: MemoryState, folder?: string): Promise<InboxBulkResult> {
  st.assertWritable();
  await st.refresh();
  const stores = folder === undefined ? st.storesOf('project') : [st.target('project', folder)];
  const ids = stores.flatMap((s) => (s.loaded ? s.entries.filter((e) => inInbox(e, false, st) && fromRepository(st, e)).map((e) => e.id) : []));
  return acceptFromRepository(st, ids, 'accepted');
}

/** Rejects inbox items, keeping the reason: stored for the record, never reaching a model, out of the inbox. */
export async function rejectItems(st: MemoryState, ids: readonly string[], reason?: string, by?: string): Promise<InboxBulkResult> {
  const at = st.now().toISOString();
  const who = by ?? currentUser();
  const why = reason?.trim();
  const outcome = await bulk(st, ids, (e) => {
    assertWaiting(st, e);
    return { done: { ...e, rejected: { ...(why ? { reason: why } : {}), by: who, at }, updatedAt: at } };
  });
  return { done: outcome.done.map((e) => viewNow(st, e)), refused: outcome.refused };
}

/**
 * Edit then approve one item. The edit is saved first (a new revision, judged again); when the edited text is
 * flagged, the approval is refused (`flagged`) and the edited item stays in the inbox. `asNew`: approve a proposal
 * as a new entry, leaving its target as it is (a conflict or an update the person does not see as one).
 */
export async function approveEdited(st: MemoryState, params: InboxApproveEditedParams, by?: string): Promise<MemoryEntryView> {
  const p = zodToMemoryError(InboxApproveEditedParamsSchema, params);
  st.assertWritable();
  const found = await st.findOrThrow(p.id);
  assertWaiting(st, found);
  const tags = p.edits.tags ? normalizeTags(p.edits.tags) : undefined;
  refuseSecrets({ ...(p.edits.title !== undefined ? { title: p.edits.title } : {}), ...(p.edits.body !== undefined ? { body: p.edits.body } : {}), ...(tags ? { tags } : {}) });
  const at = st.now().toISOString();
  const edited = await st.mutate(st.storeOf(found), (entries) => {
    const e = entries.find((x) => x.id === p.id);
    if (!e) throw new MemoryError('not-found', `No memory entry has the id ${p.id}.`);
    assertWaiting(st, e);
    const next: StoredEntry = { ...e, title: p.edits.title ?? e.title, body: p.edits.body ?? e.body, tags: tags ?? e.tags, type: p.edits.type ?? e.type, importance: p.edits.importance ?? e.importance, updatedAt: at };
    if (next.type === 'decision' && !next.status) next.status = 'active';
    if (next.type !== 'decision') delete next.status;
    const proposal = proposalOf(e);
    if (p.asNew && proposal && proposal.kind !== 'new') {
      const asNew: Record<string, unknown> = { ...proposal, kind: 'new' };
      delete asNew.target;
      delete asNew.targetRevision;
      next.proposal = asNew;
    }
    next.revision = computeRevision(next);
    return { result: next, upserts: [next] };
  });
  assertNotFlagged(st, edited, 'approved (the edit was saved and waits in the inbox)');
  if (fromRepository(st, edited)) {
    // A repository item this person edited: the new text is theirs.
    const r = await acceptFromRepository(st, [p.id], 'self', by ?? currentUser());
    if (r.refused[0]) throw new MemoryError(r.refused[0].reason as MemoryError['reason'], r.refused[0].message);
    return r.done[0]!;
  }
  const r = await approveItems(st, [p.id], by);
  const refused = r.refused[0];
  if (refused) throw new MemoryError(refused.reason as MemoryError['reason'], refused.message);
  return r.done[0]!;
}

/**
 * Merges an inbox item into an existing active entry (not itself waiting): the entry takes the merged text — by
 * default its own title, its body then the item's, the tags joined. In one scope the item is kept, consolidated
 * into the entry (forgetting the entry takes it along); across scopes the item is removed. Refused for a flagged item.
 */
export async function mergeItem(st: MemoryState, params: InboxMergeParams): Promise<MemoryEntryView> {
  const p = zodToMemoryError(InboxMergeParamsSchema, params);
  st.assertWritable();
  const src = await st.findOrThrow(p.id);
  const into = await st.findOrThrow(p.intoId);
  assertWaiting(st, src);
  if (into.id === src.id || !isActive(into) || inInbox(into, true, st)) {
    throw new MemoryError('invalid', `"${into.title}" (${into.id}) cannot take a merge: merge into an existing live entry that is not itself waiting in the inbox.`);
  }
  if (into.scope === 'session' && (src.scope !== 'session' || src.sessionKey !== into.sessionKey)) {
    throw new MemoryError('invalid', 'Only an item of the same session can be merged into a session entry.');
  }
  assertNotFlagged(st, src, 'merged');
  const title = p.title ?? into.title;
  const body = p.body ?? (src.body.trim() === '' || into.body.includes(src.body.trim()) ? into.body : into.body.trim() === '' ? src.body : `${into.body.trimEnd()}\n\n${src.body.trim()}`);
  if (body.length > MEMORY_BODY_MAX) throw new MemoryError('invalid', `The merged body would have ${body.length} characters (at most ${MEMORY_BODY_MAX}); give the merged text yourself.`);
  const tags = normalizeTags([...into.tags, ...src.tags]).slice(0, 20);
  refuseSecrets({ title, body, tags });
  const at = st.now().toISOString();
  const sameScope = st.storeOf(into) === st.storeOf(src);
  const merged = await st.mutate(st.storeOf(into), (entries) => {
    const e = entries.find((x) => x.id === into.id);
    const s = sameScope ? entries.find((x) => x.id === src.id) : src;
    if (!e || !s) throw new MemoryError('not-found', 'The entry or the item was forgotten meanwhile; nothing was merged.');
    const next: StoredEntry = { ...e, title, body, tags, updatedAt: at, ...(sameScope ? { consolidatedFrom: [...new Set([...(e.consolidatedFrom ?? []), s.id])] } : {}) };
    next.revision = computeRevision(next);
    return { result: next, upserts: sameScope ? [next, { ...s, consolidatedInto: e.id, updatedAt: at }] : [next] };
  });
  if (!sameScope) {
    await st.mutate(st.storeOf(src), () => ({ result: undefined, deletes: [src.id] }));
    await st.audit.append({ at, action: 'merge', scope: src.scope, by: currentUser(), target: src.id, deleted: [src.id], restored: [], counts: { deleted: 1, restored: 0 } });
  }
  // The merged text is this person's: its new revision is approved by them.
  await recordApprovals(st, [merged], 'self');
  return viewNow(st, merged);
}
