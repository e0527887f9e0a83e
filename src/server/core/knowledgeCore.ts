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
import { UNJUDGED_RULE, type KnowledgeItem, type KnowledgeKind, type Stats, type StoreProblem, type UpdateDraftPinsResult } from '../../shared/schemas';
import type { FolderSpec } from './workspaceFolders';
import { SessionService } from './delivery/sessionService';
import { PinnedFileReader, type ScanFn } from './delivery/knowledgeBlock';
import { defaultScan } from './threat/judgement';
import { nameFindings, type NameFinding } from './threat/names';
import { ThreatModelUnavailableError } from './threat/model/classifier';
import { RULESET_VERSION, type ThreatFinding } from './threat/threatScanner';
import { knownStoragePaths, type Review } from './review/reviewStore';
import { readKnowledgeFile, type KnowledgeRead } from './notes/knowledgeFile';
import type { AgentPinsStore } from './agents/agentPins';
import type { CompiledBlock } from './delivery/knowledgeBlock';
import { WorkspaceRoots, type KnowledgeFolder } from './workspaceRoots';
import type { NoteIndex } from './notes/noteIndex';
import type { ReviewStore } from './review/reviewStore';
import { UserTrustStore } from './review/userTrust';

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

export const DEFAULT_BUDGET_TOKENS = 8000;

/** The rule an item is listed under when the scanner could not judge it: withheld, like a finding, until it is judged. */
export const UNJUDGED = UNJUDGED_RULE;

export class KnowledgeCore {
  /** Every folder of the workspace with its notes, reviews and agent pins. */
  readonly folders: WorkspaceRoots;
  readonly sessions: SessionStore;
  readonly sessionService: SessionService;
  /** Null when the flag is unset: memory does not exist. */
  readonly memory: MemoryService | null;
  private readonly scan: ScanFn;
  private readonly flags = new Map<string, { revision: string; rules: string[]; teamBy?: string }>();
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
      reader: specs.length > 0 ? new PinnedFileReader((id) => this.folders.check(id)) : null,
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

  /** The latest full judging (a load, a change of folders): what `whenJudged` waits for. */
  private judging: Promise<unknown> = Promise.resolve();

  /**
   * Resolves once the items as indexed have been judged: a list asked for while a load or a change of folders is
   * still judging waits for it, so an unjudged item is never listed as clean.
   */
  async whenJudged(): Promise<void> {
    await this.judging.catch(() => undefined);
  }

  /** Loads every source. A source that fails is reported and left out; it never blanks the others. */
  load(): Promise<void> {
    const run = this.loadNow();
    this.judging = run;
    return run;
  }

  private async loadNow(): Promise<void> {
    const [sessions] = await Promise.allSettled([this.sessions.open(), ...this.folders.all.map((f) => this.loadFolder(f))]);
    if (sessions.status === 'rejected') {
      this.problem({ source: 'sessions', path: this.sessions.indexPath, message: `Could not load sessions: ${(sessions.reason as Error)?.message ?? String(sessions.reason)}`, at: new Date().toISOString() });
    }
    await this.refreshFlags();
  }

