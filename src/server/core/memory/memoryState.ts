/**
 * Owns the memory service's shared state — the three scopes as loaded (each folder's project file, personal,
 * session), the judgement caches, configuration and status — and the plumbing every read and write goes through
 * (refresh, find, mutate). The shapes it holds are memoryScopes.ts's; the search and title indexes entryIndexes.ts's.
 */
import { basename, join } from 'node:path';
import { MemoryConfigSchema, type MemoryConfig, type MemoryScope, type MemoryStatus } from '../../../shared/memorySchemas';
import { LockTimeoutError } from '../store/atomicFile';
import type { ReviewStore } from '../review/reviewStore';
import { AuditLog } from './audit';
import { MemoryError } from './errors';
import { JsonlScopeFile, ScopeUnreadableError, type MutationPlan } from './jsonlStore';
import type { StoredEntry } from './memoryEntry';
import type { TokenIndex } from './similarity';
import { VerdictStore } from '../threat/verdictStore';
import { judgeName } from '../threat/judgement';
import type { UserTrustStore } from '../review/userTrust';
import { migrateApprovals } from './approvals';
import { EntryIndexes } from './entryIndexes';
import { MemoryVerdicts } from './memoryVerdicts';
import { memoryPaths, memoryStatus, mergeStoreOrder, scopeFileFor, type MemoryServiceDeps, type ProjectFolder, type ScopeState } from './memoryScopes';

const OFF_MESSAGE = 'Memory is off. Turn it on with Session Knowledge: Turn Agent Memory On (or the switch in the Knowledge Panel); nothing was stored.';
const READONLY_MESSAGE = 'Memory is read-only (sessionKnowledge.memory.readonly); nothing was changed. A person can turn read-only off in Settings.';
const NO_FOLDER = 'No folder is open: project memory lives in the workspace (.knowledge/memory.jsonl).';

export class MemoryState {
  config: MemoryConfig = MemoryConfigSchema.parse({ on: false });
  /** One per workspace folder, in workspace order (none without a folder: then `noProject` stands in). */
  private projects: ScopeState[] = [];
  private readonly noProject: ScopeState;
  private readonly personal: ScopeState;
  private readonly session: ScopeState;
  /** Which file a project entry belongs to when there are several folders (or it was made outside a plan: `place`). */
  private storeByEntry = new WeakMap<StoredEntry, ScopeState>();
  /** The store a mutation's plan runs against: a new entry made inside the plan belongs to it. */
  private mutating: ScopeState | null = null;
  /** The token, title and gram indexes over the loaded entries (see entryIndexes.ts). */
  private readonly indexes = new EntryIndexes(() => this.stores());
  /** Each revision's findings, persisted across restarts (see memoryVerdicts.ts). */
  readonly verdicts: MemoryVerdicts;
  readonly audit: AuditLog;
  readonly now: () => Date;
  /** All loaded entries in store order; rebuilt when a scope changes. */
  private ordered: StoredEntry[] | null = null;
  /** This person's approvals (see approvals.ts); null: the line decides. */
  readonly userTrust: UserTrustStore | null;
  /** Project stores whose pre-upgrade approvals were considered in this process (by folder path). */
  private readonly migrations = new Map<string, Promise<void>>();

  constructor(readonly deps: MemoryServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.userTrust = deps.userTrust ?? null;
    const paths = memoryPaths(deps.workspaceFolder, deps.globalStoragePath);
    this.noProject = { key: 'project', scope: 'project', file: null, loaded: false, error: NO_FOLDER, entries: [], byId: new Map() };
    this.personal = this.newStore('personal', 'personal', paths.personal!);
    this.session = this.newStore('session', 'session', paths.session!);
    const folders = deps.projectFolders ?? (deps.workspaceFolder ? [{ name: basename(deps.workspaceFolder), path: deps.workspaceFolder, reviews: deps.reviews }] : []);
    this.projects = folders.map((f) => this.projectStoreFor(f));
    this.audit = new AuditLog(join(deps.globalStoragePath, 'memory', 'audit.jsonl'));
    this.verdicts = new MemoryVerdicts(deps.verdictsPath ? new VerdictStore(deps.verdictsPath, (m) => deps.log?.(m)) : null, (text) => deps.scan(text));
  }

