/**
 * Owns whether a PROJECT memory entry counts as approved for this person. The project file
 * (`<folder>/.knowledge/memory.jsonl`) is the one memory file that lives in the repository: whoever can commit
 * chooses its lines, their `trust.state` and their `provenance`. So a project entry's approved state is the
 * team's claim ("approved by <identity> in the repository"), never a verdict: it counts only when this person's
 * own record (`UserTrustStore`, per-user, HMAC'd under a local key) holds an approval of kind `approval` for
 * (folder, entry id, revision). Personal and session memory live in per-user storage and keep their line's state.
 *
 * Every way this person approves or writes an approved project entry on this machine records one (`self`);
 * accepting a repository entry in the inbox records `accepted`; approvals made before this existed are carried
 * over once per folder (`migrated`, see `migrateApprovals`).
 *
 * Without a trust store in the deps (unit tests that build a MemoryService by hand) the line decides, as before;
 * `KnowledgeCore` (the language server, the CLI, the hook and MCP) always passes one.
 */
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { JsonDocument } from '../store/jsonDocument';
import { sessionsPath } from '../store/paths';
import { currentUser } from '../review/reviewStore';
import { UserTrustStore, type TrustHow } from '../review/userTrust';
import { isRejected, type StoredEntry } from './memoryEntry';

/** What of a scope's store approvals read (a `ScopeState` is one; declared here so memoryState may import this module). */
export interface ApprovalScope {
  readonly entries: readonly StoredEntry[];
  readonly folder?: { readonly path: string } | null;
  readonly loaded: boolean;
}

/** What of the memory state approvals read (a `MemoryState` is one). */
export interface ApprovalState {
  readonly userTrust: UserTrustStore | null;
  storeOf(e: StoredEntry): ApprovalScope;
  readonly deps: { readonly globalStoragePath: string; readonly log?: (message: string) => void };
}


/** The folder a project entry's approval is keyed by (its workspace folder's path). */
function folderPathOf(st: ApprovalState, e: StoredEntry): string | undefined {
  return e.scope === 'project' ? st.storeOf(e).folder?.path : undefined;
}

/** Per trust-store revision: folder path → the `id\0revision` pairs approved there (one realpath per folder, not per entry). */
const approvedSets = new WeakMap<object, Map<string, Set<string>>>();

function approvedIn(trust: UserTrustStore, folder: string): Set<string> {
  let byFolder = approvedSets.get(trust.revision);
  if (!byFolder) approvedSets.set(trust.revision, (byFolder = new Map()));
  let set = byFolder.get(folder);
  if (!set) {
    set = new Set(trust.ofFolder(folder).filter((r) => r.kind === 'approval' && r.rulesetVersion === '').map((r) => `${r.id}\u0000${r.revision}`));
    byFolder.set(folder, set);
  }
  return set;
}

/** This person approved (or accepted) exactly this revision of this project entry on this machine. */
export function personallyApproved(st: ApprovalState, e: StoredEntry): boolean {
  const trust = st.userTrust;
  if (!trust || e.scope !== 'project') return true;
  const folder = folderPathOf(st, e);
  if (folder === undefined) return false;
  return approvedIn(trust, folder).has(`${e.id}\u0000${e.revision}`);
}

/** The line says approved, and for this person that is only the team's claim: a project entry nobody here approved. */
export function fromRepository(st: ApprovalState, e: StoredEntry): boolean {
  return st.userTrust !== null && e.scope === 'project' && e.trust.state === 'approved' && !personallyApproved(st, e);
}

/** Whether `e`'s approved state holds for this person (personal and session entries: the line decides). */
export function approvedForMe(st: ApprovalState, e: StoredEntry): boolean {
  return e.trust.state === 'approved' && personallyApproved(st, e);
}

/** Who the repository says approved it. */
export function claimedApprover(e: StoredEntry): string {
  return e.trust.approvedBy ?? e.provenance.identity;
}

/**
 * Records this person's approval of each approved project entry given (others are skipped): `self` when the person
 * wrote or approved it here, `accepted` when they accepted the repository's claim. No-op without a trust store.
 */
