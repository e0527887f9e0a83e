/**
 * Owns distillation on the server side: the model's proposals for one session (validated by the extension and
 * again here) become pending inbox entries carrying a `proposal` record. Each is classified with the supersede
 * machinery (same title, or near-duplicate words at the supersede threshold):
 *
 * - it restates a proposal still waiting, or something a person rejected: skipped (never proposed twice);
 * - it names, through the model's `contradicts`, an approved live decision: a **conflict** with that decision;
 * - it restates a live entry: an **update** of it — or a **conflict** when that entry is an approved decision and
 *   the two differ in polarity (one negates what the other says);
 * - a decision whose title says the opposite of an approved decision's (the same content words, one negated):
 *   a **conflict**;
 * - otherwise **new**.
 *
 * Nothing here reaches a model: a pending proposal is trusted for no session until a person approves it
 * (visibility.ts). The transcript never arrives here — only the proposals.
 */
import type { ProposalKind } from '../../../shared/memorySchemas';
import {
  DistillSubmitParamsSchema,
  type DistillSkip,
  type DistillSubmitParams,
  type DistillSubmitResult,
  type DistilledProposal,
} from '../../../shared/inboxSchemas';
import { MemoryError } from './errors';
import { itemView } from './inbox';
import { computeRevision, isPendingProposal, isRejected, normalizeTags, type StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { isActive, newId, searchKey, zodToMemoryError, type ScopeState } from './memoryScopes';
import { refuseSecrets } from './secrets';
import { jaccard, wordSet, words } from './similarity';

/** Words that turn a statement around. A heuristic: the model's `contradicts` hint is the first source of conflicts. */
const NEGATION = new Set([
  'not', 'no', 'never', 'don', 'doesn', 'didn', 'isn', 'aren', 'shouldn', 'won', 'cannot', 'nor', 'neither', 'without', 'instead', 'avoid', 'avoids',
  'stop', 'stopped', 'drop', 'dropped', 'remove', 'removed', 'deprecate', 'deprecated', 'disable', 'disabled', 'abandon', 'abandoned', 'against', 'forbid', 'forbidden',
]);

function negated(text: string): boolean {
  const w = words(text);
  for (let i = 0; i < w.length; i++) {
    if (NEGATION.has(w[i]!)) return true;
    // "can't" splits into "can" + "t": "can" alone is no negation.
    if (w[i] === 'can' && w[i + 1] === 't') return true;
  }
  return false;
}

function contentWords(text: string): Uint32Array {
  return wordSet(words(text).filter((w) => !NEGATION.has(w) && w !== 't').join(' '));
}

/** Title overlap (content words, negations left out) over which two decisions of opposite polarity conflict. */
export const CONFLICT_TITLE_SIMILARITY = 0.6;


interface Candidate {
  title: string;
  body: string;
  tags: string[];
  type: StoredEntry['type'];
  words: Uint32Array;
}

/** Live or waiting entries of project and personal memory that `c` restates, best first (same title counts as 1). */
function restated(st: MemoryState, c: Candidate, accept: (e: StoredEntry) => boolean): { entry: StoredEntry; similarity: number }[] {
  const out = new Map<string, { entry: StoredEntry; similarity: number }>();
  const title = c.title.toLowerCase();
  for (const s of nonSession(st)) {
    if (!s.loaded) continue;
    for (const e of s.entries) if (e.title.length === c.title.length && e.title.toLowerCase() === title && accept(e)) out.set(searchKey(s, e.id), { entry: e, similarity: 1 });
  }
  const threshold = st.config.supersedeThreshold;
  if (threshold < 1) {
    for (const hit of st.wordsIndex.nearDuplicates(c.words, threshold, (key) => {
      const e = st.byKey(key);
      return e !== undefined && e.scope !== 'session' && accept(e);
    })) {
      if (!out.has(hit.id)) out.set(hit.id, { entry: st.byKey(hit.id)!, similarity: hit.similarity });
    }
  }
  return [...out.values()].sort((a, b) => b.similarity - a.similarity);
}

/** The project stores (one per folder) and the personal one. */
const nonSession = (st: MemoryState): readonly ScopeState[] => st.stores().filter((s) => s.scope !== 'session');

const approvedDecision = (e: StoredEntry): boolean => e.type === 'decision' && e.trust.state === 'approved' && isActive(e) && e.wrongFlags.length === 0;

/** What `c` is, against what is stored now (see the module comment); `skip` when it must not be proposed. */
export function classify(
  st: MemoryState,
  c: Candidate,
  contradicts: string | undefined,
): { kind: ProposalKind; target?: StoredEntry } | { skip: 'already-proposed' | 'rejected-before'; id: string } {
  const waitingOrRejected = restated(st, c, (e) => isRejected(e) || (isPendingProposal(e) && !e.consolidatedInto && !e.supersededBy))[0];
  if (waitingOrRejected) return { skip: isRejected(waitingOrRejected.entry) ? 'rejected-before' : 'already-proposed', id: waitingOrRejected.entry.id };
  if (contradicts) {
    const named = st.find(contradicts);
    if (named && named.scope !== 'session' && approvedDecision(named)) return { kind: 'conflict', target: named };
  }
  const live = restated(st, c, isActive)[0]?.entry;
  if (live) return approvedDecision(live) && negated(live.title) !== negated(c.title) ? { kind: 'conflict', target: live } : { kind: 'update', target: live };
  if (c.type === 'decision') {
    const mine = contentWords(c.title);
    const polarity = negated(c.title);
    let best: { e: StoredEntry; sim: number } | undefined;
    for (const s of nonSession(st)) {
      if (!s.loaded) continue;
      for (const e of s.entries) {
        if (!approvedDecision(e) || negated(e.title) === polarity) continue;
        const sim = jaccard(mine, contentWords(e.title));
        if (sim >= CONFLICT_TITLE_SIMILARITY && (!best || sim > best.sim)) best = { e, sim };
      }
    }
    if (best) return { kind: 'conflict', target: best.e };
  }
  return { kind: 'new' };
}

/**
 * The store a new proposal goes to: the scope asked for, else personal for preferences and project for the rest
 * (the folder asked for, else the first); personal when no folder is open.
 */
function storeForNew(st: MemoryState, type: StoredEntry['type'], asked: 'project' | 'personal' | undefined, folder: string | undefined): ScopeState {
  const want = asked ?? (type === 'preference' ? 'personal' : 'project');
  const store = st.target(want, want === 'project' ? folder : undefined);
  return store.file ? store : st.target('personal');
}

/** Stores the model's proposals for `sessionKey` as pending inbox entries; answers them and what was skipped. */
export async function submitDistilled(st: MemoryState, params: DistillSubmitParams): Promise<DistillSubmitResult> {
  const p = zodToMemoryError(DistillSubmitParamsSchema, params);
  st.assertWritable();
  await st.refresh();
  const at = st.now().toISOString();
  const skipped: DistillSkip[] = [];
  const planned: { entry: StoredEntry; words: Uint32Array; store: ScopeState }[] = [];
  if (p.folder !== undefined) st.target('project', p.folder); // an unknown folder is refused before anything is stored
  p.proposals.forEach((d: DistilledProposal, index) => {
    const skip = (reason: DistillSkip['reason'], message: string, id?: string) => skipped.push({ index, title: d.title, reason, message, ...(id ? { id } : {}) });
    if (d.turn > p.turns) return skip('bad-turn', `It quotes turn ${d.turn}, but the conversation has ${p.turns} turn(s).`);
    const tags = normalizeTags(d.tags);
    try {
      refuseSecrets({ title: d.title, body: d.body, tags });
    } catch (err) {
      if (MemoryError.is(err)) return skip('secret', err.message);
      throw err;
    }
    const c: Candidate = { title: d.title, body: d.body, tags, type: d.type, words: wordSet(`${d.title} ${d.body}`) };
    const twin = planned.find((x) => x.entry.title.toLowerCase() === d.title.toLowerCase() || jaccard(x.words, c.words) >= st.config.supersedeThreshold);
    if (twin) return skip('duplicate-in-answer', `It restates "${twin.entry.title}", proposed in the same answer.`);
    const k = classify(st, c, d.contradicts);
    if ('skip' in k) {
      return skip(k.skip, k.skip === 'rejected-before' ? 'It restates an item a person rejected; it is not proposed again.' : 'It restates a proposal still waiting in the inbox.', k.id);
    }
    const store = k.target ? st.storeOf(k.target) : storeForNew(st, d.type, p.scope, p.folder);
    const scope = store.scope;
    const distilledFrom = { sessionKey: p.sessionKey, turn: d.turn, model: p.model };
    const entry: StoredEntry = {
      id: newId(),
      scope,
      type: d.type,
      ...(d.type === 'decision' ? { status: 'active' as const } : {}),
      title: d.title,
      body: d.body,
      tags,
      importance: d.importance,
      confidence: 1,
      provenance: { sourceKind: 'agent', identity: `distill:${p.model}`, sessionKey: p.sessionKey, at, distilledFrom },
      trust: { state: 'pending' },
      revision: computeRevision({ type: d.type, title: d.title, body: d.body, tags }),
      createdAt: at,
      updatedAt: at,
      wrongFlags: [],
      proposal: { kind: k.kind, ...(k.target ? { target: k.target.id, targetRevision: k.target.revision } : {}), rationale: d.rationale, distilledFrom },
    };
    st.place(entry, store);
    planned.push({ entry, words: c.words, store });
  });
  for (const store of new Set(planned.map((x) => x.store))) {
    const mine = planned.filter((x) => x.store === store).map((x) => x.entry);
    await st.mutate(store, () => ({ result: undefined, upserts: mine }));
  }
  const now = st.now().getTime();
  return { items: planned.map((x) => itemView(st, x.store.byId.get(x.entry.id) ?? x.entry, now)), skipped };
}
