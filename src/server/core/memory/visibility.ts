/**
 * Owns what an entry looks like when read: the threat scan judged again on every read (cached), aging,
 * the trust rules that decide whether a model may see an entry, and the view sent to people and models.
 */
import type { DistilledFrom, MemoryEntryView, MemoryFinding } from '../../../shared/memorySchemas';
import { RULESET_VERSION } from '../threat/threatScanner';
import { isPendingProposal, isRejected, proposalOf, rejectionOf, type StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { claimedApprover, fromRepository, personallyApproved } from './approvals';

interface Judgement {
  findings: MemoryFinding[];
  reviewed: boolean;
  flagged: boolean;
}

/**
 * Findings for this content now (title, body and tags judged together; offsets per field). Cached by
 * revision for this process's rule set (RULESET_VERSION is fixed for the life of a process).
 */
export function findingsOf(st: MemoryState, e: StoredEntry): MemoryFinding[] {
  // By revision only: a WeakMap entry per loaded entry (10k of them at a restart) costs more to fill and to collect than it saves.
  let out = st.verdicts.judged.get(e.revision);
  if (out) return out;
  const tags = e.tags.join(', ');
  const bodyStart = e.title.length + 2;
  const tagsStart = bodyStart + e.body.length + 2;
  const text = `${e.title}\n\n${e.body}\n\n${tags}`;
  out = st.deps.scan(text).map((f): MemoryFinding => {
    const [field, base, length] = f.start < bodyStart ? (['title', 0, e.title.length] as const) : f.start < tagsStart ? (['body', bodyStart, e.body.length] as const) : (['tags', tagsStart, tags.length] as const);
    const start = Math.max(0, Math.min(length, f.start - base));
    const end = Math.max(start, Math.min(length, f.end - base));
    return { ruleId: f.ruleId, category: f.category, message: f.message, field, start, end };
  });
  st.verdicts.record(e, out);
  return out;
}

/** Findings, and whether a person's review of this exact revision (under this rule set) clears them. */
export function judge(st: MemoryState, e: StoredEntry): Judgement {
  const findings = findingsOf(st, e);
  if (findings.length === 0) return { findings, reviewed: false, flagged: false };
  const reviewed = st.reviewsOf(e)?.isReviewed(`memory:${e.id}`, e.revision, RULESET_VERSION) ?? false;
  return { findings, reviewed, flagged: !reviewed };
}

export function isAged(st: MemoryState, e: StoredEntry, now: number): boolean {
  if (e.expiresAt) {
    const t = Date.parse(e.expiresAt);
    if (!Number.isNaN(t) && now >= t) return true;
  }
  if (st.config.maxAgeDays > 0) {
    const created = Date.parse(e.createdAt);
    if (!Number.isNaN(created) && now - created > st.config.maxAgeDays * 86_400_000) return true;
  }
  return false;
}

/**
 * Trust alone: approved, or pending and written by this session; session scope only for its session. A rejected
 * entry never; a pending proposal never — not even for the session it was distilled from — until a person approves it.
 * A project entry (the repository's file) is approved only when this person approved that revision here (approvals.ts):
 * the line's state is the team's claim.
 */
function trusted(st: MemoryState, e: StoredEntry, sessionKey: string | undefined): boolean {
  if (e.scope === 'session' && (sessionKey === undefined || e.sessionKey !== sessionKey)) return false;
  if (isRejected(e) || isPendingProposal(e)) return false;
  if (e.trust.state === 'approved') return personallyApproved(st, e);
  return e.trust.state === 'pending' && sessionKey !== undefined && e.provenance.sessionKey === sessionKey;
}

/**
 * Whether a model asking for `sessionKey` may see `e` (recall, read-for-model, the index): not flagged by
 * the threat scan (a person's review of that exact revision clears it), not aged, not marked wrong by a
 * person, not consolidated into another entry, not superseded by an entry this viewer may see, and trusted:
 * approved, or pending and written by this very session. Legacy entries never. Session-scope entries only
 * to their own session.
 */
export function modelView(st: MemoryState, e: StoredEntry, sessionKey: string | undefined, now: number): boolean {
  if (!trusted(st, e, sessionKey)) return false;
  if (e.consolidatedInto || e.status === 'archived') return false;
  if (e.wrongFlags.length > 0) return false;
  if (e.supersededBy) {
    // Superseded only for a viewer who sees the replacement: an unapproved or flagged restatement never
    // takes an approved entry away from other sessions.
    const by = st.storeOf(e).byId.get(e.supersededBy);
    if (by && trusted(st, by, sessionKey) && !judge(st, by).flagged) return false;
  } else if (e.status === 'superseded') {
    return false;
  }
  if (isAged(st, e, now)) return false;
  return !judge(st, e).flagged;
}

/** `{ sessionKey, turn, model }` of a stored value, when it has that shape (provenance lines are hand-editable). */
export function distilledFromOf(v: unknown): DistilledFrom | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { sessionKey, turn, model } = v as Record<string, unknown>;
  if (typeof sessionKey !== 'string' || typeof model !== 'string' || typeof turn !== 'number' || !Number.isInteger(turn) || turn < 1) return undefined;
  return { sessionKey, turn, model };
}