  private newStore(key: string, scope: MemoryScope, path: string, folder?: ProjectFolder): ScopeState {
    return { key, scope, ...(folder ? { folder } : {}), file: scopeFileFor(this.deps, scope, path), loaded: true, entries: [], byId: new Map() };
  }

  private projectStoreFor(folder: ProjectFolder): ScopeState {
    return this.newStore(`project\u0001${folder.path}`, 'project', join(folder.path, '.knowledge', 'memory.jsonl'), folder);
  }

  /** The personal and session stores, and the first folder's project store (or the "no folder" placeholder). */
  get scopes(): Record<MemoryScope, ScopeState> {
    return { project: this.projects[0] ?? this.noProject, personal: this.personal, session: this.session };
  }

  /** Every store: each folder's project memory (or the placeholder), personal, session. Rebuilt when the folders change. */
  stores(): readonly ScopeState[] {
    return this.storeIndex().list;
  }

  /** The stores in order and by key, built once per folder change. */
  private storeIndex(): { list: readonly ScopeState[]; byKey: ReadonlyMap<string, ScopeState> } {
    if (!this.builtStores) {
      const list = [...this.projectStores(), this.personal, this.session];
      this.builtStores = { list, byKey: new Map(list.map((s) => [s.key, s])) };
    }
    return this.builtStores;
  }
  private builtStores: { list: readonly ScopeState[]; byKey: ReadonlyMap<string, ScopeState> } | null = null;

  /** The stores of one scope (several for project memory in a multi-root workspace). */
  storesOf(scope: MemoryScope): readonly ScopeState[] {
    return scope === 'project' ? this.projectStores() : [scope === 'personal' ? this.personal : this.session];
  }

  /** Each folder's project store, or the "no folder" placeholder when no folder is open. */
  private projectStores(): readonly ScopeState[] {
    return this.projects.length > 0 ? this.projects : [this.noProject];
  }

  /** More than one folder: project entries carry their folder's name. */
  get multiFolder(): boolean {
    return this.projects.length > 1;
  }

  /**
   * The store a write of `scope` goes to: for project memory the folder named `folder` (the first folder when
   * none is named). An unknown folder name is refused with the names there are.
   */
  target(scope: MemoryScope, folder?: string): ScopeState {
    if (folder !== undefined && scope !== 'project') throw new MemoryError('invalid', `Only project memory belongs to a folder; ${scope} memory has none (leave out "folder").`);
    if (scope !== 'project') return this.storesOf(scope)[0]!;
    if (folder === undefined) return this.scopes.project;
    const named = this.projects.find((s) => s.folder?.name === folder);
    if (!named) throw new MemoryError('invalid', `No workspace folder is named "${folder}". The folders are: ${this.projects.map((s) => s.folder!.name).join(', ') || '(none)'}.`);
    return named;
  }

  /** The store `e` belongs to (a project entry: its folder's). */
  storeOf(e: StoredEntry): ScopeState {
    if (e.scope !== 'project') return e.scope === 'personal' ? this.personal : this.session;
    const known = this.storeByEntry.get(e);
    if (known) return known;
    if (this.mutating?.scope === 'project') return this.mutating;
    return this.projects.find((s) => s.byId.get(e.id) === e) ?? this.projects.find((s) => s.byId.has(e.id)) ?? this.scopes.project;
  }

  /** Says that `e` (made outside a mutation's plan) belongs to `store`. */
  place(e: StoredEntry, store: ScopeState): void {
    this.storeByEntry.set(e, store);
  }

  /** The folder name shown on `e`: project entries of a multi-root workspace only. */
  folderOf(e: StoredEntry): string | undefined {
    return e.scope === 'project' && this.multiFolder ? this.storeOf(e).folder?.name : undefined;
  }

  /**
   * The folder a model is told for `e`: its name, or its place (`#2`) when the name reads as an instruction (a
   * `.code-workspace` in a repository names its folders; `threat/names.ts`). People see the name itself.
   */
  folderForModel(e: StoredEntry): string | undefined {
    const name = this.folderOf(e);
    if (name === undefined || judgeName(name, this.deps.scan).length === 0) return name;
    return `#${this.projects.indexOf(this.storeOf(e)) + 1} whose name is withheld`;
  }

  /** Where a person's review of `e` is kept: a project entry's folder; the first folder for the rest. */
  reviewsOf(e: StoredEntry): ReviewStore | null {
    return e.scope === 'project' ? (this.storeOf(e).folder?.reviews ?? null) : (this.projects[0]?.folder?.reviews ?? this.deps.reviews);
  }

