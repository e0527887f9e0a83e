/**
 * Owns the public face of agent memory: `MemoryService`, a thin facade over the modules that own each part.
 * Pure Node — no `vscode`, no language-server imports (the server's memory routes adapt it; the CLI and tests call it directly).
 */
import type { z } from 'zod';
import {
  MemoryConfigSchema,
  type ConsolidateParams,
  type ForgetPlan,
  type ImportResult,
  type MemoryConfig,
  type MemoryEntryView,
  type MemoryListParams,
  type MemoryListResult,
  type MemoryScope,
  type MemoryStatus,
  type RecallParams,
  type RememberParams,
  type UpdateMemoryParams,
} from '../../../shared/memorySchemas';
import type {
  DistillSubmitParams,
  DistillSubmitResult,
  InboxApproveEditedParams,
  InboxBulkResult,
  InboxCounts,
  InboxMergeParams,
  InboxParams,
  InboxResult,
} from '../../../shared/inboxSchemas';
import type { PersonalSyncParams, PersonalSyncResult } from '../../../shared/personalSyncSchemas';
import type { MemoryIndexEntry } from '../delivery/knowledgeBlock';
import { exportScope, importScope } from './importExport';
import { syncPersonal } from './personalSync';
import { consolidate, forget, forgetFlagged, forgetPreview, forgetScope, forgetSessions, planForget } from './lifecycle';
import type { StoredEntry } from './memoryEntry';
import { MemoryState } from './memoryState';
import { zodToMemoryError, type MemoryServiceDeps, type ProjectFolder } from './memoryScopes';
import { indexFor, list, listFlagged, read, recall } from './recall';
import { findingsOf } from './visibility';
import { approve, flagWrong, markReviewed, remember, update } from './writing';
import { inbox, inboxCounts } from './inbox';
import { acceptRepository, approveEdited, approveItems, mergeItem, rejectItems } from './inboxDecisions';
import { submitDistilled } from './proposals';

export { MemoryError, MEMORY_ERROR_CODE } from './errors';
export { SCOPES, memoryPaths, type MemoryServiceDeps, type ProjectFolder } from './memoryScopes';
export { RECALL_SCORE_THRESHOLD } from './recall';

/**
 * Agent memory. Each method delegates, with the shared MemoryState, to the module that owns it:
 * memoryState.ts (scopes, refresh and mutate; with memoryScopes.ts, entryIndexes.ts and memoryVerdicts.ts), visibility.ts (scan-on-read, aging, what a
 * model may see), writing.ts (remember, edit, trust), lifecycle.ts (supersede, caps, consolidate, forget),
 * recall.ts (list, recall, read, the block's index) and importExport.ts (export and import of a scope).
 */
export class MemoryService {
  private readonly state: MemoryState;
  /** The background load: every scope read and every entry judged (persisted verdicts first), then verdicts saved. */
  private warm: Promise<void> | null = null;
  private warmDone = false;

  constructor(deps: MemoryServiceDeps) {
    this.state = new MemoryState(deps);
  }

  // ---- configuration and status ------------------------------------------------------------------------

  async configure(config: z.input<typeof MemoryConfigSchema>): Promise<MemoryStatus> {
    this.state.config = zodToMemoryError(MemoryConfigSchema, config);
    const status = await this.state.status();
    if (this.state.config.on) void this.warmUp().catch(() => undefined); // judged in the background, never on the send path
    return status;
  }

  /**
   * Loads every scope and judges every entry (persisted verdicts first: a restart with nothing changed judges
   * nothing), yielding to the event loop as it goes so that requests keep being answered; then saves the verdicts.
   */
  warmUp(): Promise<void> {
    this.warm ??= (async () => {
      const started = Date.now();
      await this.state.refresh();
      let judged = 0;
      let slice = Date.now();
      for (const e of this.state.allOrdered()) {
        findingsOf(this.state, e);
        judged += 1;
        if (Date.now() - slice > 8) {
          await new Promise<void>((r) => setImmediate(r));
          slice = Date.now();
        }
      }
      await this.state.saveVerdicts();
      this.warmDone = true;
      this.state.deps.log?.(`Memory loaded: ${judged} entries ready in ${Date.now() - started} ms.`);
    })();
    this.warm.catch(() => (this.warm = null));
    return this.warm;
  }

