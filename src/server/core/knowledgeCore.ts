/**
 * The core that the language server and the CLI share: every workspace folder's note/plan index, reviews and agent
 * pins (`WorkspaceRoots`), the sessions store (one per workspace, keyed by its first folder) and memory.
 * No `vscode` import and no connection: callers pass paths in and read results out.
 */
import { dirname, isAbsolute, join } from 'node:path';
import { sessionsPath } from './store/paths';
import { MemoryService, type ProjectFolder } from './memory/memoryService';

export { sessionsPath };
import { SessionStore } from './store/sessionStore';
import { createKnowledgeFile } from './notes/noteIndex';
import { type KnowledgeItem, type KnowledgeKind, type Stats, type StoreProblem } from '../../shared/schemas';
import type { UpdateDraftPinsResult } from '../../shared/pinIdSchemas';
import { loadFolder, loadSources, type LoadScope } from './knowledgeSources';
import { DEFAULT_BUDGET_TOKENS } from './delivery/budgetDefault';
import { ItemVerdicts, type FileJudgement } from './itemVerdicts';
import { readWorkspaceAgentPins, updateWorkspaceAgentPins } from './agents/workspaceAgentPins';
import type { FolderSpec } from './workspaceFolders';
import { SessionService } from './delivery/sessionService';
import { PinnedFileReader, type ScanFn } from './delivery/knowledgeBlock';
import { defaultScan } from './threat/judgement';
import type { NameFinding } from './threat/names';
import type { ThreatFinding } from './threat/threatScanner';
import { knownStoragePaths, type Review } from './review/reviewStore';
import type { AgentPinsStore } from './agents/agentPins';
import type { CompiledBlock } from './delivery/knowledgeBlock';
import { WorkspaceRoots, type KnowledgeFolder } from './workspaceRoots';
import type { NoteIndex } from './notes/noteIndex';
import type { ReviewStore } from './review/reviewStore';
import { UserTrustStore } from './review/userTrust';
import type { BlockDestination } from './delivery/blockWords';

export interface CoreOptions {
  /** The workspace's first folder: it names the sessions store (null: no folder open). */
  workspaceFolder: string | null;
  /**
   * Every folder of the workspace, in order, the first being `workspaceFolder`; `name` is the client's name for it
   * (VS Code's `WorkspaceFolder.name`). Absent: `workspaceFolder` alone.
   */
  workspaceFolders?: readonly FolderSpec[];
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
  /** This person's own record of approvals (default: the per-user state folder's, `review/userTrust.ts`). */
  userTrust?: UserTrustStore;
}



export class KnowledgeCore {
  /** Every folder of the workspace with its notes, reviews and agent pins. */
  readonly folders: WorkspaceRoots;
  readonly sessions: SessionStore;
  readonly sessionService: SessionService;
  /** Null when the flag is unset: memory does not exist. */
  readonly memory: MemoryService | null;
  private readonly scan: ScanFn;
  /** Every item's verdict, each given by the one judgement (`threat/judgement.ts`), and reviews (mark, accept). */
  readonly verdicts: ItemVerdicts;
  private readonly problems: StoreProblem[] = [];

