/**
 * Owns personal memory through Settings Sync (the extension carries the state; this merges it). Only approved,
 * active, unflagged personal entries leave a machine; pending, flagged and "wrong" ones never do. Each entry travels
 * with its history (the revisions it had before). What arrives is merged by entry id and revision:
 *
 * - a new id is stored approved, as its sender approved it, and judged at once like an import (a hostile one is
 *   stored flagged: withheld from every model, shown to the person); a secret is never stored;
 * - an id this machine knew but no longer holds was forgotten here: it stays forgotten here;
 * - an arrival whose history holds our revision was edited on top of ours: ours takes it;
 * - ours has the arrival's revision in our history: ours is newer, and goes out;
 * - neither: edited on two machines at once. Both revisions are kept: the later edit (then the larger revision)
 *   keeps the id; the other is stored as `<id>~<first 8 of its revision>`; each names the other in `conflictWith`.
 *   Every machine computes the same two entries; the person keeps one and forgets the other.
 */
import type { PersonalSyncParams, PersonalSyncResult, SyncedEntry } from '../../../shared/personalSyncSchemas';
import { PersonalSyncParamsSchema } from '../../../shared/personalSyncSchemas';
import { computeRevision, normalizeTags, type StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { isActive, zodToMemoryError } from './memoryScopes';
import { findSecret } from './secrets';
import { judge } from './visibility';
// The identity synced entries are stamped with (provenance), when they carry no approver; the panel names them "from sync" by it.
import { SYNC_IDENTITY } from '../../../shared/memorySource';


function toSynced(e: StoredEntry): Omit<SyncedEntry, 'history'> {
  return {
    id: e.id,
    type: e.type,
    title: e.title,
    body: e.body,
    tags: [...e.tags],
    importance: e.importance,
    confidence: e.confidence,
    revision: e.revision,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    ...(e.trust.approvedBy !== undefined ? { approvedBy: e.trust.approvedBy } : {}),
    ...(e.trust.approvedAt !== undefined ? { approvedAt: e.trust.approvedAt } : {}),
    ...(e.expiresAt !== undefined ? { expiresAt: e.expiresAt } : {}),
    ...(typeof e.conflictWith === 'string' ? { conflictWith: e.conflictWith } : {}),
  };
}

/** Revisions of one entry remembered per machine and sent with it. */
export const PERSONAL_SYNC_HISTORY = 20;

/** `list` with `rev` appended (once, as the newest), keeping the last PERSONAL_SYNC_HISTORY. */
function withRevision(list: readonly string[] | undefined, rev: string): string[] {
  const out = (list ?? []).filter((r) => r !== rev);
  out.push(rev);
  return out.slice(-PERSONAL_SYNC_HISTORY);
}

/** Both histories, oldest first, each revision once, the last PERSONAL_SYNC_HISTORY. */
function unionHistory(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].slice(-PERSONAL_SYNC_HISTORY);
}

/**
 * What may leave this machine: approved, active, not flagged, not marked wrong, personal — sorted by id (stable
 * JSON), each with its history. `known` gets each one's current revision.
 */