  /** Saves the scan verdicts now (when something new was judged): a restart then judges nothing again. */
  flushVerdicts(): Promise<void> {
    return this.state.saveVerdicts();
  }

  /** Writes the memory files' snapshots now (else a moment after a change): the next start loads without parsing them. */
  flushSnapshots(): Promise<void> {
    return this.state.flushSnapshots();
  }

  get currentConfig(): MemoryConfig {
    return this.state.config;
  }

  status(): Promise<MemoryStatus> {
    return this.state.status();
  }

  /** A file changed on disk (a git pull, another window): read it again and judge every entry again. */
  reload(scope?: MemoryScope): Promise<MemoryStatus> {
    return this.state.reload(scope);
  }

  /**
   * The workspace's folders changed: each folder's `.knowledge/memory.jsonl` is project memory (read on the next
   * request; a removed folder's entries leave every view). Answers the status as it is now.
   */
  setFolders(folders: readonly ProjectFolder[]): Promise<MemoryStatus> {
    this.state.setFolders(folders);
    return this.state.status();
  }

  // ---- reads (recall.ts) -------------------------------------------------------------------------------

  /** People's view: every entry of the loaded scopes, flagged ones included with their findings. */
  list(params: MemoryListParams = {}): Promise<MemoryListResult> {
    return list(this.state, params);
  }

  /**
   * People's view of flagged entries only (findings included), also while memory is off: what a committed
   * attack looks like. Same params as `list`; `flagged` is always true.
   */
  listFlagged(params: MemoryListParams = {}): Promise<MemoryListResult> {
    return listFlagged(this.state, params);
  }

  /** A model's view: never flagged, aged, legacy, wrong, superseded, or another session's pending entries. */
  recall(params: RecallParams): Promise<MemoryEntryView[]> {
    return recall(this.state, params);
  }

  /** One entry; for a model (`forModel`, or a `sessionKey` given) null unless the model may see it. */
  read(id: string, opts: { sessionKey?: string; forModel?: boolean } = {}): Promise<MemoryEntryView | null> {
    return read(this.state, id, opts);
  }