  constructor(readonly options: CoreOptions) {
    const specs: readonly FolderSpec[] = options.workspaceFolders ?? (options.workspaceFolder ? [{ path: options.workspaceFolder }] : []);
    knownStoragePaths.add(options.globalStoragePath);
    this.folders = new WorkspaceRoots(specs, (p) => this.problem(p));
    this.sessions = new SessionStore({
      indexPath: options.sessionsIndexPath ?? sessionsPath(options.globalStoragePath, options.workspaceFolder),
      onProblem: (p) => this.problem(p),
      ...(options.onMigrateProgress ? { onMigrateProgress: options.onMigrateProgress } : {}),
    });
    this.scan = options.scan ?? defaultScan;
    this.verdicts = new ItemVerdicts(this.folders, this.scan, (p) => this.problem(p), { ids: () => this.listItems().map((i) => i.id), has: (id) => this.getItem(id) !== undefined });
    // Project memory is each folder's `.knowledge/memory.jsonl`, reviewed in that folder's reviews.json; personal and
    // session entries are reviewed in the first folder's.
    const primaryReviews = this.folders.primary?.reviews ?? null;
    this.memory = options.memoryEnabled
      ? new MemoryService({
          workspaceFolder: options.workspaceFolder,
          projectFolders: this.projectFolders(),
          globalStoragePath: options.globalStoragePath,
          scan: (text) => this.scan(text) as readonly ThreatFinding[],
          reviews: primaryReviews,
          onProblem: (p) => this.problem(p),
          onProblemsResolved: (where) => this.resolveProblems(where),
          verdictsPath: join(dirname(sessionsPath(options.globalStoragePath, options.workspaceFolder)), 'verdicts.json'),
          // Parsed memory files, per user (global storage), so that a restart need not parse them again.
          snapshotDir: join(dirname(sessionsPath(options.globalStoragePath, options.workspaceFolder)), 'memory-snapshots'),
          // The person's own approvals: a project entry (the repository's file) reaches a model only with one.
          userTrust: options.userTrust ?? new UserTrustStore(undefined, (p) => this.problem(p)),
          ...(options.log ? { log: options.log } : {}),
        })
      : null;
    this.sessionService = new SessionService({
      store: this.sessions,
      forgetSessionMemory: async (keys) => (this.memory ? this.memory.forgetSessions(keys) : 0),
      checkPin: specs.length > 0 ? (pin) => this.folders.check(pin) : null,
      reader: specs.length > 0 ? new PinnedFileReader((id) => this.folders.check(id), this.folders.reader) : null,
      judge: (id, text, revision) => this.judge(id, text, revision),
      judgeName: (id) => this.nameFindings(id),
      memoryIndex: async (sessionKey) => (this.memory ? this.memory.indexFor(sessionKey, options.memoryWaitMs ?? 1500) : null),
      memoryIndexBudget: () => this.memory?.currentConfig.indexBudgetTokens,
      defaultBudgetTokens: options.defaultBudgetTokens ?? DEFAULT_BUDGET_TOKENS,
    });
  }

  /** Every folder as project memory sees it: its name, path and reviews. */
  private projectFolders(): ProjectFolder[] {
    return this.folders.all.map((f) => ({ name: f.name, path: f.path, reviews: f.reviews }));
  }

  /** The first folder's note index (null without a folder); `listItems` covers every folder. */
  get notes(): NoteIndex | null {
    return this.folders.primary?.notes ?? null;
  }

  /** The first folder's reviews (null without a folder); each folder keeps its own. */
  get reviews(): ReviewStore | null {
    return this.folders.primary?.reviews ?? null;
  }

  /** The first folder's `.knowledge/pins.json` (null without a folder); `getAgentPins` covers every folder. */
  get agentPins(): AgentPinsStore | null {
    return this.folders.primary?.agentPins ?? null;
  }

  /**
   * Resolves once the items as indexed have been judged: a list asked for while a load or a change of folders is
   * still judging waits for it (a list that does not wait shows the items not judged yet as unjudged, withheld).
   */
  whenJudged(): Promise<void> {
    return this.verdicts.whenJudged();
  }

  /**
   * The one loader (`knowledgeSources.ts`): what `scope` needs — `all` (sessions, notes, reviews, every item judged),
   * `agents` (sessions and reviews: the hook reads only what it sends), `knowledge` (notes and reviews, judged: the MCP
   * server). A source that fails is reported and left out; it never blanks the others. A load that judges is tracked:
   * a list asked for meanwhile waits for it (`whenJudged`).
   */
  load(scope: LoadScope = 'all'): Promise<void> {
    const run = loadSources(this, scope, (p) => this.problem(p));
    return scope === 'agents' ? run : this.verdicts.track(run);
  }

  /** One folder's notes and reviews; each that fails is reported and left out. */
  private loadFolder(folder: KnowledgeFolder): Promise<void> {
    return loadFolder(folder, (p) => this.problem(p));
  }

  /**
   * Folders added to or removed from the workspace while it is open. New folders are indexed; every id is
   * judged again (ids gain their folder's name when a second folder arrives, and lose it when one is left).
   * Answers the items before and after, so callers can clear and publish diagnostics.
   */
  async setFolders(specs: readonly FolderSpec[]): Promise<{ added: string[]; removed: string[]; before: KnowledgeItem[]; after: KnowledgeItem[] }> {
    const before = this.listItems();
    const { added, removed } = this.folders.set(specs);
    // ids gain (or lose) their folder's name: every verdict is forgotten now, and items are unjudged until judged again
    this.verdicts.clear();
    await this.verdicts.track(
      (async () => {
        await Promise.all(added.map((f) => this.loadFolder(f)));
        if (this.memory) await this.memory.setFolders(this.projectFolders());
        await this.refreshFlags();
      })(),
    );
    return { added: added.map((f) => f.path), removed: removed.map((f) => f.path), before, after: this.listItems() };
  }