  /** The entry under a search-index key. */
  byKey(key: string): StoredEntry | undefined {
    const cut = key.indexOf('\u0000');
    const s = this.storeIndex().byKey.get(key.slice(0, cut));
    return s?.loaded ? s.byId.get(key.slice(cut + 1)) : undefined;
  }

  /**
   * Folders added to or removed from the workspace: a folder that stays keeps its loaded file (and takes its new
   * name); a new one is read on the next refresh; a removed one leaves every index.
   */
  setFolders(folders: readonly ProjectFolder[]): void {
    const old = new Map(this.projects.map((s) => [s.folder!.path, s]));
    const next = folders.map((f) => {
      const kept = old.get(f.path);
      if (!kept) return this.projectStoreFor(f);
      old.delete(f.path);
      kept.folder = f;
      return kept;
    });
    for (const gone of old.values()) {
      for (const e of gone.byId.values()) {
        this.indexes.remove(gone, e);
        this.indexes.dropGrams(e.revision);
      }
    }
    this.projects = next;
    // Several folders now: every loaded project entry says which one it belongs to (see `apply`).
    if (next.length > 1) for (const s of next) for (const e of s.byId.values()) this.storeByEntry.set(e, s);
    this.builtStores = null;
    this.ordered = null;
  }

  /** Trigrams of title, body and tags: recall candidates (built on first use). */
  get search(): TokenIndex {
    return this.indexes.search;
  }

  /** Words of title and body: near-duplicates (built on first use). */
  get wordsIndex(): TokenIndex {
    return this.indexes.wordsIndex;
  }

  /** Loads the persisted verdicts once (before the first judgement), so a restart with nothing changed judges nothing. */
  loadVerdicts(): Promise<void> {
    return this.verdicts.load();
  }

  /** Writes each file's snapshot now, where its content changed since the last one (they are otherwise written a moment later). */
  async flushSnapshots(): Promise<void> {
    for (const s of this.stores()) await s.file?.flushSnapshot();
  }

  /** Saves the verdicts of the entries loaded now, when something new was judged. */
  async saveVerdicts(): Promise<void> {
    await this.verdicts.save(this.stores());
  }

  // ---- status ------------------------------------------------------------------------------------------

  async status(): Promise<MemoryStatus> {
    if (this.config.on) await this.refresh();
    return memoryStatus(this.config, this.stores(), this.multiFolder);
  }

  /** A file changed on disk (a git pull, another window): read it again and judge every entry again. */
  async reload(scope?: MemoryScope): Promise<MemoryStatus> {
    await this.loadVerdicts(); // then dropped: a reload judges every entry again
    this.verdicts.clear();
    for (const s of scope ? this.storesOf(scope) : this.stores()) await this.refreshScope(s, true);
    return this.status();
  }

  // ---- loading -----------------------------------------------------------------------------------------

  /** Brings every scope up to date with its file (a stat each when nothing changed). */
  async refresh(): Promise<void> {
    await this.loadVerdicts();
    for (const s of this.stores()) await this.refreshScope(s, false);
    await this.refreshTrust();
  }