  /**
   * The layered index for a session's block; null when memory is off. Titles only, never bodies. `waitMs`: how long
   * the first call may wait for the background load (a send path passes a short budget); when it is not ready by
   * then, the answer goes without the memory index (null: left out, never indexed as empty), and the log says so.
   */
  async indexFor(sessionKey: string | undefined, waitMs = Number.POSITIVE_INFINITY): Promise<MemoryIndexEntry[] | null> {
    if (this.state.config.on && !this.warmDone) {
      const warm = this.warmUp();
      if (Number.isFinite(waitMs)) {
        let timer: NodeJS.Timeout | undefined;
        const ready = await Promise.race([warm.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), waitMs)))]);
        clearTimeout(timer);
        if (!ready) {
          this.state.deps.log?.(`Memory is still loading (judging entries in the background); this block goes without the memory index. It is added as soon as memory is ready.`);
          return null;
        }
      } else await warm;
    }
    const out = await indexFor(this.state, sessionKey);
    void this.state.saveVerdicts();
    return out;
  }

  // ---- writing and trust (writing.ts) ------------------------------------------------------------------

  remember(params: RememberParams): Promise<MemoryEntryView> {
    return remember(this.state, params);
  }

  /** A person edits an entry: new revision, judged again (an earlier review no longer covers it). */
  update(params: UpdateMemoryParams): Promise<MemoryEntryView> {
    return update(this.state, params);
  }

  /**
   * A person approves: the entry may now reach every session (a legacy one, too). Clears "wrong" flags. A pending
   * proposal goes through the inbox's approval (its target superseded; refused while flagged).
   */
  approve(id: string, by?: string): Promise<MemoryEntryView> {
    return approve(this.state, id, by);
  }

  /** A person says "this is wrong": the entry leaves what models see until someone approves it again. */
  flagWrong(id: string, reason: string, by?: string): Promise<MemoryEntryView> {
    return flagWrong(this.state, id, reason, by);
  }

  /** "Reviewed — not a threat" for exactly this revision under the current rule set. */
  markReviewed(id: string, revision: string): Promise<MemoryEntryView> {
    return markReviewed(this.state, id, revision);
  }

  // ---- distillation and the decision inbox (proposals.ts, inbox.ts, inboxDecisions.ts) -----------------

  /** Stores a distillation's proposals as pending inbox entries (classified new, update or conflict); answers them and the skips. */
  submitDistilled(params: DistillSubmitParams): Promise<DistillSubmitResult> {
    return submitDistilled(this.state, params);
  }

  /** Proposals and pending agent entries, grouped by session, with counts. Empty while memory is off. */
  inbox(params: InboxParams = {}): Promise<InboxResult> {
    return inbox(this.state, params);
  }

  inboxCounts(): Promise<InboxCounts> {
    return inboxCounts(this.state);
  }

  /** Bulk approve; flagged items are refused until reviewed (see inboxDecisions.ts). */
  approveItems(ids: readonly string[], by?: string): Promise<InboxBulkResult> {
    return approveItems(this.state, ids, by);
  }

  /** "Accept all from the repository": one folder's (by name; every folder without one) repository items; flagged ones refused. */
  acceptRepository(folder?: string): Promise<InboxBulkResult> {
    return acceptRepository(this.state, folder);
  }

  approveEdited(params: InboxApproveEditedParams, by?: string): Promise<MemoryEntryView> {
    return approveEdited(this.state, params, by);
  }

  /** Bulk reject; the reason is kept on each item. */
  rejectItems(ids: readonly string[], reason?: string, by?: string): Promise<InboxBulkResult> {
    return rejectItems(this.state, ids, reason, by);
  }

  mergeItem(params: InboxMergeParams): Promise<MemoryEntryView> {
    return mergeItem(this.state, params);
  }

  // ---- lifecycle (lifecycle.ts) ------------------------------------------------------------------------

  /** Merges a chosen set of one scope into one new entry; the sources stay, marked consolidated. */
  consolidate(params: ConsolidateParams, by: { source?: 'human' | 'agent'; identity?: string; sessionKey?: string } = {}): Promise<MemoryEntryView> {
    return consolidate(this.state, params, by);
  }

  /** What forgetting `id` deletes and restores (its provenance cascade). */
  static planForget(entries: readonly StoredEntry[], id: string): ForgetPlan {
    return planForget(entries, id);
  }

  forgetPreview(id: string): Promise<ForgetPlan> {
    return forgetPreview(this.state, id);
  }

  /** Forgets `id` and what follows from it (see planForget). Final; recorded in the audit log (ids, counts). */
  forget(id: string): Promise<ForgetPlan> {
    return forget(this.state, id);
  }

  /**
   * Forgets one flagged entry — also while memory is off (never while read-only): only that entry; what it
   * superseded or absorbed comes back. Refuses an entry that is not flagged. Recorded in the audit log.
   */
  forgetFlagged(id: string): Promise<ForgetPlan> {
    return forgetFlagged(this.state, id);
  }

  /** "Forget everything" in a scope (session scope: one session's entries when `sessionKey` is given; project: one folder's when `folder` is, else every folder's). */
  forgetScope(scope: MemoryScope, sessionKey?: string, folder?: string): Promise<{ deleted: number }> {
    return forgetScope(this.state, scope, sessionKey, folder);
  }

  /** Retention: the session-scope entries of these pruned sessions go (also while memory is off). Answers how many. */
  forgetSessions(keys: ReadonlySet<string>): Promise<number> {
    return forgetSessions(this.state, keys);
  }

  // ---- export and import (importExport.ts) -------------------------------------------------------------

  /** Project memory: the folder named `folder` (default the first). */
  exportScope(scope: MemoryScope, format: 'json' | 'markdown', folder?: string): Promise<string> {
    return exportScope(this.state, scope, format, folder);
  }

  /** Imports JSON as exported, or Markdown as agents read it: each entry pending, scanned, provenance `import`. */
  importScope(scope: MemoryScope, format: 'json' | 'markdown', text: string, opts: { identity?: string; folder?: string } = {}): Promise<ImportResult> {
    return importScope(this.state, scope, format, text, opts);
  }

  /** Settings Sync: merges approved personal entries that arrived, answers what to send (see personalSync.ts). */
  syncPersonal(params: PersonalSyncParams): Promise<PersonalSyncResult> {
    return syncPersonal(this.state, params);
  }
}