  /** Notes and plans of every folder, each judged by the current rule set (cached by revision; re-judged when it changes). */
  listItems(kind?: KnowledgeKind): KnowledgeItem[] {
    const multi = this.folders.multi;
    return this.folders.all.flatMap((folder) =>
      folder.notes.list(kind).map((item) => {
        const id = this.folders.idOf(folder, item.id);
        return { ...item, id, ...(multi ? { folder: folder.name } : {}), ...this.verdicts.listed(id) };
      }),
    );
  }

  /** The indexed item of a workspace id, if any. */
  getItem(id: string): KnowledgeItem | undefined {
    const at = this.folders.locate(id);
    const item = at?.folder.notes.get(at.rel);
    if (!at || !item) return undefined;
    const canonical = this.folders.idOf(at.folder, item.id);
    return { ...item, id: canonical, ...(this.folders.multi ? { folder: at.folder.name } : {}), ...this.verdicts.listed(canonical) };
  }

  /**
   * Re-judges the given items (all when omitted) from disk and remembers their verdicts. Answers the judgements, for
   * diagnostics. Called whenever the index changes, so every read sees a current verdict.
   */
  refreshFlags(ids?: readonly string[]): Promise<Map<string, FileJudgement | undefined>> {
    return this.verdicts.refresh(ids);
  }

  /** Findings on a pin id: its folder's name, directories and file name read as words. Reviews do not apply here. */
  nameFindings(id: string): readonly NameFinding[] {
    return this.verdicts.nameFindings(id);
  }

  /** Findings that stand for this text now (the one judgement: rules, name, a matching review in the item's folder). */
  judge(id: string, text: string, revision: string, replayed = false): readonly ThreatFinding[] {
    return this.verdicts.judge(id, text, revision, replayed);
  }

  /** Judges a workspace file by id, reading it now (`explain`: with what the gates vetoed). Undefined when it cannot be read. */
  judgeFile(id: string, explain = false): Promise<FileJudgement | undefined> {
    return this.verdicts.judgeFile(id, explain);
  }

  /** Records "reviewed — not a threat" for exactly this revision under the current rule set, in the file's folder. */
  markReviewed(id: string, revision: string, findings?: readonly string[]): Promise<Review> {
    return this.verdicts.markReviewed(id, revision, findings);
  }

  /** Creates a note or plan in `folder` (a folder's name; the first folder when omitted). */
  async createItem(kind: KnowledgeKind, title: string, folderName?: string): Promise<KnowledgeItem> {
    const folder = folderName !== undefined ? this.folders.byName(folderName) : this.folders.primary;
    if (!folder) {
      throw new Error(folderName !== undefined ? `No workspace folder is named ${folderName}.` : 'Open a folder first: notes and plans live in the workspace folder under .knowledge/.');
    }
    const path = await createKnowledgeFile(folder.path, kind, title);
    await folder.notes.refreshPath(path);
    const at = this.folders.ofPath(path);
    if (at) await this.refreshFlags([this.folders.idOf(at.folder, at.rel)]);
    const item = at ? this.getItem(this.folders.idOf(at.folder, at.rel)) : undefined;
    if (!item) throw new Error(`Created ${path} but could not index it.`);
    return item;
  }

