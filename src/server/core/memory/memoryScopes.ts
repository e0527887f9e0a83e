/**
 * What the memory service is built from and the shapes it holds: the project folders and dependencies it is given,
 * where each scope's file lives, one memory file as loaded (ScopeState), and the small rules every part uses (what
 * is live, a new id, a param checked into a MemoryError, the status of the stores). The state itself is memoryState.ts.
 */
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { MemoryConfig, MemoryScope, MemoryStatus } from '../../../shared/memorySchemas';
import type { StoreProblem } from '../../../shared/schemas';
import { sessionsPath } from '../store/paths';
import type { ReviewStore } from '../review/reviewStore';
import type { ThreatFinding } from '../threat/threatScanner';
import type { UserTrustStore } from '../review/userTrust';
import { MemoryError } from './errors';
import { JsonlScopeFile } from './jsonlStore';
import { snapshotPathFor } from './scopeSnapshot';
import { compareEntries, isPendingProposal, isRejected, type StoredEntry } from './memoryEntry';

/** One workspace folder's project memory: `<path>/.knowledge/memory.jsonl`, judged against that folder's reviews. */
export interface ProjectFolder {
  /** The workspace's name for the folder (shown on its entries when the workspace has several). */
  name: string;
  path: string;
  reviews: ReviewStore | null;
}

export interface MemoryServiceDeps {
  /** The workspace's first folder: it names the per-workspace folder of session memory (null: no folder open). */
  workspaceFolder: string | null;
  /**
   * Every folder whose `.knowledge/memory.jsonl` is project memory, in workspace order. Absent: `workspaceFolder`
   * alone (with `reviews`). Changed at run time with `MemoryService.setFolders`.
   */
  projectFolders?: readonly ProjectFolder[];
  globalStoragePath: string;
  scan: (text: string) => readonly ThreatFinding[];
  /** The first folder's reviews: personal and session entries are reviewed there (project entries in their own folder). */
  reviews: ReviewStore | null;
  onProblem?: (p: StoreProblem) => void;
  /** A later load of `path` was clean (or readable again): the problems reported for it earlier no longer hold. */
  onProblemsResolved?: (where: { source: string; path: string }) => void;
  now?: () => Date;
  /** Where scan verdicts persist across restarts (keyed by revision and RULESET_VERSION); none: every start judges again. */
  verdictsPath?: string | null;
  /**
   * Where each memory file's snapshot of parsed entries is kept (per-user state, never the repository; see
   * scopeSnapshot.ts); none: every start parses every file.
   */
  snapshotDir?: string | null;
  /** The server's log (what the first answer used while memory was still loading, verdicts ignored, …). */
  log?: (message: string) => void;
  /**
   * This person's own record of approvals (per-user, HMAC'd): a project entry counts as approved only with one
   * (see approvals.ts). Absent (unit tests building a service by hand): the line's trust state decides.
   */
  userTrust?: UserTrustStore | null;
}

export const SCOPES: readonly MemoryScope[] = ['project', 'personal', 'session'];

/**
 * Scopes: project = `<workspace>/.knowledge/memory.jsonl` (for git, `merge=union`); personal =
 * `<globalStorage>/memory/personal.jsonl`; session = `<globalStorage>/workspaces/<hash>/memory-session.jsonl`
 * (entries carry their sessionKey). A scope that cannot be read is "not loaded": left out of everything,
 * never taken for empty.
 */
export function memoryPaths(workspaceFolder: string | null, globalStoragePath: string): Record<MemoryScope, string | null> {
  return {
    project: workspaceFolder ? join(workspaceFolder, '.knowledge', 'memory.jsonl') : null,
    personal: join(globalStoragePath, 'memory', 'personal.jsonl'),
    // Same per-workspace folder as the session metadata (sessionsPath), so sessions and their memory travel together.
    session: join(dirname(sessionsPath(globalStoragePath, workspaceFolder)), 'memory-session.jsonl'),
  };
}

/** The file of one scope at `path`, as the service opens it (its problems reported through `deps`). */
export function scopeFileFor(deps: MemoryServiceDeps, scope: MemoryScope, path: string): JsonlScopeFile {
  const source = `memory:${scope}`;
  return new JsonlScopeFile({
    source,
    path,
    scope,
    // The project file is shared through git: created like any workspace file. The others stay private.
    newFileMode: scope === 'project' ? 0o666 : 0o600,
    // `<folder>/.knowledge/memory.jsonl`: a committed link never makes us write outside the folder.
    ...(scope === 'project' ? { confineTo: dirname(dirname(path)) } : {}),
    onProblem: (p) => deps.onProblem?.(p),
    onResolved: () => deps.onProblemsResolved?.({ source, path }),
    ...(deps.snapshotDir ? { snapshotPath: snapshotPathFor(deps.snapshotDir, scope, path) } : {}),
  });
}

/** One memory file as loaded: the personal one, the session one, or one folder's project file. */
export interface ScopeState {
  /** `personal`, `session`, or `project` + U+0001 + the folder's path: unique per file. */
  key: string;
  scope: MemoryScope;
  /** Project memory: the folder it belongs to. */
  folder?: ProjectFolder;
  file: JsonlScopeFile | null;
  loaded: boolean;
  error?: string;
  entries: readonly StoredEntry[];
  byId: Map<string, StoredEntry>;
}

/** The search indexes' key of an entry of `store`. */
export const searchKey = (store: ScopeState, id: string) => `${store.key}\u0000${id}`;

export function zodToMemoryError<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MemoryError('invalid', `Invalid ${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}

export function newId(): string {
  return `mem_${randomBytes(8).toString('hex')}`;
}

/** A live entry: not superseded, consolidated, archived, rejected, or a proposal waiting in the inbox (those count toward nothing). */
export const isActive = (e: StoredEntry): boolean => !e.supersededBy && !e.consolidatedInto && e.status !== 'archived' && e.status !== 'superseded' && !isRejected(e) && !isPendingProposal(e);

/** k-way merge of lists each already in store order. */
export function mergeStoreOrder(lists: readonly (readonly StoredEntry[])[]): StoredEntry[] {
  const out: StoredEntry[] = [];
  const at = lists.map(() => 0);
  for (;;) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const e = lists[i]![at[i]!];
      if (e && (best < 0 || compareEntries(e, lists[best]![at[best]!]!) < 0)) best = i;
    }
    if (best < 0) return out;
    out.push(lists[best]![at[best]!++]!);
  }
}

function countActive(entries: readonly StoredEntry[]): number {
  let n = 0;
  for (const e of entries) if (isActive(e)) n += 1;
  return n;
}

/** What memory's status says of `stores`: each one's live entries against its cap, loaded or why not, and its file. */
export function memoryStatus(config: MemoryConfig, stores: readonly ScopeState[], multiFolder: boolean): MemoryStatus {
  return {
    on: config.on,
    readonly: config.readonly,
    scopes: stores.map((s) => {
      const scope = s.scope;
      return {
        scope,
        ...(s.folder && multiFolder ? { folder: s.folder.name } : {}),
        count: countActive(s.entries),
        cap: config.caps[scope],
        loaded: s.loaded,
        ...(s.error ? { error: s.error } : {}),
        ...(s.file ? { path: s.file.path } : {}),
      };
    }),
  };
}