  /** One folder's notes and reviews; each that fails is reported and left out. */
  private async loadFolder(folder: KnowledgeFolder): Promise<void> {
    const results = await Promise.allSettled([folder.notes.rebuild(), folder.reviews.load()]);
    const names = ['notes', 'reviews'];
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        this.problem({ source: names[i] ?? 'unknown', path: folder.path, message: `Could not load ${names[i]} of ${folder.path}: ${(r.reason as Error)?.message ?? String(r.reason)}`, at: new Date().toISOString() });
      }
    });
    for (const p of folder.notes.problems) this.problem(p);
  }

  /**
   * Folders added to or removed from the workspace while it is open. New folders are indexed; every id is
   * judged again (ids gain their folder's name when a second folder arrives, and lose it when one is left).
   * Answers the items before and after, so callers can clear and publish diagnostics.
   */
  async setFolders(specs: readonly FolderSpec[]): Promise<{ added: string[]; removed: string[]; before: KnowledgeItem[]; after: KnowledgeItem[] }> {
    const before = this.listItems();
    const { added, removed } = this.folders.set(specs);
    const judged = (async () => {
      await Promise.all(added.map((f) => this.loadFolder(f)));
      if (this.memory) await this.memory.setFolders(this.projectFolders());
      this.flags.clear();
      await this.refreshFlags();
    })();
    this.judging = judged;
    await judged;
    return { added: added.map((f) => f.path), removed: removed.map((f) => f.path), before, after: this.listItems() };
  }

  /** Notes and plans of every folder, each judged by the current rule set (cached by revision; re-judged when it changes). */
  listItems(kind?: KnowledgeKind): KnowledgeItem[] {
    const multi = this.folders.multi;
    return this.folders.all.flatMap((folder) =>
      folder.notes.list(kind).map((item) => {
        const id = this.folders.idOf(folder, item.id);
        return { ...item, id, ...(multi ? { folder: folder.name } : {}), flaggedRules: this.flags.get(id)?.rules ?? [], ...this.teamReview(id) };
      }),
    );
  }

  /** The indexed item of a workspace id, if any. */
  getItem(id: string): KnowledgeItem | undefined {
    const at = this.folders.locate(id);
    const item = at?.folder.notes.get(at.rel);
    if (!at || !item) return undefined;
    const canonical = this.folders.idOf(at.folder, item.id);
    return { ...item, id: canonical, ...(this.folders.multi ? { folder: at.folder.name } : {}), flaggedRules: this.flags.get(canonical)?.rules ?? [], ...this.teamReview(canonical) };
  }

  /**
   * Re-judges the given items (all when omitted) from disk and remembers which are flagged. Answers the
   * judgements, for diagnostics. Called whenever the index changes, so every read sees a current verdict.
   */
  async refreshFlags(ids?: readonly string[]): Promise<Map<string, Awaited<ReturnType<KnowledgeCore['judgeFile']>>>> {
    const out = new Map<string, Awaited<ReturnType<KnowledgeCore['judgeFile']>>>();
    // Another process (another window, the CLI) may have recorded a review of this person's since.
    await Promise.allSettled(this.folders.all.map((f) => f.reviews.refreshTrust()));
    const targets = ids ?? this.listItems().map((i) => i.id);
    let failure: Error | undefined;
    for (const id of targets) {
      let judged: Awaited<ReturnType<KnowledgeCore['judgeFile']>>;
      try {
        judged = this.getItem(id) ? await this.judgeFile(id) : undefined;
      } catch (err) {
        // The scanner could not judge it (e.g. the model's weights are missing): listed as withheld, never as clean.
        failure ??= err as Error;
        this.flags.set(id, { revision: '', rules: [UNJUDGED] });
        continue;
      }
      out.set(id, judged);
      if (judged) this.flags.set(judged.id, { revision: judged.revision, rules: [...new Set(judged.findings.map((f) => f.ruleId))], ...(judged.repositoryReview ? { teamBy: judged.repositoryReview.reviewedBy } : {}) });
      else this.flags.delete(id);
    }
    if (failure) this.problem({ source: 'threat-scanner', path: failure instanceof ThreatModelUnavailableError ? failure.path : '', message: failure.message, at: new Date().toISOString() });
    return out;
  }

  /** The findings on an item's text, after those on its name (a name reaches the model too: `threat/names.ts`). */
  private withName(id: string, findings: readonly ThreatFinding[]): readonly ThreatFinding[] {
    const named = id ? this.nameFindings(id) : [];
    return named.length === 0 ? findings : [...named, ...findings];
  }

  /** Findings on a pin id: its folder's name, directories and file name read as words. Reviews do not apply here. */
  nameFindings(id: string): readonly NameFinding[] {
    return nameFindings(id, this.scan as (text: string) => readonly ThreatFinding[]);
  }

  /** Findings that stand for this text now (current rule set; a matching review in the item's folder clears them). Scanned on every read. */
  judge(id: string, text: string, revision: string): readonly ThreatFinding[] {
    const findings = this.withName(id, this.scan(text, revision) as readonly ThreatFinding[]);
    if (findings.length === 0) return findings;
    const at = id ? this.folders.locate(id) : undefined;
    return at?.folder.reviews.isReviewed(at.rel, revision, RULESET_VERSION) ? [] : findings;
  }

  /** An item's field naming who reviewed it in the repository, when this person has not accepted that review. */
  private teamReview(id: string): { repositoryReviewedBy?: string } {
    const by = this.flags.get(id)?.teamBy;
    return by !== undefined ? { repositoryReviewedBy: by } : {};
  }

  /** The repository's review of this revision that this person has not accepted (shown beside the findings it would clear). */
  unacceptedReview(id: string, revision: string): Review | undefined {
    const at = id ? this.folders.locate(id) : undefined;
    const c = at?.folder.reviews.clearance(at.rel, revision, RULESET_VERSION);
    return c && !c.cleared && c.team ? { ...c.team, id } : undefined;
  }

  /** Judges a workspace file by id, reading it now (up to the cap: `text` is what was judged). Answers undefined when it cannot be read. */
  async judgeFile(id: string): Promise<{ id: string; folder: string; path: string; revision: string; text: string; truncated: boolean; findings: readonly ThreatFinding[]; allFindings: readonly ThreatFinding[]; review?: Review; repositoryReview?: Review } | undefined> {
    const check = this.folders.check(id);
    if (!check.ok) return undefined;
    let read: KnowledgeRead;
    try {
      // The one cap and revision of every knowledge-file read (`notes/knowledgeFile.ts`): what the block sends.
      read = await readKnowledgeFile(check.path);
    } catch {
      return undefined;
    }
    const { text, revision, truncated } = read;
    const allFindings = this.withName(check.id, this.scan(text, revision) as readonly ThreatFinding[]);
    const clearance = allFindings.length > 0 ? check.folder.reviews.clearance(check.rel, revision, RULESET_VERSION) : undefined;
    // Reviews on disk name the path inside their folder; callers see the workspace id. `review`: what clears it (this
    // person's record); `repositoryReview`: the team's record alone, shown as "reviewed by <name> in the repository".
    const asReview = (c: NonNullable<typeof clearance>): Review =>
      c.team ? { ...c.team, id: check.id } : { id: check.id, contentHash: revision, rulesetVersion: RULESET_VERSION, rules: c.personal?.rules ?? [], reviewedBy: c.personal?.by ?? '', reviewedAt: c.personal?.at ?? '' };
    const review = clearance?.cleared ? asReview(clearance) : undefined;
    const repositoryReview = clearance && !clearance.cleared && clearance.team ? { ...clearance.team, id: check.id } : undefined;
    return { id: check.id, folder: check.folder.name, path: check.path, revision, text, truncated, findings: review ? [] : allFindings, allFindings, ...(review ? { review } : {}), ...(repositoryReview ? { repositoryReview } : {}) };
  }

  /**
   * This person accepts the repository's review of one file revision (the team's record in `.knowledge/reviews.json`)
   * into their own record. Fails when there is no such review for the file as it is now.
   */
  async acceptRepositoryReview(id: string, revision: string): Promise<Review> {
    // The repository's record as it is on disk now (a pull may have changed it since the last load).
    await this.folders.locate(id)?.folder.reviews.load();
    const judged = await this.judgeFile(id);
    if (!judged) throw new Error(`${id} cannot be read.`);
    if (judged.revision !== revision) throw new Error(`${id} changed since it was judged; look at it again before accepting a review.`);
    const check = this.folders.check(judged.id);
    if (!check.ok) throw new Error(`${id} cannot be read.`);
    const team = check.folder.reviews.find(check.rel, revision, RULESET_VERSION);
    if (!team) throw new Error(`The repository has no review of ${id} as it is now.`);
    await check.folder.reviews.accept([team]);
    await this.refreshFlags([judged.id]);
    return { ...team, id: judged.id };
  }

  /** The repository's reviews (current rule set) this person has not accepted, per folder (the folder's name). */
  async repositoryReviews(folderName?: string): Promise<{ folder: string; reviews: Review[] }[]> {
    const folders = folderName !== undefined ? this.folders.all.filter((f) => f.name === folderName) : this.folders.all;
    // The repository's record as it is on disk now: what is listed is what will be accepted.
    await Promise.all(folders.map((f) => f.reviews.load()));
    return folders.map((f) => ({ folder: f.name, reviews: f.reviews.unaccepted(RULESET_VERSION).map((r) => (r.id.startsWith('memory:') ? r : { ...r, id: this.folders.idOf(f, r.id) })) }));
  }

  /**
   * Accepts every listed review of a folder's repository record into this person's record (the ids as
   * `repositoryReviews` answered them; each must still be in the repository's record). Answers those accepted.
   */
  async acceptRepositoryReviews(folderName: string, picked: readonly { id: string; contentHash: string }[]): Promise<Review[]> {
    const folder = this.folders.byName(folderName);
    if (!folder) throw new Error(`No workspace folder is named ${folderName}.`);
    const listed = new Map((await this.repositoryReviews(folderName))[0]!.reviews.map((r) => [`${r.id}\0${r.contentHash}`, r]));
    const chosen = picked.map((p) => listed.get(`${p.id}\0${p.contentHash}`)).filter((r): r is Review => r !== undefined);
    const onDisk = chosen.map((r) => folder.reviews.find(r.id.startsWith('memory:') ? r.id : (this.folders.locate(r.id)?.rel ?? r.id), r.contentHash, r.rulesetVersion)).filter((r): r is Review => r !== undefined);
    await folder.reviews.accept(onDisk);
    await this.refreshFlags();
    return chosen;
  }

  /** Records "reviewed — not a threat" for exactly this revision under the current rule set, in the file's folder. */
  async markReviewed(id: string, revision: string): Promise<Review> {
    if (this.folders.all.length === 0) throw new Error('Open a folder first: reviews are kept in its .knowledge/ folder.');
    const judged = await this.judgeFile(id);
    if (!judged) throw new Error(`${id} cannot be read.`);
    if (judged.revision !== revision) throw new Error(`${id} changed since it was judged; look at it again before marking it reviewed.`);
    if (judged.allFindings.length === 0) throw new Error(`${id} is not flagged.`);
    const check = this.folders.check(judged.id);
    if (!check.ok) throw new Error(`${id} cannot be read.`);
    const review = await check.folder.reviews.markReviewed({ id: check.rel, contentHash: revision, rulesetVersion: RULESET_VERSION, rules: [...new Set(judged.allFindings.map((f) => f.ruleId))] });
    await this.refreshFlags([judged.id]);
    return { ...review, id: judged.id };
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

  /**
   * What an agent process needs before it can deliver: sessions and reviews (verdicts), not the note index or a
   * judgement of every file. A hook runs on every prompt; it reads only what it sends.
   */
  async loadForAgents(): Promise<void> {
    const results = await Promise.allSettled([this.sessions.open(), ...this.folders.all.map((f) => f.reviews.load())]);
    for (const r of results) {
      if (r.status === 'rejected') this.problem({ source: 'agents', path: this.sessions.indexPath, message: `Could not load: ${(r.reason as Error)?.message ?? String(r.reason)}`, at: new Date().toISOString() });
    }
  }

  /**
   * The agent pins of every folder (each folder's `.knowledge/pins.json`), as workspace ids, read now; pins the
   * policy refuses are in `refused` (named with their folder when there are several).
   */
  async readAgentPins(): Promise<UpdateDraftPinsResult> {
    const read = await Promise.all(this.folders.all.map(async (f) => ({ f, r: await f.agentPins.read() })));
    return {
      pins: read.flatMap(({ f, r }) => r.pins.map((p) => this.folders.idOf(f, p))),
      refused: read.flatMap(({ f, r }) => r.refused.map((x) => ({ pin: this.folders.idOf(f, x.pin), reason: x.reason }))),
    };
  }

  /** The agent pins, read from every folder's `.knowledge/pins.json` now; pins the policy refuses are left out. */
  async getAgentPins(): Promise<string[]> {
    return (await this.readAgentPins()).pins;
  }

  /**
   * Adds and removes agent pins atomically, each in the `.knowledge/pins.json` of the folder that holds it (so it
   * travels with that folder's repository). Refuses secrets and outside files, as every pin.
   */
  async updateAgentPins(add: readonly string[], remove: readonly string[]): Promise<UpdateDraftPinsResult> {
    if (this.folders.all.length === 0) return { pins: [], refused: add.map((pin) => ({ pin, reason: 'no workspace folder is open' })) };
    const refused: UpdateDraftPinsResult['refused'] = [];
    const changes = new Map<KnowledgeFolder, { add: string[]; remove: string[] }>();
    const of = (f: KnowledgeFolder) => changes.get(f) ?? changes.set(f, { add: [], remove: [] }).get(f)!;
    for (const pin of add) {
      const check = this.folders.check(pin);
      if (check.ok) of(check.folder).add.push(check.rel);
      else refused.push({ pin, reason: check.reason });
    }
    for (const pin of remove) {
      const check = this.folders.check(pin);
      const at = check.ok ? check : isAbsolute(pin) ? this.folders.ofPath(pin) : this.folders.locate(pin);
      if (at) of(at.folder).remove.push(at.rel);
    }
    for (const [folder, change] of changes) {
      const result = await folder.agentPins.update(change.add, change.remove);
      refused.push(...result.refused.map((r) => ({ pin: r.pin && !isAbsolute(r.pin) ? this.folders.idOf(folder, r.pin) : r.pin, reason: r.reason })));
    }
    return { pins: await this.getAgentPins(), refused };
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
