/**
 * Owns the memory service's shared state — the three scopes as loaded, their search indexes, the judgement
 * caches, configuration and status — and the plumbing every read and write goes through (refresh, find, mutate).
 */
import { join, dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { MemoryConfigSchema, type MemoryConfig, type MemoryFinding, type MemoryScope, type MemoryStatus } from '../../shared/memorySchemas';
import type { StoreProblem } from '../../shared/schemas';
import { sessionsPath } from '../store/paths';
import { LockTimeoutError } from '../store/atomicFile';
import type { ReviewStore } from '../review/reviewStore';
import type { ThreatFinding } from '../threat/threatScanner';
import { AuditLog } from './audit';
import { MemoryError } from './errors';
import { JsonlScopeFile, ScopeUnreadableError, type MutationPlan } from './jsonlStore';
import { compareEntries, isPendingProposal, isRejected, type StoredEntry } from './memoryEntry';
import { TokenIndex, trigrams, wordSet } from './similarity';
import { VerdictStore } from '../threat/verdictStore';

export interface MemoryServiceDeps {
  workspaceFolder: string | null;
  globalStoragePath: string;
  scan: (text: string) => readonly ThreatFinding[];
  reviews: ReviewStore | null;
  onProblem?: (p: StoreProblem) => void;
  /** A later load of `path` was clean (or readable again): the problems reported for it earlier no longer hold. */
  onProblemsResolved?: (where: { source: string; path: string }) => void;
  now?: () => Date;
  /** Where scan verdicts persist across restarts (keyed by revision and RULESET_VERSION); none: every start judges again. */
  verdictsPath?: string | null;
  /** The server's log (what the first answer used while memory was still loading, verdicts ignored, …). */
  log?: (message: string) => void;
}

export const SCOPES: readonly MemoryScope[] = ['project', 'personal', 'session'];

const OFF_MESSAGE = 'Memory is off. Turn it on with Session Knowledge: Turn Agent Memory On (or the switch in the Knowledge Panel); nothing was stored.';
const READONLY_MESSAGE = 'Memory is read-only (sessionKnowledge.memory.readonly); nothing was changed. A person can turn read-only off in Settings.';

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

export interface ScopeState {
  scope: MemoryScope;
  file: JsonlScopeFile | null;
  loaded: boolean;
  error?: string;
  entries: readonly StoredEntry[];
  byId: Map<string, StoredEntry>;
}

export const searchKey = (e: { scope: MemoryScope; id: string }) => `${e.scope}\u0000${e.id}`;

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
function mergeSorted(lists: readonly (readonly StoredEntry[])[]): StoredEntry[] {
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

export class MemoryState {
  config: MemoryConfig = MemoryConfigSchema.parse({ on: false });
  readonly scopes: Record<MemoryScope, ScopeState>;
  /** Trigrams of title, body and tags: recall candidates. */
  private readonly searchIndex = new TokenIndex();
  /** Words of title and body: near-duplicates (supersede). */
  private readonly wordsIndexInner = new TokenIndex();
  /** Whether the two token indexes hold every loaded entry: built on first use (recall, supersede), not on load. */
  private searchBuilt = false;
  /** Verdicts persisted across restarts; loaded into `judged` before the first scan. */
  readonly verdicts: VerdictStore<MemoryFinding> | null;
  private verdictsLoaded: Promise<void> | null = null;
  /** A verdict was computed since the last save. */
  verdictsDirty = false;
  private readonly grams = new Map<string, { trigrams: Uint32Array; words: Uint32Array }>();
  readonly judged = new Map<string, MemoryFinding[]>();
  judgedByEntry = new WeakMap<StoredEntry, MemoryFinding[]>();
  readonly audit: AuditLog;
  readonly now: () => Date;
  /** All loaded entries in store order; rebuilt when a scope changes. */
  private ordered: StoredEntry[] | null = null;

  constructor(readonly deps: MemoryServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    const paths = memoryPaths(deps.workspaceFolder, deps.globalStoragePath);
    const state = (scope: MemoryScope): ScopeState => {
      const path = paths[scope];
      return {
        scope,
        file: path ? this.scopeFile(scope, path) : null,
        loaded: path !== null,
        ...(path ? {} : { error: 'No folder is open: project memory lives in the workspace (.knowledge/memory.jsonl).' }),
        entries: [],
        byId: new Map(),
      };
    };
    this.scopes = { project: state('project'), personal: state('personal'), session: state('session') };
    this.audit = new AuditLog(join(deps.globalStoragePath, 'memory', 'audit.jsonl'));
    this.verdicts = deps.verdictsPath ? new VerdictStore<MemoryFinding>(deps.verdictsPath, (m) => deps.log?.(m)) : null;
  }

  /** Trigrams of title, body and tags: recall candidates (built on first use). */
  get search(): TokenIndex {
    this.ensureSearch();
    return this.searchIndex;
  }

  /** Words of title and body: near-duplicates (built on first use). */
  get wordsIndex(): TokenIndex {
    this.ensureSearch();
    return this.wordsIndexInner;
  }

  private ensureSearch(): void {
    if (this.searchBuilt) return;
    this.searchBuilt = true;
    for (const scope of SCOPES) for (const e of this.scopes[scope].byId.values()) this.index(e);
  }

  /** Loads the persisted verdicts once (before the first judgement), so a restart with nothing changed judges nothing. */
  loadVerdicts(): Promise<void> {
    this.verdictsLoaded ??= (async () => {
      if (!this.verdicts) return;
      const stored = await this.verdicts.load();
      for (const [revision, findings] of stored) if (!this.judged.has(revision)) this.judged.set(revision, findings);
    })();
    return this.verdictsLoaded;
  }

  /** Saves the verdicts of the entries loaded now, when something new was judged. */
  async saveVerdicts(): Promise<void> {
    if (!this.verdicts || !this.verdictsDirty) return;
    this.verdictsDirty = false;
    const out: [string, MemoryFinding[]][] = [];
    for (const scope of SCOPES) {
      for (const e of this.scopes[scope].byId.values()) {
        const v = this.judged.get(e.revision);
        if (v) out.push([e.revision, v]);
      }
    }
    await this.verdicts.save(out);
  }

  private scopeFile(scope: MemoryScope, path: string): JsonlScopeFile {
    const source = `memory:${scope}`;
    return new JsonlScopeFile({
      source,
      path,
      scope,
      // The project file is shared through git: created like any workspace file. The others stay private.
      newFileMode: scope === 'project' ? 0o666 : 0o600,
      onProblem: (p) => this.deps.onProblem?.(p),
      onResolved: () => this.deps.onProblemsResolved?.({ source, path }),
    });
  }

  // ---- status ------------------------------------------------------------------------------------------

  async status(): Promise<MemoryStatus> {
    if (this.config.on) await this.refresh();
    return {
      on: this.config.on,
      readonly: this.config.readonly,
      scopes: SCOPES.map((scope) => {
        const s = this.scopes[scope];
        return {
          scope,
          count: s.entries.filter(isActive).length,
          cap: this.config.caps[scope],
          loaded: s.loaded,
          ...(s.error ? { error: s.error } : {}),
          ...(s.file ? { path: s.file.path } : {}),
        };
      }),
    };
  }

  /** A file changed on disk (a git pull, another window): read it again and judge every entry again. */
  async reload(scope?: MemoryScope): Promise<MemoryStatus> {
    await this.loadVerdicts(); // then dropped: a reload judges every entry again
    this.judged.clear();
    this.verdictsDirty = true;
    this.judgedByEntry = new WeakMap();
    for (const s of scope ? [scope] : SCOPES) await this.refreshScope(s, true);
    return this.status();
  }

  // ---- loading -----------------------------------------------------------------------------------------

  /** Brings every scope up to date with its file (a stat each when nothing changed). */
  async refresh(): Promise<void> {
    await this.loadVerdicts();
    for (const scope of SCOPES) await this.refreshScope(scope, false);
  }

  private async refreshScope(scope: MemoryScope, force: boolean): Promise<void> {
    const s = this.scopes[scope];
    if (!s.file) return;
    try {
      const snap = await s.file.read(force || !s.loaded);
      if (!s.loaded) {
        s.loaded = true;
        delete s.error;
      }
      this.apply(scope, snap.entries);
    } catch (err) {
      if (!ScopeUnreadableError.is(err)) throw err;
      const first = s.loaded || s.error !== err.message;
      s.loaded = false;
      s.error = err.message;
      this.apply(scope, []);
      if (first) this.deps.onProblem?.({ source: `memory:${scope}`, path: s.file.path, message: err.message, at: this.now().toISOString() });
    }
  }

  /** Makes `entries` the scope's current content, updating the search index for what changed. */
  private apply(scope: MemoryScope, entries: readonly StoredEntry[]): void {
    const s = this.scopes[scope];
    if (s.entries === entries) return;
    const next = new Map<string, StoredEntry>();
    for (const e of entries) {
      next.set(e.id, e);
      const old = s.byId.get(e.id);
      if (this.searchBuilt && old !== e && (!old || old.revision !== e.revision)) this.index(e);
    }
    for (const [id, old] of s.byId) {
      const now = next.get(id);
      if (!now && this.searchBuilt) this.unindex(old);
      if (!now || now.revision !== old.revision) this.grams.delete(old.revision);
    }
    s.entries = entries;
    s.byId = next;
    this.ordered = null;
  }

  /** As `apply`, when exactly these entries changed since the last apply (our own write). */
  private applyDelta(scope: MemoryScope, entries: readonly StoredEntry[], upserts: readonly StoredEntry[], deletes: Iterable<string>): void {
    const s = this.scopes[scope];
    if (s.entries === entries) return;
    for (const id of deletes) {
      const old = s.byId.get(id);
      if (!old) continue;
      s.byId.delete(id);
      if (this.searchBuilt) this.unindex(old);
    }
    for (const u of upserts) {
      const old = s.byId.get(u.id);
      s.byId.set(u.id, u);
      if (this.searchBuilt && (!old || old.revision !== u.revision)) this.index(u);
    }
    s.entries = entries;
    this.ordered = null;
  }

  gramsOf(e: StoredEntry): { trigrams: Uint32Array; words: Uint32Array } {
    let g = this.grams.get(e.revision);
    if (!g) {
      g = { trigrams: trigrams(`${e.title} ${e.body} ${e.tags.join(' ')}`), words: wordSet(`${e.title} ${e.body}`) };
      this.grams.set(e.revision, g);
    }
    return g;
  }

  private index(e: StoredEntry): void {
    const g = this.gramsOf(e);
    this.searchIndex.set(searchKey(e), g.trigrams);
    this.wordsIndexInner.set(searchKey(e), g.words);
  }

  private unindex(e: StoredEntry): void {
    this.searchIndex.remove(searchKey(e));
    this.wordsIndexInner.remove(searchKey(e));
  }

  allOrdered(): StoredEntry[] {
    if (!this.ordered) {
      const lists = SCOPES.map((s) => this.scopes[s]).filter((s) => s.loaded).map((s) => s.entries);
      this.ordered = mergeSorted(lists);
    }
    return this.ordered;
  }

  find(id: string): StoredEntry | undefined {
    for (const scope of SCOPES) {
      const s = this.scopes[scope];
      if (!s.loaded) continue;
      const e = s.byId.get(id);
      if (e) return e;
    }
    return undefined;
  }

  async findOrThrow(id: string): Promise<StoredEntry> {
    await this.refresh();
    const e = this.find(id);
    if (!e) throw new MemoryError('not-found', `No memory entry has the id ${id}. It may have been forgotten, or its scope is not loaded.`);
    return e;
  }

  // ---- writing -----------------------------------------------------------------------------------------

  /** `evenWhenOff`: for the one write a person may make with memory off — forgetting a flagged entry. */
  assertWritable(opts: { evenWhenOff?: boolean } = {}): void {
    if (!this.config.on && !opts.evenWhenOff) throw new MemoryError('memory-off', OFF_MESSAGE);
    if (this.config.readonly) throw new MemoryError('readonly', READONLY_MESSAGE);
  }

  private async writableScope(scope: MemoryScope): Promise<JsonlScopeFile> {
    const s = this.scopes[scope];
    if (!s.file) throw new MemoryError('scope-unavailable', s.error ?? `The ${scope} memory is not available.`);
    await this.refreshScope(scope, false);
    if (!s.loaded) throw new MemoryError('scope-unavailable', `The ${scope} memory could not be loaded, so nothing was changed: ${s.error ?? 'unknown error'}`);
    return s.file;
  }

  /** Runs a read-modify-write on one scope and brings the in-memory state up to date. */
  async mutate<R>(scope: MemoryScope, plan: (entries: readonly StoredEntry[]) => MutationPlan<R>): Promise<R> {
    const file = await this.writableScope(scope);
    try {
      let planned: MutationPlan<R> | undefined;
      const out = await file.mutate((entries) => {
        this.apply(scope, entries); // the plan may consult the index: keep it in step with the fresh read
        planned = plan(entries);
        return planned;
      });
      this.applyDelta(scope, out.entries, planned?.upserts ?? [], planned?.deletes ?? []);
      return out.result;
    } catch (err) {
      if (ScopeUnreadableError.is(err)) {
        await this.refreshScope(scope, true);
        throw new MemoryError('scope-unavailable', err.message);
      }
      if (LockTimeoutError.is(err)) throw new MemoryError('scope-unavailable', err.message);
      throw err;
    }
  }
}
