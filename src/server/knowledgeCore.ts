/**
 * The core that the language server and the CLI share: the note/plan index and the store documents.
 * No `vscode` import and no connection: callers pass paths in and read results out.
 */
import { dirname, join } from 'node:path';
import { sessionsPath } from './store/paths';
import { MemoryService } from './memory/memoryService';

export { sessionsPath };
import { SessionStore } from './store/sessionStore';
import { NoteIndex, createKnowledgeFile, toId } from './notes/noteIndex';
import type { KnowledgeItem, KnowledgeKind, Stats, StoreProblem, UpdateDraftPinsResult } from '../shared/schemas';
import { checkPinnable } from './pinPolicy';
import { SessionService } from './delivery/sessionService';
import { PinnedFileReader, type ScanFn } from './delivery/knowledgeBlock';
import { defaultScan } from './threat/scanForBlock';
import { RULESET_VERSION, type ThreatFinding } from './threat/threatScanner';
import { ReviewStore, type Review } from './review/reviewStore';
import { contentRevision } from './notes/noteIndex';
import { readFile } from 'node:fs/promises';
import { AgentPinsStore } from './agents/agentPins';
import type { CompiledBlock } from './delivery/knowledgeBlock';

export interface CoreOptions {
  workspaceFolder: string | null;
  globalStoragePath: string;
  onProblem?: (problem: StoreProblem) => void;
  /** Judges text on every read; a finding withholds it from the model. */
  scan?: ScanFn;
  /** Token budget of a knowledge block when the caller names none. */
  defaultBudgetTokens?: number;
  /** SESSION_KNOWLEDGE_MEMORY_ENABLE: whether agent memory exists in this process at all. */
  memoryEnabled?: boolean;
  /** The server's log. */
  log?: (message: string) => void;
  /** How long a block may wait for memory's first background load before going without its index (default 1500 ms). */
  memoryWaitMs?: number;
  /** Tests: called after each session file the split of an old sessions.json writes. */
  onMigrateProgress?: (written: number, total: number) => void;
  /**
   * Where the sessions index lives, when not in global storage: agents outside VS Code (Claude Code's hook, the
   * MCP server) keep their sessions in the per-user state folder (`agents/agentSessions.ts`).
   */
  sessionsIndexPath?: string;
}

export const DEFAULT_BUDGET_TOKENS = 8000;

export class KnowledgeCore {
  readonly notes: NoteIndex | null;
  readonly sessions: SessionStore;
  readonly sessionService: SessionService;
  readonly reviews: ReviewStore | null;
  /** Null when the flag is unset: memory does not exist. */
  readonly memory: MemoryService | null;
  /** `.knowledge/pins.json`: what agents outside `@knowledge` carry (null without a folder). */
  readonly agentPins: AgentPinsStore | null;
  private readonly scan: ScanFn;
  private readonly flags = new Map<string, { revision: string; rules: string[] }>();
  private readonly problems: StoreProblem[] = [];

  constructor(readonly options: CoreOptions) {
    this.notes = options.workspaceFolder ? new NoteIndex(options.workspaceFolder) : null;
    this.sessions = new SessionStore({
      indexPath: options.sessionsIndexPath ?? sessionsPath(options.globalStoragePath, options.workspaceFolder),
      onProblem: (p) => this.problem(p),
      ...(options.onMigrateProgress ? { onMigrateProgress: options.onMigrateProgress } : {}),
    });
    this.scan = options.scan ?? defaultScan;
    this.reviews = options.workspaceFolder ? new ReviewStore(options.workspaceFolder, (p) => this.problem(p)) : null;
    this.agentPins = options.workspaceFolder ? new AgentPinsStore(options.workspaceFolder, (p) => this.problem(p)) : null;
    this.memory = options.memoryEnabled
      ? new MemoryService({
          workspaceFolder: options.workspaceFolder,
          globalStoragePath: options.globalStoragePath,
          scan: (text) => this.scan(text) as readonly ThreatFinding[],
          reviews: this.reviews,
          onProblem: (p) => this.problem(p),
          onProblemsResolved: (where) => this.resolveProblems(where),
          verdictsPath: join(dirname(sessionsPath(options.globalStoragePath, options.workspaceFolder)), 'verdicts.json'),
          ...(options.log ? { log: options.log } : {}),
        })
      : null;
    this.sessionService = new SessionService({
      store: this.sessions,
      forgetSessionMemory: async (keys) => (this.memory ? this.memory.forgetSessions(keys) : 0),
      workspaceFolder: options.workspaceFolder,
      reader: options.workspaceFolder ? new PinnedFileReader(options.workspaceFolder) : null,
      judge: (id, text, revision) => this.judge(id, text, revision),
      memoryIndex: async (sessionKey) => (this.memory ? this.memory.indexFor(sessionKey, options.memoryWaitMs ?? 1500) : null),
      memoryIndexBudget: () => this.memory?.currentConfig.indexBudgetTokens,
      defaultBudgetTokens: options.defaultBudgetTokens ?? DEFAULT_BUDGET_TOKENS,
    });
  }