export async function recordApprovals(st: ApprovalState, entries: readonly StoredEntry[], how: TrustHow, by?: string): Promise<void> {
  const trust = st.userTrust;
  if (!trust) return;
  const records = entries.flatMap((e) => {
    const folder = folderPathOf(st, e);
    if (folder === undefined || e.trust.state !== 'approved') return [];
    return [{ kind: 'approval' as const, folder, id: e.id, revision: e.revision, rulesetVersion: '', how, by: by ?? (how === 'accepted' ? claimedApprover(e) : (e.trust.approvedBy ?? currentUser())) }];
  });
  if (records.length > 0) await trust.add(records);
}

// ---- migration ------------------------------------------------------------------------------------------

const MigrationSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  /** When this machine first ran with per-user approvals (the upgrade): only folders known before it migrate. */
  since: z.string().optional(),
  /** Folders (real paths) whose approvals were considered for carry-over (once each, migrated or not). */
  folders: z.array(z.string()).default([]),
});
type MigrationDoc = z.infer<typeof MigrationSchema>;

const migrationDocs = new WeakMap<UserTrustStore, JsonDocument<MigrationDoc>>();

function migrationDoc(trust: UserTrustStore): JsonDocument<MigrationDoc> {
  let doc = migrationDocs.get(trust);
  if (!doc) {
    doc = new JsonDocument<MigrationDoc>({
      source: 'trust',
      path: join(trust.dir, 'approvals-migration.json'),
      schema: MigrationSchema,
      currentVersion: 1,
      defaults: () => ({ schemaVersion: 1, folders: [] }),
    });
    migrationDocs.set(trust, doc);
  }
  return doc;
}

/** When this machine's per-user state for `folder` came to be (the per-workspace storage folder), if it exists. */
async function knownSince(globalStoragePath: string, folder: string): Promise<number | undefined> {
  try {
    const s = await fs.stat(dirname(sessionsPath(globalStoragePath, folder)));
    const born = s.birthtimeMs > 0 ? s.birthtimeMs : Number.POSITIVE_INFINITY;
    return Math.min(born, s.mtimeMs, s.ctimeMs);
  } catch {
    return undefined;
  }
}

/**
 * Carries this person's pre-upgrade approvals of one folder's project memory into the trust store, once per folder
 * (best effort; never throws). The rule a fresh clone cannot meet: the folder must have been known to this machine
 * before the upgrade — its per-workspace storage folder (sessions, session memory, verdicts) existed before the first
 * run that kept per-user approvals (`since`, recorded on that first run) — and only entries the line says THIS user
 * approved (`approvedBy`) or wrote as a person (`sourceKind: human`, `identity`) are carried over.
 */
export async function migrateApprovals(st: ApprovalState, store: ApprovalScope): Promise<void> {
  const trust = st.userTrust;
  const folder = store.folder?.path;
  if (!trust || !folder || !store.loaded) return;
  try {
    const doc = migrationDoc(trust);
    const key = UserTrustStore.folderKey(folder);
    // This process's start (less 2 s for clock rounding): a folder whose storage this very run created never counts as
    // known before. Recorded once, on the first run: later runs compare with that moment.
    const now = new Date(Date.now() - process.uptime() * 1000 - 2_000).toISOString();
    const first = await doc.load();
    if (first.since !== undefined && first.folders.includes(key)) return;
    const state = await doc.update((d) => {
      d.since ??= now;
    });
    if (state.folders.includes(key)) return;
    const since = Date.parse(state.since!);
    const known = await knownSince(st.deps.globalStoragePath, folder);
    if (known !== undefined && known < since) {
      const me = currentUser();
      const mine = store.entries.filter((e) => e.trust.state === 'approved' && !isRejected(e) && (e.trust.approvedBy === me || (e.provenance.sourceKind === 'human' && e.provenance.identity === me)));
      const add = mine.filter((e) => !personallyApproved(st, e));
      if (add.length > 0) await recordApprovals(st, add, 'migrated', me);
      if (add.length > 0) st.deps.log?.(`Memory: carried over ${add.length} approval(s) you made before this version in ${folder}.`);
    }
    await doc.update((d) => {
      if (!d.folders.includes(key)) d.folders.push(key);
    });
  } catch (err) {
    st.deps.log?.(`Memory: approvals made before this version could not be carried over for ${folder}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