  /** Brings this person's approvals up to date (a stat when nothing changed); carries pre-upgrade ones over once per folder. */
  async refreshTrust(): Promise<void> {
    if (!this.userTrust) return;
    try {
      await this.userTrust.refresh();
    } catch (err) {
      // Unreadable (a damaged key, say): the approvals as last loaded hold (none at first): project entries wait, nothing opens up.
      this.deps.log?.(`Memory: this person's approvals could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (const s of this.projectStores()) {
      if (!s.folder || !s.loaded) continue;
      let m = this.migrations.get(s.folder.path);
      if (!m) this.migrations.set(s.folder.path, (m = migrateApprovals(this, s)));
      await m;
    }
  }

  private async refreshScope(s: ScopeState, force: boolean): Promise<void> {
    if (!s.file) return;
    try {
      const snap = await s.file.read(force || !s.loaded);
      if (!s.loaded) {
        s.loaded = true;
        delete s.error;
      }
      this.apply(s, snap.entries);
    } catch (err) {
      if (!ScopeUnreadableError.is(err)) throw err;
      const first = s.loaded || s.error !== err.message;
      s.loaded = false;
      s.error = err.message;
      this.apply(s, []);
      if (first) this.deps.onProblem?.({ source: `memory:${s.scope}`, path: s.file.path, message: err.message, at: this.now().toISOString() });
    }
  }

  /** The entries of `s` whose title is `title` (case aside), in store order: a map lookup, not a pass over the store. */
  sameTitle(s: ScopeState, title: string): StoredEntry[] {
    return this.indexes.sameTitle(s, title);
  }

  /** Makes `entries` the scope's current content, updating the search index for what changed. */
  private apply(s: ScopeState, entries: readonly StoredEntry[]): void {
    if (s.entries === entries) return;
    this.indexes.dropTitles(s);
    const next = new Map<string, StoredEntry>();
    // One project file (or personal, session): `storeOf` finds the store without a WeakMap entry per loaded entry.
    const tag = s.scope === 'project' && this.projects.length > 1;
    for (const e of entries) {
      next.set(e.id, e);
      if (tag) this.storeByEntry.set(e, s);
      const old = s.byId.get(e.id);
      this.indexes.put(s, e, old);
    }
    for (const [id, old] of s.byId) {
      const now = next.get(id);
      if (!now) this.indexes.remove(s, old);
      if (!now || now.revision !== old.revision) this.indexes.dropGrams(old.revision);
    }
    s.entries = entries;
    s.byId = next;
    this.ordered = null;
  }

  /** As `apply`, when exactly these entries changed since the last apply (our own write). */
  private applyDelta(s: ScopeState, entries: readonly StoredEntry[], upserts: readonly StoredEntry[], deletes: Iterable<string>): void {
    if (s.entries === entries) return;
    for (const id of deletes) {
      const old = s.byId.get(id);
      if (!old) continue;
      this.indexes.retitle(s, old, undefined);
      s.byId.delete(id);
      this.indexes.remove(s, old);
    }
    for (const u of upserts) {
      const old = s.byId.get(u.id);
      this.indexes.retitle(s, old, u);
      s.byId.set(u.id, u);
      this.storeByEntry.set(u, s);
      this.indexes.put(s, u, old);
    }
    s.entries = entries;
    this.ordered = null;
  }

  gramsOf(e: StoredEntry): { trigrams: Uint32Array; words: Uint32Array } {
    return this.indexes.gramsOf(e);
  }

  allOrdered(): StoredEntry[] {
    if (!this.ordered) {
      const lists = this.stores().filter((s) => s.loaded && s.entries.length > 0).map((s) => s.entries);
      this.ordered = lists.length === 1 ? [...lists[0]!] : mergeStoreOrder(lists);
    }
    return this.ordered;
  }

  find(id: string): StoredEntry | undefined {
    for (const s of this.stores()) {
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

  private async writableScope(s: ScopeState): Promise<JsonlScopeFile> {
    const name = s.folder && this.multiFolder ? `${s.scope} memory of ${s.folder.name}` : `${s.scope} memory`;
    if (!s.file) throw new MemoryError('scope-unavailable', s.error ?? `The ${name} is not available.`);
    await this.refreshScope(s, false);
    if (!s.loaded) throw new MemoryError('scope-unavailable', `The ${name} could not be loaded, so nothing was changed: ${s.error ?? 'unknown error'}`);
    return s.file;
  }

  /**
   * Runs a read-modify-write on one store (a scope's only file, or one folder's project file: pass a scope for
   * the first) and brings the in-memory state up to date.
   */
  async mutate<R>(target: MemoryScope | ScopeState, plan: (entries: readonly StoredEntry[]) => MutationPlan<R>): Promise<R> {
    const s = typeof target === 'string' ? this.target(target) : target;
    const file = await this.writableScope(s);
    try {
      let planned: MutationPlan<R> | undefined;
      const out = await file.mutate((entries) => {
        this.apply(s, entries); // the plan may consult the index: keep it in step with the fresh read
        this.mutating = s;
        try {
          planned = plan(entries);
        } finally {
          this.mutating = null;
        }
        return planned;
      });
      this.applyDelta(s, out.entries, planned?.upserts ?? [], planned?.deletes ?? []);
      return out.result;
    } catch (err) {
      if (ScopeUnreadableError.is(err)) {
        await this.refreshScope(s, true);
        throw new MemoryError('scope-unavailable', err.message);
      }
      if (LockTimeoutError.is(err)) throw new MemoryError('scope-unavailable', err.message);
      throw err;
    }
  }
}
