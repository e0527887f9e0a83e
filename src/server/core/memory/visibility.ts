/**
 * Owns what an entry looks like when read: its verdict (the one `judge()`, with a memory-entry subject; findings
 * cached by revision in memoryVerdicts.ts), aging, the trust rules that decide whether a model may see an entry, and
 * the view sent to people and models.
 */
import type { DistilledFrom, MemoryEntryView, MemoryFinding } from '../../../shared/memorySchemas';
import type { Clearance } from '../review/reviewStore';
import { judge as judgeSubject, type Subject, type Verdict } from '../threat/judgement';
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
 * An entry as `judge()` sees it: title, body and tags judged together, under its revision (the entry's, recomputed
 * from the line on load), with the review of that revision in its folder's reviews. A revision judged before is a
 * lookup in memory's cache (memoryVerdicts.ts), never scanned again.
 */
function subjectOf(st: MemoryState, e: StoredEntry): Subject<Clearance> {
  return {
    kind: 'memory',
    id: `memory:${e.id}`,
    // read only when this revision was not judged before (a snapshot's entry decodes its fields on first read)
    get text() {
      return `${e.title}\n\n${e.body}\n\n${e.tags.join(', ')}`;
    },
    revision: e.revision,
    reviews: (revision) => st.reviewsOf(e)?.clearance(`memory:${e.id}`, revision, RULESET_VERSION),
  };
}

/**
 * What `judge()` answers for a revision it judged clean before (a memory subject has no name, so no findings means no
 * review to look up and nothing to withhold): answered without building its subject, as most of 10k entries are at a
 * restart. Only `flagged`, `clearance` and the findings are read here.
 */
const KNOWN_CLEAN: Verdict<Clearance> = Object.freeze({ kind: 'memory', id: '', revision: '', rulesetVersion: RULESET_VERSION, findings: [], allFindings: [], flagged: false });

/** The verdict on `e` now: the one judgement, with memory's cache of each revision's findings (memoryVerdicts.ts). */
function verdictOf(st: MemoryState, e: StoredEntry): Verdict<Clearance> {
  if (st.verdicts.known(e.revision)?.length === 0) return KNOWN_CLEAN;
  return judgeSubject(subjectOf(st, e), { scan: st.verdicts.scan, known: st.verdicts.known });
}

/**
 * Findings for this content now, with offsets per field (title, body, tags). Cached by revision for this process's
 * rule set (RULESET_VERSION is fixed for the life of a process).
 */
export function findingsOf(st: MemoryState, e: StoredEntry): MemoryFinding[] {
  return fieldFindings(e, verdictOf(st, e));
}

/** A verdict's findings (all: the panel shows what a review cleared), with offsets per field. */
function fieldFindings(e: StoredEntry, v: Verdict): MemoryFinding[] {
  if (v.allFindings.length === 0) return [];
  const tags = e.tags.join(', ');
  const bodyStart = e.title.length + 2;
  const tagsStart = bodyStart + e.body.length + 2;
  return v.allFindings.map((f): MemoryFinding => {
    const [field, base, length] = f.start < bodyStart ? (['title', 0, e.title.length] as const) : f.start < tagsStart ? (['body', bodyStart, e.body.length] as const) : (['tags', tagsStart, tags.length] as const);
    const start = Math.max(0, Math.min(length, f.start - base));
    const end = Math.max(start, Math.min(length, f.end - base));
    return { ruleId: f.ruleId, category: f.category, message: f.message, field, start, end };
  });
}

/** Findings, and whether a person's review of this exact revision (under this rule set) clears them: `judge()`'s verdict. */
export function judge(st: MemoryState, e: StoredEntry): Judgement {
  const v = verdictOf(st, e);
  return { findings: fieldFindings(e, v), reviewed: v.clearance?.cleared ?? false, flagged: v.flagged };
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
    if (by && trusted(st, by, sessionKey) && !verdictOf(st, by).flagged) return false;
  } else if (e.status === 'superseded') {
    return false;
  }
  if (isAged(st, e, now)) return false;
  return !verdictOf(st, e).flagged;
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
