/**
 * Agent memory: scopes on disk, trust, lifecycle, search and the layered index. Pure Node — no `vscode`,
 * no language-server imports (routes.ts adapts it to the connection; the CLI and tests call it directly).
 *
 * Scopes: project = `<workspace>/.knowledge/memory.jsonl` (for git, `merge=union`); personal =
 * `<globalStorage>/memory/personal.jsonl`; session = `<globalStorage>/workspaces/<hash>/memory-session.jsonl`
 * (entries carry their sessionKey). A scope that cannot be read is "not loaded": left out of everything,
 * never taken for empty.
 *
 * What a model may see (recall, read-for-model, the index) — `modelView`: not flagged by the threat scan
 * (judged again on every read, cached by revision and rule set; a person's review of that exact revision
 * clears it), not aged, not marked wrong by a person, not consolidated into another entry, not superseded by
 * an entry this viewer may see, and trusted: approved, or pending and written by this very session. Legacy
 * entries never. Session-scope entries only to their own session.
 */
import { join, dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import Fuse, { type IFuseOptions } from 'fuse.js';
import type { z } from 'zod';
import {
  ConsolidateParamsSchema,
  FlagWrongParamsSchema,
  MemoryConfigSchema,
  MemoryListParamsSchema,
  RecallParamsSchema,
  RememberParamsSchema,
  UpdateMemoryParamsSchema,
  type ConsolidateParams,
  type ForgetPlan,
  type ImportResult,
  type MemoryConfig,
  type MemoryEntryView,
  type MemoryFinding,
  type MemoryListParams,
  type MemoryListResult,
  type MemoryScope,
  type MemoryStatus,
  type RecallParams,
  type RememberParams,
  type UpdateMemoryParams,
} from '../../shared/memorySchemas';
import type { StoreProblem } from '../../shared/schemas';
import type { MemoryIndexEntry } from '../delivery/knowledgeBlock';
import { sessionsPath } from '../store/paths';
import { LockTimeoutError } from '../store/atomicFile';
import { currentUser, type ReviewStore } from '../review/reviewStore';
import { RULESET_VERSION, type ThreatFinding } from '../threat/threatScanner';
import { AuditLog } from './audit';
import { MemoryError } from './errors';
import { exportJson, exportMarkdown, parseJsonImport, parseMarkdownImport, type ImportCandidate } from './exchange';
import { JsonlScopeFile, ScopeUnreadableError, type MutationPlan } from './jsonlStore';
import { buildLayeredIndex } from './layeredIndex';
import { compareEntries, computeRevision, normalizeTags, type StoredEntry } from './memoryEntry';
import { findSecret } from './secrets';
import { TokenIndex, trigrams, wordSet } from './similarity';

export { MemoryError, MEMORY_ERROR_CODE } from './errors';

export interface MemoryServiceDeps {
  workspaceFolder: string | null;
  globalStoragePath: string;
  scan: (text: string) => readonly ThreatFinding[];
  reviews: ReviewStore | null;
  onProblem?: (p: StoreProblem) => void;
  now?: () => Date;
}

export const SCOPES: readonly MemoryScope[] = ['project', 'personal', 'session'];

/** Fuse scores are 0 (perfect) to 1; results worse than this are not recalled. */
export const RECALL_SCORE_THRESHOLD = 0.45;
/** How many trigram candidates the fuzzy scorer ranks (keeps recall flat as the store grows). */
const CANDIDATES = 64;

const OFF_MESSAGE = 'Memory is off. Turn it on in Settings → Session Knowledge → Memory (sessionKnowledge.memory.enabled); nothing was stored.';
const READONLY_MESSAGE = 'Memory is read-only (sessionKnowledge.memory.readonly); nothing was changed. A person can turn read-only off in Settings.';

export function memoryPaths(workspaceFolder: string | null, globalStoragePath: string): Record<MemoryScope, string | null> {
  return {
    project: workspaceFolder ? join(workspaceFolder, '.knowledge', 'memory.jsonl') : null,
    personal: join(globalStoragePath, 'memory', 'personal.jsonl'),
    // Same per-workspace folder as the session metadata (sessionsPath), so sessions and their memory travel together.
    session: join(dirname(sessionsPath(globalStoragePath, workspaceFolder)), 'memory-session.jsonl'),
  };
}

interface ScopeState {
  scope: MemoryScope;
  file: JsonlScopeFile | null;
  loaded: boolean;
  error?: string;
  entries: readonly StoredEntry[];
  byId: Map<string, StoredEntry>;
}

interface Judgement {
  findings: MemoryFinding[];
  reviewed: boolean;
  flagged: boolean;
}

interface SearchDoc {
  key: string;
  title: string;
  body: string;
  tags: string[];
}

const FUSE_OPTIONS: IFuseOptions<SearchDoc> = {
  keys: [
    { name: 'title', weight: 2 },
    { name: 'tags', weight: 1.5 },
    { name: 'body', weight: 1 },
  ],
  includeScore: true,
  threshold: 0.4,
  ignoreLocation: true,
  useTokenSearch: true,
};

const searchKey = (e: { scope: MemoryScope; id: string }) => `${e.scope}\u0000${e.id}`;

function zodToMemoryError<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MemoryError('invalid', `Invalid ${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}

function newId(): string {
  return `mem_${randomBytes(8).toString('hex')}`;
}

const isActive = (e: StoredEntry): boolean => !e.supersededBy && !e.consolidatedInto && e.status !== 'archived' && e.status !== 'superseded';

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

export class MemoryService {
  private config: MemoryConfig = MemoryConfigSchema.parse({ on: false });
  private readonly scopes: Record<MemoryScope, ScopeState>;
  /** Trigrams of title, body and tags: recall candidates. */
  private readonly search = new TokenIndex();
  /** Words of title and body: near-duplicates (supersede). */
  private readonly wordsIndex = new TokenIndex();
  private readonly grams = new Map<string, { trigrams: Uint32Array; words: Uint32Array }>();
  private readonly judged = new Map<string, MemoryFinding[]>();
  private judgedByEntry = new WeakMap<StoredEntry, MemoryFinding[]>();
  private readonly audit: AuditLog;
  private readonly now: () => Date;
  /** All loaded entries in store order; rebuilt when a scope changes. */
  private ordered: StoredEntry[] | null = null;

  constructor(private readonly deps: MemoryServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    const paths = memoryPaths(deps.workspaceFolder, deps.globalStoragePath);
    const state = (scope: MemoryScope): ScopeState => {
      const path = paths[scope];
      return {
        scope,
        file: path ? new JsonlScopeFile({ source: `memory:${scope}`, path, scope, onProblem: (p) => deps.onProblem?.(p) }) : null,
        loaded: path !== null,
        ...(path ? {} : { error: 'No folder is open: project memory lives in the workspace (.knowledge/memory.jsonl).' }),
        entries: [],
        byId: new Map(),
      };
    };
    this.scopes = { project: state('project'), personal: state('personal'), session: state('session') };
    this.audit = new AuditLog(join(deps.globalStoragePath, 'memory', 'audit.jsonl'));
  }

  // ---- configuration and status ------------------------------------------------------------------------

  async configure(config: z.input<typeof MemoryConfigSchema>): Promise<MemoryStatus> {
    this.config = zodToMemoryError(MemoryConfigSchema, config);
    return this.status();
  }

  get currentConfig(): MemoryConfig {
    return this.config;
  }

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
    this.judged.clear();
    this.judgedByEntry = new WeakMap();
    for (const s of scope ? [scope] : SCOPES) await this.refreshScope(s, true);
    return this.status();
  }

  // ---- loading -----------------------------------------------------------------------------------------

  /** Brings every scope up to date with its file (a stat each when nothing changed). */
  private async refresh(): Promise<void> {
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
      if (old !== e && (!old || old.revision !== e.revision)) this.index(e);
    }
    for (const [id, old] of s.byId) {
      const now = next.get(id);
      if (!now) this.unindex(old);
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
      this.unindex(old);
    }
    for (const u of upserts) {
      const old = s.byId.get(u.id);
      s.byId.set(u.id, u);
      if (!old || old.revision !== u.revision) this.index(u);
    }
    s.entries = entries;
    this.ordered = null;
  }

  private gramsOf(e: StoredEntry): { trigrams: Uint32Array; words: Uint32Array } {
    let g = this.grams.get(e.revision);
    if (!g) {
      g = { trigrams: trigrams(`${e.title} ${e.body} ${e.tags.join(' ')}`), words: wordSet(`${e.title} ${e.body}`) };
      this.grams.set(e.revision, g);
    }
    return g;
  }

  private index(e: StoredEntry): void {
    const g = this.gramsOf(e);
    this.search.set(searchKey(e), g.trigrams);
    this.wordsIndex.set(searchKey(e), g.words);
  }

  private unindex(e: StoredEntry): void {
    this.search.remove(searchKey(e));
    this.wordsIndex.remove(searchKey(e));
  }

  private allOrdered(): StoredEntry[] {
    if (!this.ordered) {
      const lists = SCOPES.map((s) => this.scopes[s]).filter((s) => s.loaded).map((s) => s.entries);
      this.ordered = mergeSorted(lists);
    }
    return this.ordered;
  }

  private find(id: string): StoredEntry | undefined {
    for (const scope of SCOPES) {
      const s = this.scopes[scope];
      if (!s.loaded) continue;
      const e = s.byId.get(id);
      if (e) return e;
    }
    return undefined;
  }

  private async findOrThrow(id: string): Promise<StoredEntry> {
    await this.refresh();
    const e = this.find(id);
    if (!e) throw new MemoryError('not-found', `No memory entry has the id ${id}. It may have been forgotten, or its scope is not loaded.`);
    return e;
  }

  // ---- judging -----------------------------------------------------------------------------------------

  /**
   * Findings for this content now (title, body and tags judged together; offsets per field). Cached by
   * revision for this process's rule set (RULESET_VERSION is fixed for the life of a process).
   */
  private findingsOf(e: StoredEntry): MemoryFinding[] {
    let out = this.judgedByEntry.get(e) ?? this.judged.get(e.revision);
    if (out) {
      this.judgedByEntry.set(e, out);
      return out;
    }
    const tags = e.tags.join(', ');
    const bodyStart = e.title.length + 2;
    const tagsStart = bodyStart + e.body.length + 2;
    const text = `${e.title}\n\n${e.body}\n\n${tags}`;
    out = this.deps.scan(text).map((f): MemoryFinding => {
      const [field, base, length] = f.start < bodyStart ? (['title', 0, e.title.length] as const) : f.start < tagsStart ? (['body', bodyStart, e.body.length] as const) : (['tags', tagsStart, tags.length] as const);
      const start = Math.max(0, Math.min(length, f.start - base));
      const end = Math.max(start, Math.min(length, f.end - base));
      return { ruleId: f.ruleId, category: f.category, message: f.message, field, start, end };
    });
    this.judged.set(e.revision, out);
    this.judgedByEntry.set(e, out);
    return out;
  }

  private judge(e: StoredEntry): Judgement {
    const findings = this.findingsOf(e);
    if (findings.length === 0) return { findings, reviewed: false, flagged: false };
    const reviewed = this.deps.reviews?.isReviewed(`memory:${e.id}`, e.revision, RULESET_VERSION) ?? false;
    return { findings, reviewed, flagged: !reviewed };
  }

  private isAged(e: StoredEntry, now: number): boolean {
    if (e.expiresAt) {
      const t = Date.parse(e.expiresAt);
      if (!Number.isNaN(t) && now >= t) return true;
    }
    if (this.config.maxAgeDays > 0) {
      const created = Date.parse(e.createdAt);
      if (!Number.isNaN(created) && now - created > this.config.maxAgeDays * 86_400_000) return true;
    }
    return false;
  }

  /** Trust alone: approved, or pending and written by this session; session scope only for its session. */
  private trusted(e: StoredEntry, sessionKey: string | undefined): boolean {
    if (e.scope === 'session' && (sessionKey === undefined || e.sessionKey !== sessionKey)) return false;
    if (e.trust.state === 'approved') return true;
    return e.trust.state === 'pending' && sessionKey !== undefined && e.provenance.sessionKey === sessionKey;
  }

  /** Whether a model asking for `sessionKey` may see `e` (see the header). */
  private modelView(e: StoredEntry, sessionKey: string | undefined, now: number): boolean {
    if (!this.trusted(e, sessionKey)) return false;
    if (e.consolidatedInto || e.status === 'archived') return false;
    if (e.wrongFlags.length > 0) return false;
    if (e.supersededBy) {
      // Superseded only for a viewer who sees the replacement: an unapproved or flagged restatement never
      // takes an approved entry away from other sessions.
      const by = this.scopes[e.scope].byId.get(e.supersededBy);
      if (by && this.trusted(by, sessionKey) && !this.judge(by).flagged) return false;
    } else if (e.status === 'superseded') {
      return false;
    }
    if (this.isAged(e, now)) return false;
    return !this.judge(e).flagged;
  }

  private toView(e: StoredEntry, now: number): MemoryEntryView {
    const j = this.judge(e);
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
      provenance: { sourceKind: e.provenance.sourceKind, identity: e.provenance.identity, ...(e.provenance.sessionKey !== undefined ? { sessionKey: e.provenance.sessionKey } : {}), at: e.provenance.at },
      trust: { state: e.trust.state, ...(e.trust.approvedBy !== undefined ? { approvedBy: e.trust.approvedBy } : {}), ...(e.trust.approvedAt !== undefined ? { approvedAt: e.trust.approvedAt } : {}) },
      revision: e.revision,
      createdAt: e.createdAt,
      updatedAt: e.updatedAt,
      ...(e.supersededBy ? { supersededBy: e.supersededBy } : {}),
      ...(e.consolidatedFrom ? { consolidatedFrom: [...e.consolidatedFrom] } : {}),
      ...(e.consolidatedInto ? { consolidatedInto: e.consolidatedInto } : {}),
      ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}),
      wrongFlags: e.wrongFlags.map((f) => ({ reason: f.reason, by: f.by, at: f.at })),
      flagged: j.flagged,
      findings: j.findings.map((f) => ({ ...f })),
      reviewed: j.reviewed,
      aged: this.isAged(e, now),
    };
  }

  // ---- reads -------------------------------------------------------------------------------------------

  /** People's view: every entry of the loaded scopes, flagged ones included with their findings. */
  async list(params: MemoryListParams = {}): Promise<MemoryListResult> {
    const p = zodToMemoryError(MemoryListParamsSchema, params);
    if (!this.config.on) return { entries: [], total: 0 };
    await this.refresh();
    const now = this.now().getTime();
    const accept = (e: StoredEntry): boolean => {
      if (p.scope && e.scope !== p.scope) return false;
      if (p.type && e.type !== p.type) return false;
      if (p.trust && e.trust.state !== p.trust) return false;
      if (p.sessionKey !== undefined && e.sessionKey !== p.sessionKey && e.provenance.sessionKey !== p.sessionKey) return false;
      if (p.flagged !== undefined && this.judge(e).flagged !== p.flagged) return false;
      if (p.aged !== undefined && this.isAged(e, now) !== p.aged) return false;
      return true;
    };
    const matched = p.query && p.query.trim() !== '' ? this.searchEntries(p.query, accept, Math.max(CANDIDATES, p.offset + p.limit)) : this.allOrdered().filter(accept);
    return { entries: matched.slice(p.offset, p.offset + p.limit).map((e) => this.toView(e, now)), total: matched.length };
  }

  /** A model's view: never flagged, aged, legacy, wrong, superseded, or another session's pending entries. */
  async recall(params: RecallParams): Promise<MemoryEntryView[]> {
    const p = zodToMemoryError(RecallParamsSchema, params);
    if (!this.config.on) return [];
    await this.refresh();
    const now = this.now().getTime();
    const accept = (e: StoredEntry) => (!p.scope || e.scope === p.scope) && (!p.type || e.type === p.type) && this.modelView(e, p.sessionKey, now);
    if (p.query.trim() === '') {
      const rank = { high: 0, medium: 1, low: 2 } as const;
      return this.allOrdered()
        .filter(accept)
        .sort((a, b) => rank[a.importance] - rank[b.importance] || (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
        .slice(0, p.limit)
        .map((e) => this.toView(e, now));
    }
    return this.searchEntries(p.query, accept, CANDIDATES)
      .slice(0, p.limit)
      .map((e) => this.toView(e, now));
  }

  /** Trigram candidates (accepted only), then fuse.js over title, body and tags with a score threshold. */
  private searchEntries(query: string, accept: (e: StoredEntry) => boolean, k: number): StoredEntry[] {
    const byKey = (key: string): StoredEntry | undefined => {
      const cut = key.indexOf('\u0000');
      const s = this.scopes[key.slice(0, cut) as MemoryScope];
      return s.loaded ? s.byId.get(key.slice(cut + 1)) : undefined;
    };
    const grams = trigrams(query);
    let candidates: StoredEntry[];
    if (grams.length > 0) {
      candidates = this.search.topCandidates(grams, k, (key) => {
        const e = byKey(key);
        return e !== undefined && accept(e);
      }).map((key) => byKey(key)!);
    } else {
      const q = query.trim().toLowerCase();
      candidates = this.allOrdered().filter((e) => accept(e) && `${e.title} ${e.body} ${e.tags.join(' ')}`.toLowerCase().includes(q)).slice(0, k);
    }
    if (candidates.length === 0) return [];
    const docs: SearchDoc[] = candidates.map((e) => ({ key: searchKey(e), title: e.title, body: e.body, tags: e.tags }));
    const fuse = new Fuse(docs, FUSE_OPTIONS);
    const results = fuse.search(query.slice(0, 500)).filter((r) => (r.score ?? 1) <= RECALL_SCORE_THRESHOLD);
    return results.map((r) => candidates[r.refIndex]!);
  }

  /**
   * One entry. For a model (`forModel`, or a `sessionKey` given): null unless the model may see it. For
   * people: null only when no entry has that id.
   */
  async read(id: string, opts: { sessionKey?: string; forModel?: boolean } = {}): Promise<MemoryEntryView | null> {
    if (!this.config.on) return null;
    await this.refresh();
    const e = this.find(id);
    if (!e) return null;
    const now = this.now().getTime();
    const forModel = opts.forModel ?? opts.sessionKey !== undefined;
    if (forModel && !this.modelView(e, opts.sessionKey, now)) return null;
    return this.toView(e, now);
  }

  /** The layered index for a session's block; null when memory is off. Titles only, never bodies. */
  async indexFor(sessionKey: string | undefined): Promise<MemoryIndexEntry[] | null> {
    if (!this.config.on) return null;
    await this.refresh();
    const now = this.now().getTime();
    const visible = this.allOrdered().filter((e) => this.modelView(e, sessionKey, now));
    return buildLayeredIndex(visible, sessionKey);
  }

  // ---- writes ------------------------------------------------------------------------------------------

  private assertWritable(): void {
    if (!this.config.on) throw new MemoryError('memory-off', OFF_MESSAGE);
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
  private async mutate<R>(scope: MemoryScope, plan: (entries: readonly StoredEntry[]) => MutationPlan<R>): Promise<R> {
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

  private refuseSecrets(fields: { title?: string; body?: string; tags?: readonly string[] }): void {
    for (const [name, value] of [
      ['title', fields.title],
      ['body', fields.body],
      ['tags', fields.tags?.join(' ')],
    ] as const) {
      if (!value) continue;
      const hit = findSecret(value);
      if (hit) throw new MemoryError('invalid', `This looks like ${hit.kind} (in the ${name}); secrets are never remembered. Remove it and try again — nothing was stored.`);
    }
  }

  private capCheck(scope: MemoryScope, entries: readonly StoredEntry[], sessionKey: string | undefined, adding: number, freeing: number): void {
    const inScope = entries.filter((e) => isActive(e) && (scope !== 'session' || e.sessionKey === sessionKey));
    const cap = this.config.caps[scope];
    if (inScope.length + adding - freeing <= cap) return;
    const shown = inScope.slice(0, 100).map((e) => `"${e.title}" (${e.id})`);
    const more = inScope.length > shown.length ? `, and ${inScope.length - shown.length} more` : '';
    throw new MemoryError(
      'scope-full',
      `The ${scope} memory${scope === 'session' ? ' of this session' : ''} is full (${inScope.length} of ${cap} entries); nothing was stored. Consolidate related entries into one (or forget some) first. Its entries: ${shown.join('; ')}${more}.`,
    );
  }

  /** Active entries of the same scope (and session) that `entry` restates: same title, or near-duplicate text. */
  private supersedeTargets(entry: StoredEntry, entries: readonly StoredEntry[]): StoredEntry[] {
    const s = this.scopes[entry.scope];
    const sameGroup = (e: StoredEntry) => e.id !== entry.id && isActive(e) && (entry.scope !== 'session' || e.sessionKey === entry.sessionKey);
    const out = new Map<string, StoredEntry>();
    const title = entry.title.toLowerCase();
    for (const e of entries) if (e.title.length === entry.title.length && sameGroup(e) && e.title.toLowerCase() === title) out.set(e.id, e);
    const threshold = this.config.supersedeThreshold;
    if (threshold < 1) {
      const prefix = `${entry.scope}\u0000`;
      for (const hit of this.wordsIndex.nearDuplicates(this.gramsOf(entry).words, threshold, (key) => {
        if (!key.startsWith(prefix)) return false;
        const e = s.byId.get(key.slice(prefix.length));
        return e !== undefined && sameGroup(e);
      })) {
        const e = s.byId.get(hit.id.slice(prefix.length));
        if (e) out.set(e.id, e);
      }
    }
    return [...out.values()];
  }

  private superseded(old: StoredEntry, by: string, at: string): StoredEntry {
    return { ...old, supersededBy: by, ...(old.type === 'decision' ? { status: 'superseded' as const } : {}), updatedAt: at };
  }

  async remember(params: RememberParams): Promise<MemoryEntryView> {
    const p = zodToMemoryError(RememberParamsSchema, params);
    this.assertWritable();
    if (p.scope === 'session' && !p.sessionKey) throw new MemoryError('invalid', 'A session-scope entry needs the sessionKey of its session.');
    const tags = normalizeTags(p.tags);
    this.refuseSecrets({ title: p.title, body: p.body, tags });
    const at = this.now().toISOString();
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
    await this.mutate(p.scope, (entries) => {
      const targets = this.supersedeTargets(entry, entries);
      this.capCheck(p.scope, entries, p.sessionKey, 1, targets.length);
      return { result: undefined, upserts: [entry, ...targets.map((t) => this.superseded(t, entry.id, at))] };
    });
    return this.toView(entry, this.now().getTime());
  }

  /** A person edits an entry: new revision, judged again (an earlier review no longer covers it). */
  async update(params: UpdateMemoryParams): Promise<MemoryEntryView> {
    const p = zodToMemoryError(UpdateMemoryParamsSchema, params);
    this.assertWritable();
    const found = await this.findOrThrow(p.id);
    const tags = p.tags ? normalizeTags(p.tags) : undefined;
    this.refuseSecrets({ ...(p.title !== undefined ? { title: p.title } : {}), ...(p.body !== undefined ? { body: p.body } : {}), ...(tags ? { tags } : {}) });
    const at = this.now().toISOString();
    const updated = await this.mutate(found.scope, (entries) => {
      const e = entries.find((x) => x.id === p.id);
      if (!e) throw new MemoryError('not-found', `No memory entry has the id ${p.id}.`);
      const next: StoredEntry = { ...e, title: p.title ?? e.title, body: p.body ?? e.body, tags: tags ?? e.tags, type: p.type ?? e.type, importance: p.importance ?? e.importance, updatedAt: at };
      if (next.type === 'decision' && !next.status) next.status = next.supersededBy ? 'superseded' : 'active';
      if (next.type !== 'decision') delete next.status;
      next.revision = computeRevision(next);
      return { result: next, upserts: [next] };
    });
    return this.toView(updated, this.now().getTime());
  }

  /** A person approves: the entry may now reach every session (a legacy one, too). Clears "wrong" flags. */
  async approve(id: string, by?: string): Promise<MemoryEntryView> {
    this.assertWritable();
    const found = await this.findOrThrow(id);
    const at = this.now().toISOString();
    const approvedBy = by ?? currentUser();
    const updated = await this.mutate(found.scope, (entries) => {
      const e = entries.find((x) => x.id === id);
      if (!e) throw new MemoryError('not-found', `No memory entry has the id ${id}.`);
      const next: StoredEntry = { ...e, trust: { ...e.trust, state: 'approved', approvedBy, approvedAt: at }, wrongFlags: [], updatedAt: at };
      return { result: next, upserts: [next] };
    });
    return this.toView(updated, this.now().getTime());
  }

  /** A person says "this is wrong": the entry leaves what models see until someone approves it again. */
  async flagWrong(id: string, reason: string, by?: string): Promise<MemoryEntryView> {
    const p = zodToMemoryError(FlagWrongParamsSchema, { id, reason });
    this.assertWritable();
    const found = await this.findOrThrow(p.id);
    const at = this.now().toISOString();
    const who = by ?? currentUser();
    const updated = await this.mutate(found.scope, (entries) => {
      const e = entries.find((x) => x.id === p.id);
      if (!e) throw new MemoryError('not-found', `No memory entry has the id ${p.id}.`);
      // One flag per person: flagging again replaces the reason.
      const next: StoredEntry = { ...e, wrongFlags: [...e.wrongFlags.filter((f) => f.by !== who), { reason: p.reason, by: who, at }], updatedAt: at };
      return { result: next, upserts: [next] };
    });
    return this.toView(updated, this.now().getTime());
  }

  /** Merges a chosen set of one scope into one new entry; the sources stay, marked consolidated. */
  async consolidate(params: ConsolidateParams, by: { source?: 'human' | 'agent'; identity?: string; sessionKey?: string } = {}): Promise<MemoryEntryView> {
    const p = zodToMemoryError(ConsolidateParamsSchema, params);
    this.assertWritable();
    this.refuseSecrets({ title: p.title, body: p.body });
    const ids = [...new Set(p.ids)];
    if (ids.length < 2) throw new MemoryError('invalid', 'Consolidation needs at least two different entries.');
    const first = await this.findOrThrow(ids[0]!);
    const at = this.now().toISOString();
    const human = (by.source ?? 'human') === 'human';
    const identity = by.identity ?? (human ? currentUser() : 'agent');
    const merged = await this.mutate(first.scope, (entries) => {
      const map = new Map(entries.map((e) => [e.id, e]));
      const sources = ids.map((id) => {
        const e = map.get(id);
        if (!e) throw new MemoryError('not-found', `No ${first.scope} memory entry has the id ${id}; entries can only be consolidated within one scope.`);
        if (e.consolidatedInto) throw new MemoryError('invalid', `"${e.title}" (${id}) is already consolidated into ${e.consolidatedInto}.`);
        if (first.scope === 'session' && e.sessionKey !== first.sessionKey) throw new MemoryError('invalid', 'Session entries can only be consolidated within one session.');
        return e;
      });
      const types = new Set(sources.map((s) => s.type));
      const type = p.type ?? (types.size === 1 ? sources[0]!.type : 'fact');
      const rank = { low: 0, medium: 1, high: 2 } as const;
      const importance = sources.reduce((best, s) => (rank[s.importance] > rank[best] ? s.importance : best), 'low' as StoredEntry['importance']);
      const tags = normalizeTags(sources.flatMap((s) => s.tags)).slice(0, 20);
      const entry: StoredEntry = {
        id: newId(),
        scope: first.scope,
        ...(first.scope === 'session' && first.sessionKey ? { sessionKey: first.sessionKey } : {}),
        type,
        ...(type === 'decision' ? { status: 'active' as const } : {}),
        title: p.title,
        body: p.body,
        tags,
        importance,
        confidence: Math.round((sources.reduce((sum, s) => sum + s.confidence, 0) / sources.length) * 100) / 100,
        provenance: { sourceKind: human ? 'human' : 'agent', identity, ...(by.sessionKey ? { sessionKey: by.sessionKey } : {}), at },
        trust: human ? { state: 'approved', approvedBy: identity, approvedAt: at } : { state: 'pending' },
        revision: computeRevision({ type, title: p.title, body: p.body, tags }),
        createdAt: at,
        updatedAt: at,
        consolidatedFrom: ids,
        wrongFlags: [],
      };
      return { result: entry, upserts: [entry, ...sources.map((s) => ({ ...s, consolidatedInto: entry.id, updatedAt: at }))] };
    });
    return this.toView(merged, this.now().getTime());
  }

  /**
   * What forgetting `id` deletes and restores. Follows provenance: the entry, everything it was
   * consolidated from (recursively), and everything it was consolidated into (recursively, upwards);
   * restores the other sources of a deleted merged entry, and what any deleted entry had superseded.
   */
  static planForget(entries: readonly StoredEntry[], id: string): ForgetPlan {
    const map = new Map(entries.map((e) => [e.id, e]));
    const deleted = new Set<string>();
    const down = (x: string) => {
      const e = map.get(x);
      if (!e || deleted.has(x)) return;
      deleted.add(x);
      for (const s of e.consolidatedFrom ?? []) down(s);
    };
    down(id);
    // Upwards: a merged entry carries the deleted content, so it goes too (and what it was merged into).
    for (const x of [...deleted]) {
      for (let up = map.get(x)?.consolidatedInto; up && map.has(up) && !deleted.has(up); up = map.get(up)?.consolidatedInto) deleted.add(up);
    }
    const restored = entries.filter((e) => !deleted.has(e.id) && ((e.consolidatedInto && deleted.has(e.consolidatedInto)) || (e.supersededBy && deleted.has(e.supersededBy)))).map((e) => e.id);
    return { deleted: entries.filter((e) => deleted.has(e.id)).map((e) => e.id), restored };
  }

  async forgetPreview(id: string): Promise<ForgetPlan> {
    this.assertWritable();
    const e = await this.findOrThrow(id);
    return MemoryService.planForget(this.scopes[e.scope].entries, id);
  }

  /** Forgets `id` and what follows from it (see planForget). Final; recorded in the audit log (ids, counts). */
  async forget(id: string): Promise<ForgetPlan> {
    this.assertWritable();
    const found = await this.findOrThrow(id);
    const at = this.now().toISOString();
    const plan = await this.mutate(found.scope, (entries) => {
      if (!entries.some((e) => e.id === id)) throw new MemoryError('not-found', `No memory entry has the id ${id}.`);
      const plan = MemoryService.planForget(entries, id);
      const deleted = new Set(plan.deleted);
      const restored = new Set(plan.restored);
      const upserts = entries
        .filter((e) => restored.has(e.id))
        .map((e) => {
          const next: StoredEntry = { ...e, updatedAt: at };
          if (next.consolidatedInto && deleted.has(next.consolidatedInto)) delete next.consolidatedInto;
          if (next.supersededBy && deleted.has(next.supersededBy)) {
            delete next.supersededBy;
            if (next.type === 'decision' && next.status === 'superseded') next.status = 'active';
          }
          return next;
        });
      return { result: plan, upserts, deletes: deleted };
    });
    await this.audit.append({ at, action: 'forget', scope: found.scope, by: currentUser(), target: id, deleted: plan.deleted, restored: plan.restored, counts: { deleted: plan.deleted.length, restored: plan.restored.length } });
    return plan;
  }

  /** "Forget everything" in a scope (session scope: one session's entries when `sessionKey` is given). */
  async forgetScope(scope: MemoryScope, sessionKey?: string): Promise<{ deleted: number }> {
    this.assertWritable();
    const at = this.now().toISOString();
    const ids = await this.mutate(scope, (entries) => {
      const doomed = entries.filter((e) => scope !== 'session' || sessionKey === undefined || e.sessionKey === sessionKey);
      const gone = new Set(doomed.map((e) => e.id));
      // Links from survivors into the deleted set are cleared (only possible within one session's entries).
      const upserts = entries
        .filter((e) => !gone.has(e.id) && ((e.supersededBy && gone.has(e.supersededBy)) || (e.consolidatedInto && gone.has(e.consolidatedInto))))
        .map((e) => {
          const next: StoredEntry = { ...e, updatedAt: at };
          if (next.supersededBy && gone.has(next.supersededBy)) delete next.supersededBy;
          if (next.consolidatedInto && gone.has(next.consolidatedInto)) delete next.consolidatedInto;
          return next;
        });
      return { result: doomed.map((e) => e.id), upserts, deletes: gone };
    });
    await this.audit.append({ at, action: 'forget-scope', scope, by: currentUser(), ...(sessionKey ? { sessionKey } : {}), deleted: ids, restored: [], counts: { deleted: ids.length, restored: 0 } });
    return { deleted: ids.length };
  }

  /** "Reviewed — not a threat" for exactly this revision under the current rule set. */
  async markReviewed(id: string, revision: string): Promise<MemoryEntryView> {
    this.assertWritable();
    const e = await this.findOrThrow(id);
    if (!this.deps.reviews) throw new MemoryError('scope-unavailable', 'Open a folder first: reviews are kept in its .knowledge/ folder.');
    if (e.revision !== revision) throw new MemoryError('invalid', `"${e.title}" changed since it was judged; look at it again before marking it reviewed.`);
    const findings = this.findingsOf(e);
    if (findings.length === 0) throw new MemoryError('invalid', `"${e.title}" is not flagged.`);
    await this.deps.reviews.markReviewed({ id: `memory:${id}`, contentHash: revision, rulesetVersion: RULESET_VERSION, rules: [...new Set(findings.map((f) => f.ruleId))] });
    return this.toView(e, this.now().getTime());
  }

  // ---- export and import -------------------------------------------------------------------------------

  async exportScope(scope: MemoryScope, format: 'json' | 'markdown'): Promise<string> {
    if (!this.config.on) return format === 'json' ? '[]\n' : '';
    await this.refresh();
    const s = this.scopes[scope];
    if (!s.loaded) throw new MemoryError('scope-unavailable', s.error ?? `The ${scope} memory is not loaded.`);
    if (format === 'json') return exportJson(s.entries);
    // Markdown is what agents read: only what any session may see (approved, unflagged, active, unaged).
    const now = this.now().getTime();
    const shareable = s.entries.filter((e) => e.trust.state === 'approved' && isActive(e) && e.wrongFlags.length === 0 && !this.isAged(e, now) && !this.judge(e).flagged);
    return exportMarkdown(shareable, scope, s.entries.length - shareable.length, this.now());
  }

  /**
   * Imports entries (JSON as exported, or Markdown as agents read it). Each gets provenance `import`,
   * starts pending and is scanned; obvious secrets and exact duplicates are skipped (listed). Malformed
   * input, or more than the scope can hold, imports nothing.
   */
  async importScope(scope: MemoryScope, format: 'json' | 'markdown', text: string, opts: { identity?: string } = {}): Promise<ImportResult> {
    this.assertWritable();
    if (scope === 'session') throw new MemoryError('invalid', 'Import into the project or personal memory; session memory belongs to one chat session.');
    const candidates: ImportCandidate[] = format === 'json' ? parseJsonImport(text) : parseMarkdownImport(text);
    const at = this.now().toISOString();
    const identity = opts.identity ?? currentUser();
    const skipped: string[] = [];
    const fresh: StoredEntry[] = [];
    for (const c of candidates) {
      const secret = [c.title, c.body, c.tags.join(' ')].map(findSecret).find(Boolean);
      if (secret) {
        skipped.push(`"${c.title}": looks like ${secret.kind}; secrets are never remembered`);
        continue;
      }
      fresh.push({
        id: newId(),
        scope,
        type: c.type,
        ...(c.type === 'decision' ? { status: 'active' as const } : {}),
        title: c.title,
        body: c.body,
        tags: c.tags,
        importance: c.importance,
        confidence: c.confidence,
        provenance: { sourceKind: 'import', identity, at },
        trust: { state: 'pending' },
        revision: computeRevision(c),
        createdAt: at,
        updatedAt: at,
        ...(c.expiresAt ? { expiresAt: c.expiresAt } : {}),
        wrongFlags: [],
      });
    }
    const added = await this.mutate(scope, (entries) => {
      const present = new Set(entries.filter(isActive).map((e) => e.revision));
      const keep: StoredEntry[] = [];
      for (const e of fresh) {
        if (present.has(e.revision)) {
          skipped.push(`"${e.title}": already in the ${scope} memory`);
          continue;
        }
        present.add(e.revision);
        keep.push(e);
      }
      // Restatements supersede like any other write (visible to others only once approved).
      const superseded = new Map<string, StoredEntry>();
      const byId = new Map(entries.map((e) => [e.id, e]));
      for (const e of keep) {
        for (const t of this.supersedeTargets(e, entries)) {
          if (!superseded.has(t.id)) superseded.set(t.id, this.superseded(byId.get(t.id) ?? t, e.id, at));
        }
      }
      this.capCheck(scope, entries, undefined, keep.length, superseded.size);
      return { result: keep, upserts: [...keep, ...superseded.values()] };
    });
    const now = this.now().getTime();
    return { imported: added.length, flagged: added.filter((e) => this.toView(e, now).flagged).length, skipped };
  }
}