  /** Loads every source. A source that fails is reported and left out; it never blanks the others. */
  async load(): Promise<void> {
    const results = await Promise.allSettled([this.sessions.open(), this.notes?.rebuild(), this.reviews?.load()]);
    const names = ['sessions', 'notes', 'reviews'];
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        this.problem({
          source: names[i] ?? 'unknown',
          path: i === 0 ? this.sessions.indexPath : (this.options.workspaceFolder ?? ''),
          message: `Could not load ${names[i]}: ${(r.reason as Error)?.message ?? String(r.reason)}`,
          at: new Date().toISOString(),
        });
      }
    });
    for (const p of this.notes?.problems ?? []) this.problem(p);
    await this.refreshFlags();
  }

  /** Notes and plans, each judged by the current rule set (cached by revision; re-judged when it changes). */
  listItems(kind?: KnowledgeKind): KnowledgeItem[] {
    return (this.notes?.list(kind) ?? []).map((item) => ({ ...item, flaggedRules: this.flags.get(item.id)?.rules ?? [] }));
  }

  /**
   * Re-judges the given items (all when omitted) from disk and remembers which are flagged. Answers the
   * judgements, for diagnostics. Called whenever the index changes, so every read sees a current verdict.
   */
  async refreshFlags(ids?: readonly string[]): Promise<Map<string, Awaited<ReturnType<KnowledgeCore['judgeFile']>>>> {
    const out = new Map<string, Awaited<ReturnType<KnowledgeCore['judgeFile']>>>();
    const targets = ids ?? this.listItems().map((i) => i.id);
    for (const id of targets) {
      const judged = this.notes?.get(id) ? await this.judgeFile(id) : undefined;
      out.set(id, judged);
      if (judged) this.flags.set(id, { revision: judged.revision, rules: [...new Set(judged.findings.map((f) => f.ruleId))] });
      else this.flags.delete(id);
    }
    return out;
  }

  /** Findings that stand for this text now (current rule set; a matching review clears them). Scanned on every read. */
  judge(id: string, text: string, revision: string): readonly ThreatFinding[] {
    const findings = this.scan(text, revision) as readonly ThreatFinding[];
    if (findings.length === 0) return findings;
    return this.reviews?.isReviewed(id, revision, RULESET_VERSION) ? [] : findings;
  }

  /** Judges a workspace file by id, reading it now. Answers undefined when it cannot be read. */
  async judgeFile(id: string): Promise<{ id: string; revision: string; text: string; findings: readonly ThreatFinding[]; allFindings: readonly ThreatFinding[]; review?: Review } | undefined> {
    if (!this.options.workspaceFolder) return undefined;
    const check = checkPinnable(this.options.workspaceFolder, id);
    if (!check.ok) return undefined;
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.options.workspaceFolder, check.id));
    } catch {
      return undefined;
    }
    const text = bytes.toString('utf8');
    const revision = contentRevision(bytes);
    const allFindings = this.scan(text, revision) as readonly ThreatFinding[];
    const review = allFindings.length > 0 ? this.reviews?.find(check.id, revision, RULESET_VERSION) : undefined;
    return { id: check.id, revision, text, findings: review ? [] : allFindings, allFindings, ...(review ? { review } : {}) };
  }

  /** Records "reviewed — not a threat" for exactly this revision under the current rule set. */
  async markReviewed(id: string, revision: string): Promise<Review> {
    if (!this.reviews) throw new Error('Open a folder first: reviews are kept in its .knowledge/ folder.');
    const judged = await this.judgeFile(id);
    if (!judged) throw new Error(`${id} cannot be read.`);
    if (judged.revision !== revision) throw new Error(`${id} changed since it was judged; look at it again before marking it reviewed.`);
    if (judged.allFindings.length === 0) throw new Error(`${id} is not flagged.`);
    const review = await this.reviews.markReviewed({ id: judged.id, contentHash: revision, rulesetVersion: RULESET_VERSION, rules: [...new Set(judged.allFindings.map((f) => f.ruleId))] });
    await this.refreshFlags([judged.id]);
    return review;
  }

  async createItem(kind: KnowledgeKind, title: string): Promise<KnowledgeItem> {
    if (!this.notes || !this.options.workspaceFolder) {
      throw new Error('Open a folder first: notes and plans live in the workspace folder under .knowledge/.');
    }
    const path = await createKnowledgeFile(this.options.workspaceFolder, kind, title);
    await this.notes.refreshPath(path);
    const item = this.notes.get(toId(this.options.workspaceFolder, path));
    if (!item) throw new Error(`Created ${path} but could not index it.`);
    return item;
  }

  /** Adds and removes draft pins atomically (another window may be pinning too). Refuses secrets and outside files. */
  async updateDraftPins(add: string[], remove: string[]): Promise<UpdateDraftPinsResult> {
    const refused: UpdateDraftPinsResult['refused'] = [];
    const accepted: string[] = [];
    for (const pin of add) {
      if (!this.options.workspaceFolder) {
        refused.push({ pin, reason: 'no workspace folder is open' });
        continue;
      }
      const check = checkPinnable(this.options.workspaceFolder, pin);
      if (check.ok) accepted.push(check.id);
      else refused.push({ pin, reason: check.reason });
    }
    const removeIds = new Set(
      remove.map((pin) => {
        if (!this.options.workspaceFolder) return pin;
        const check = checkPinnable(this.options.workspaceFolder, pin);
        return check.ok ? check.id : pin;
      }),
    );
    const doc = await this.sessions.updateIndex((d) => {
      const next = d.draftPins.filter((p) => !removeIds.has(p));
      for (const id of accepted) if (!next.includes(id)) next.push(id);
      d.draftPins = next;
    });
    return { pins: doc.draftPins, refused };
  }

  /** Replaces the whole draft (tests, migration tools). Same checks as `updateDraftPins`. */
  async setDraftPins(pins: string[]): Promise<string[]> {
    const current = (await this.sessions.loadIndex()).draftPins;
    return (await this.updateDraftPins(pins, current.filter((p) => !pins.includes(p)))).pins;
  }

  async getDraftPins(): Promise<string[]> {
    return (await this.sessions.loadIndex()).draftPins;
  }

  /**
   * What an agent process needs before it can deliver: sessions and reviews (verdicts), not the note index or a
   * judgement of every file. A hook runs on every prompt; it reads only what it sends.
   */
  async loadForAgents(): Promise<void> {
    const results = await Promise.allSettled([this.sessions.open(), this.reviews?.load()]);
    for (const r of results) {
      if (r.status === 'rejected') this.problem({ source: 'agents', path: this.sessions.indexPath, message: `Could not load: ${(r.reason as Error)?.message ?? String(r.reason)}`, at: new Date().toISOString() });
    }
  }

  /** The agent pins, read from `.knowledge/pins.json` now; pins the policy refuses are left out. */
  async getAgentPins(): Promise<string[]> {
    return this.agentPins ? (await this.agentPins.read()).pins : [];
  }

  /** Adds and removes agent pins atomically. Refuses secrets and outside files, as every pin. */
  async updateAgentPins(add: readonly string[], remove: readonly string[]): Promise<UpdateDraftPinsResult> {
    if (!this.agentPins) return { pins: [], refused: add.map((pin) => ({ pin, reason: 'no workspace folder is open' })) };
    return this.agentPins.update(add, remove);
  }

  /**
   * The block an agent gets: for the agent pins, or for `pins` when given (validated like every pin: a refused
   * pin throws a SessionError naming it). Scanned now; flagged items withheld.
   */
  async compileAgentBlock(pins?: readonly string[], budgetTokens?: number, withMemory = true): Promise<CompiledBlock> {
    const ids = pins ? this.sessionService.normalizePins(pins) : await this.getAgentPins();
    return this.sessionService.compile(ids, budgetTokens, undefined, withMemory);
  }

  /** Delivery to an agent session at one of its moments, over the agent pins (see `SessionService.deliverToAgent`). */
  async deliverToAgent(sessionKey: string, moment: 'start' | 'compact' | 'prompt', budgetTokens?: number, label?: string): ReturnType<SessionService['deliverToAgent']> {
    return this.sessionService.deliverToAgent(sessionKey, await this.getAgentPins(), moment, budgetTokens, label);
  }

  async stats(): Promise<Stats> {
    const index = this.sessions.index.data;
    const sessions = await this.sessions.count().catch(() => 0);
    const notes = this.listItems('note').length;
    const plans = this.listItems('plan').length;
    return {
      workspaceFolder: this.options.workspaceFolder,
      notes,
      plans,
      sessions,
      draftPins: index.draftPins.length,
      stores: [this.sessions.health(), ...(this.reviews ? [this.reviews.doc.health()] : [])],
      problems: [...this.problems],
    };
  }

  private problem(p: StoreProblem): void {
    this.problems.push(p);
    this.options.onProblem?.(p);
  }

  /** A later load of that file was clean: its earlier problems leave Store Health. */
  private resolveProblems(where: { source: string; path: string }): void {
    for (let i = this.problems.length - 1; i >= 0; i--) {
      const p = this.problems[i]!;
      if (p.source === where.source && p.path === where.path) this.problems.splice(i, 1);
    }
  }
}