  /** Adds and removes draft pins atomically (another window may be pinning too). Refuses secrets and outside files. */
  async updateDraftPins(add: string[], remove: string[]): Promise<UpdateDraftPinsResult> {
    const refused: UpdateDraftPinsResult['refused'] = [];
    const accepted: string[] = [];
    const hasFolder = this.folders.all.length > 0;
    for (const pin of add) {
      if (!hasFolder) {
        refused.push({ pin, reason: 'no workspace folder is open' });
        continue;
      }
      const check = this.folders.check(pin);
      if (check.ok) accepted.push(check.id);
      else refused.push({ pin, reason: check.reason });
    }
    // The pin as given too: a pin kept from before multi-root support names its folder without the folder's name.
    const removeIds = new Set(
      remove.flatMap((pin) => {
        if (!hasFolder) return [pin];
        const check = this.folders.check(pin);
        return check.ok ? [pin, check.id] : [pin];
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
   * Pins follow a rename made in the editor: every session, the draft, and the agent pins of the folder holding
   * the file. Paths may be absolute (the extension sends them) or workspace ids. Answers how many pins changed.
   */
  async renamePin(oldRef: string, newRef: string): Promise<{ sessions: number; agents: number; agentsError?: string }> {
    const oldAt = isAbsolute(oldRef) ? this.folders.ofPath(oldRef) : this.folders.locate(oldRef);
    const newAt = isAbsolute(newRef) ? this.folders.ofPath(newRef) : this.folders.locate(newRef);
    if (!oldAt || !newAt) return { sessions: 0, agents: 0 };
    const oldId = this.folders.idOf(oldAt.folder, oldAt.rel);
    const newId = this.folders.idOf(newAt.folder, newAt.rel);
    let sessions = await this.sessionService.renamePin(oldId, newId);
    // A pin kept from before multi-root support (the first folder's, without its name) follows too, in its own form.
    if (this.folders.multi && oldAt.folder === this.folders.primary) {
      sessions += await this.sessionService.renamePin(oldAt.rel, newAt.folder === this.folders.primary ? newAt.rel : newId);
    }
    // A pins.json that cannot be updated never fails the sessions' rename: it is said in `agentsError`.
    try {
      const agents = oldAt.folder === newAt.folder ? await oldAt.folder.agentPins.rename(oldAt.rel, newAt.rel) : 0;
      return { sessions, agents };
    } catch (err) {
      return { sessions, agents: 0, agentsError: (err as Error)?.message ?? String(err) };
    }
  }

  /** The agent pins of every folder (each folder's `.knowledge/pins.json`), as workspace ids, read now (`agents/workspaceAgentPins.ts`). */
  readAgentPins(): Promise<UpdateDraftPinsResult> {
    return readWorkspaceAgentPins(this.folders);
  }

  /** The agent pins, read from every folder's `.knowledge/pins.json` now; pins the policy refuses are left out. */
  async getAgentPins(): Promise<string[]> {
    return (await this.readAgentPins()).pins;
  }

  /** Adds and removes agent pins atomically, each in the `.knowledge/pins.json` of the folder that holds it. */
  updateAgentPins(add: readonly string[], remove: readonly string[]): Promise<UpdateDraftPinsResult> {
    return updateWorkspaceAgentPins(this.folders, add, remove);
  }

  /**
   * The block an agent gets: for the agent pins, or for `pins` when given (validated like every pin: a refused
   * pin throws a SessionError naming it). Scanned now; flagged items withheld.
   */
  async compileAgentBlock(pins?: readonly string[], budgetTokens?: number, withMemory = true, destination: BlockDestination = 'mcp'): Promise<CompiledBlock> {
    const ids = pins ? this.sessionService.normalizePins(pins) : await this.getAgentPins();
    return this.sessionService.compile(ids, budgetTokens, undefined, withMemory, undefined, destination);
  }

  /** Delivery to an agent session at one of its moments, over the agent pins (see `SessionService.deliverToAgent`). */
  async deliverToAgent(
    sessionKey: string,
    moment: 'start' | 'compact' | 'prompt',
    budgetTokens?: number,
    label?: string,
    options?: Parameters<SessionService['deliverToAgent']>[5],
  ): ReturnType<SessionService['deliverToAgent']> {
    return this.sessionService.deliverToAgent(sessionKey, await this.getAgentPins(), moment, budgetTokens, label, options);
  }

  async stats(): Promise<Stats> {
    const index = this.sessions.index.data;
    const sessions = await this.sessions.count().catch(() => 0);
    const notes = this.listItems('note').length;
    const plans = this.listItems('plan').length;
    return {
      workspaceFolder: this.options.workspaceFolder,
      ...(this.folders.multi
        ? { folders: this.folders.all.map((f) => ({ name: f.name, path: f.path, notes: f.notes.list('note').length, plans: f.notes.list('plan').length })) }
        : {}),
      notes,
      plans,
      sessions,
      draftPins: index.draftPins.length,
      stores: [this.sessions.health(), ...this.folders.all.map((f) => f.reviews.doc.health())],
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