export function syncableEntries(st: MemoryState, known: Record<string, string[]>): SyncedEntry[] {
  const s = st.scopes.personal;
  if (!s.loaded) return [];
  return s.entries
    .filter((e) => e.trust.state === 'approved' && isActive(e) && e.wrongFlags.length === 0 && !judge(st, e).flagged)
    .map((e) => {
      known[e.id] = withRevision(known[e.id], e.revision);
      return { ...toSynced(e), history: known[e.id]!.slice(0, -1) };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** An arriving entry as stored here: approved as its sender approved it, provenance saying it came by sync. */
function fromSynced(r: SyncedEntry, id: string, revision: string, at: string, conflictWith?: string): StoredEntry {
  const tags = normalizeTags(r.tags);
  return {
    id,
    scope: 'personal',
    type: r.type,
    ...(r.type === 'decision' ? { status: 'active' as const } : {}),
    title: r.title,
    body: r.body,
    tags,
    importance: r.importance,
    confidence: r.confidence,
    provenance: { sourceKind: 'import', identity: SYNC_IDENTITY, at },
    trust: { state: 'approved', approvedBy: r.approvedBy ?? SYNC_IDENTITY, approvedAt: r.approvedAt ?? at },
    revision,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    ...(r.expiresAt !== undefined ? { expiresAt: r.expiresAt } : {}),
    wrongFlags: [],
    syncedAt: at,
    ...(conflictWith !== undefined ? { conflictWith } : {}),
  };
}

/** Which of two revisions of one entry keeps its id: the later edit, then the larger revision (the same everywhere). */
function wins(a: { updatedAt: string; revision: string }, b: { updatedAt: string; revision: string }): boolean {
  return a.updatedAt !== b.updatedAt ? a.updatedAt > b.updatedAt : a.revision > b.revision;
}

export const conflictCopyId = (id: string, revision: string): string => `${id.slice(0, 90)}~${revision.slice(0, 8)}`;

/** Merges what arrived into personal memory (see the module comment) and answers what to send back. */
export async function syncPersonal(st: MemoryState, params: PersonalSyncParams): Promise<PersonalSyncResult> {
  const p = zodToMemoryError(PersonalSyncParamsSchema, params);
  await st.refresh();
  const known: Record<string, string[]> = Object.fromEntries(Object.entries(p.known).map(([id, revs]) => [id, [...revs]]));
  const result: PersonalSyncResult = { outgoing: [], known, added: [], updated: [], conflicts: [], flagged: [], skipped: [] };
  const incoming = p.incoming ?? [];
  const writable = st.config.on && !st.config.readonly && st.scopes.personal.file !== null;
  if (incoming.length > 0 && !writable) {
    result.skipped.push(`${incoming.length} arriving entr${incoming.length === 1 ? 'y was' : 'ies were'} not merged: ${!st.config.on ? 'memory is off' : st.config.readonly ? 'memory is read-only' : 'personal memory is not available'}`);
  }
  if (incoming.length > 0 && writable) {
    const at = st.now().toISOString();
    const stored = await st.mutate('personal', (entries) => {
      const byId = new Map(entries.map((e) => [e.id, e]));
      const upserts = new Map<string, StoredEntry>();
      const current = (id: string) => upserts.get(id) ?? byId.get(id);
      let room = st.config.caps.personal - entries.filter(isActive).length;
      const seen = new Set<string>();
      for (const r of incoming) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        const tags = normalizeTags(r.tags);
        const revision = computeRevision({ type: r.type, title: r.title, body: r.body, tags });
        const secret = [r.title, r.body, tags.join(' ')].map(findSecret).find(Boolean);
        if (secret) {
          result.skipped.push(`"${r.title}": looks like ${secret.kind}; secrets are never remembered`);
          continue;
        }
        const theirs = withRevision(r.history, revision);
        const local = current(r.id);
        if (!local) {
          if (known[r.id] !== undefined) continue; // forgotten on this machine: it stays forgotten here
          if (room <= 0) {
            result.skipped.push(`"${r.title}": the personal memory is full (${st.config.caps.personal} entries)`);
            continue;
          }
          room -= 1;
          upserts.set(r.id, fromSynced(r, r.id, revision, at, r.conflictWith));
          result.added.push(r.id);
          known[r.id] = theirs;
          continue;
        }
        const ours = withRevision(known[r.id], local.revision);
        known[r.id] = unionHistory(ours, theirs);
        if (local.revision === revision) {
          // The same revision, and the other machine found a conflict on it: mark it here too.
          if (r.conflictWith !== undefined && local.conflictWith !== r.conflictWith) {
            upserts.set(r.id, { ...local, conflictWith: r.conflictWith });
            result.conflicts.push({ id: r.id, copy: r.conflictWith });
          }
          continue;
        }
        if (theirs.includes(local.revision)) {
          // Edited there on top of ours: take it (still approved; judged again like every new revision).
          const { conflictWith: _drop, ...rest } = local;
          void _drop;
          const next: StoredEntry = { ...rest, type: r.type, title: r.title, body: r.body, tags, importance: r.importance, revision, updatedAt: r.updatedAt, syncedAt: at, ...(r.conflictWith !== undefined ? { conflictWith: r.conflictWith } : {}) };
          if (next.type === 'decision' && !next.status) next.status = 'active';
          if (next.type !== 'decision') delete next.status;
          upserts.set(r.id, next);
          result.updated.push(r.id);
          continue;
        }
        if (ours.includes(revision)) continue; // ours was edited on top of theirs: ours goes out
        // Edited on two machines at once: keep both revisions, the same two entries on every machine.
        const theirsWins = wins({ updatedAt: r.updatedAt, revision }, local);
        const loserRevision = theirsWins ? local.revision : revision;
        const copy = conflictCopyId(r.id, loserRevision);
        if (current(copy)) continue; // this conflict is already stored
        if (theirsWins) {
          upserts.set(copy, { ...local, id: copy, conflictWith: r.id, syncedAt: at });
          upserts.set(r.id, { ...fromSynced(r, r.id, revision, at, copy), createdAt: local.createdAt });
        } else {
          upserts.set(r.id, { ...local, conflictWith: copy, syncedAt: at });
          upserts.set(copy, fromSynced(r, copy, revision, at, r.id));
        }
        result.conflicts.push({ id: r.id, copy });
        known[copy] = [loserRevision];
      }
      return { result: [...upserts.values()], upserts: [...upserts.values()] };
    });
    for (const e of stored) if (judge(st, e).flagged && !result.flagged.includes(e.id)) result.flagged.push(e.id);
  }
  result.outgoing = syncableEntries(st, known);
  return result;
}