export function toView(st: MemoryState, e: StoredEntry, now: number): MemoryEntryView {
  const j = judge(st, e);
  const proposal = proposalOf(e);
  const rejection = rejectionOf(e);
  const distilledFrom = distilledFromOf(e.provenance.distilledFrom);
  const folderName = st.folderOf(e);
  return {
    id: e.id,
    scope: e.scope,
    type: e.type,
    ...(e.type === 'decision' ? { status: e.status ?? 'active' } : {}),
    title: e.title,
    body: e.body,
    tags: [...e.tags],
    importance: e.importance,
    confidence: e.confidence,
    provenance: {
      sourceKind: e.provenance.sourceKind,
      identity: e.provenance.identity,
      ...(e.provenance.sessionKey !== undefined ? { sessionKey: e.provenance.sessionKey } : {}),
      at: e.provenance.at,
      ...(distilledFrom ? { distilledFrom } : {}),
    },
    trust: { state: e.trust.state, ...(e.trust.approvedBy !== undefined ? { approvedBy: e.trust.approvedBy } : {}), ...(e.trust.approvedAt !== undefined ? { approvedAt: e.trust.approvedAt } : {}) },
    revision: e.revision,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    ...(e.supersededBy ? { supersededBy: e.supersededBy } : {}),
    ...(typeof e.supersededInSession === 'string' ? { supersededInSession: e.supersededInSession } : {}),
    ...(e.consolidatedFrom ? { consolidatedFrom: [...e.consolidatedFrom] } : {}),
    ...(e.consolidatedInto ? { consolidatedInto: e.consolidatedInto } : {}),
    ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}),
    ...(proposal
      ? {
          proposal: {
            kind: proposal.kind,
            ...(proposal.target !== undefined ? { target: proposal.target } : {}),
            ...(proposal.targetRevision !== undefined ? { targetRevision: proposal.targetRevision } : {}),
            rationale: proposal.rationale,
            distilledFrom: distilledFromOf(proposal.distilledFrom)!,
          },
        }
      : {}),
    ...(rejection ? { rejected: { ...(rejection.reason !== undefined ? { reason: rejection.reason } : {}), by: rejection.by, at: rejection.at } } : {}),
    wrongFlags: e.wrongFlags.map((f) => ({ reason: f.reason, by: f.by, at: f.at })),
    flagged: j.flagged,
    findings: j.findings.map((f) => ({ ...f })),
    reviewed: j.reviewed,
    aged: isAged(st, e, now),
    ...(folderName !== undefined ? { folder: folderName } : {}),
    // Approved in the repository's file, not (yet) by this person: the team's claim, waiting in the inbox.
    ...(fromRepository(st, e) ? { repositoryClaim: { approvedBy: claimedApprover(e), ...(e.trust.approvedAt !== undefined ? { approvedAt: e.trust.approvedAt } : {}) } } : {}),
    // A conflict from Settings Sync, while the other revision is still stored.
    ...(typeof e.conflictWith === 'string' && st.find(e.conflictWith) ? { conflictWith: e.conflictWith } : {}),
  };
}

/** The view of `e` as of now: what every write hands back. */
export function viewNow(st: MemoryState, e: StoredEntry): MemoryEntryView {
  return toView(st, e, st.now().getTime());
}
