/**
 * Agent memory (shipped dark): the shapes that cross the extension ↔ server boundary. Both sides import
 * these; the server validates every param with them. Present in a process only when
 * SESSION_KNOWLEDGE_MEMORY_ENABLE is set — otherwise the server registers none of the memory requests.
 */
import { z } from 'zod';

export const MemoryScopeSchema = z.enum(['session', 'project', 'personal']);
export type MemoryScope = z.infer<typeof MemoryScopeSchema>;

export const MemoryTypeSchema = z.enum(['fact', 'preference', 'lesson', 'decision', 'reference']);
export type MemoryType = z.infer<typeof MemoryTypeSchema>;

export const TrustStateSchema = z.enum(['pending', 'approved', 'legacy']);
export type TrustState = z.infer<typeof TrustStateSchema>;

export const SourceKindSchema = z.enum(['human', 'agent', 'import', 'legacy']);

export const MEMORY_TITLE_MAX = 80;
export const MEMORY_BODY_MAX = 2000;

/** A threat finding as people see it: rule, category and the matched span in the entry's text. */
export const MemoryFindingSchema = z.object({
  ruleId: z.string(),
  category: z.string(),
  message: z.string(),
  /** Which field matched, and offsets into it. */
  field: z.enum(['title', 'body', 'tags']),
  start: z.number().int(),
  end: z.number().int(),
});
export type MemoryFinding = z.infer<typeof MemoryFindingSchema>;

/**
 * Where a distilled entry came from: the session whose conversation was read, the turn (1-based, as numbered in
 * the distillation prompt) the rationale quotes, and the model that proposed it. Kept on the entry's provenance
 * once approved (`provenance.distilledFrom`) and on the proposal while it waits.
 */
export const DistilledFromSchema = z.object({ sessionKey: z.string().max(200), turn: z.number().int().min(1), model: z.string().max(200) });
export type DistilledFrom = z.infer<typeof DistilledFromSchema>;

/**
 * What a proposal proposes. `new`: nothing stored says it. `update`: it restates the entry `target` (same title,
 * or near-duplicate text — the supersede machinery); approving it supersedes the target. `conflict`: it
 * contradicts the approved, active decision `target`; approving it supersedes that decision.
 */
export const ProposalKindSchema = z.enum(['new', 'update', 'conflict']);
export type ProposalKind = z.infer<typeof ProposalKindSchema>;

/**
 * The proposal record of a pending entry that distillation wrote. Present only until a person approves it (the
 * approved entry keeps `provenance.distilledFrom`). A proposal reaches no model — not even its own session's —
 * until it is approved; a rejected one never does.
 */
export const ProposalViewSchema = z.object({
  kind: ProposalKindSchema,
  /** update: the entry it restates; conflict: the decision it contradicts. Same scope as the proposal. */
  target: z.string().optional(),
  /** The target's revision when the proposal was made (the inbox says when the target changed since). */
  targetRevision: z.string().optional(),
  /** Why the model proposes it, quoting the turn it came from. */
  rationale: z.string(),
  distilledFrom: DistilledFromSchema,
});
export type ProposalView = z.infer<typeof ProposalViewSchema>;

/** A person's "no" to an inbox item (a proposal or a pending agent entry). The reason is kept. */
export const RejectionSchema = z.object({ reason: z.string().optional(), by: z.string(), at: z.string() });
export type Rejection = z.infer<typeof RejectionSchema>;

/** One entry as the extension, the panel and the API see it. */
export const MemoryEntryViewSchema = z.object({
  id: z.string(),
  scope: MemoryScopeSchema,
  type: MemoryTypeSchema,
  /** Decisions only. */
  status: z.enum(['active', 'superseded', 'archived']).optional(),
  title: z.string(),
  body: z.string(),
  tags: z.array(z.string()),
  importance: z.enum(['low', 'medium', 'high']),
  confidence: z.number().min(0).max(1),
  provenance: z.object({
    sourceKind: SourceKindSchema,
    identity: z.string(),
    sessionKey: z.string().optional(),
    at: z.string(),
    /** Set on an entry that distillation proposed (kept after approval). */
    distilledFrom: DistilledFromSchema.optional(),
  }),
  trust: z.object({ state: TrustStateSchema, approvedBy: z.string().optional(), approvedAt: z.string().optional() }),
  revision: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  supersededBy: z.string().optional(),
  /** The session whose approved proposal superseded this entry (set when an update or a conflict is approved). */
  supersededInSession: z.string().optional(),
  consolidatedFrom: z.array(z.string()).optional(),
  consolidatedInto: z.string().optional(),
  expiresAt: z.string().optional(),
  /** Pending proposals only: what distillation proposes (see ProposalViewSchema). */
  proposal: ProposalViewSchema.optional(),
  /** Set when a person rejected this inbox item: stored for the record, never reaches a model, out of the inbox. */
  rejected: RejectionSchema.optional(),
  wrongFlags: z.array(z.object({ reason: z.string(), by: z.string(), at: z.string() })),
  /** Judged now with the current rule set; flagged entries never reach a model. */
  flagged: z.boolean(),
  findings: z.array(MemoryFindingSchema),
  reviewed: z.boolean(),
  /** Past its expiry or older than the maximum age: out of recall, still stored. */
  aged: z.boolean(),
  /** Project memory of a multi-root workspace: the folder whose `.knowledge/memory.jsonl` holds it. */
  folder: z.string().optional(),
  /** Another revision of this entry, edited on another machine at the same time, arrived by Settings Sync: its id. */
  conflictWith: z.string().optional(),
  /**
   * Project memory whose line says approved while this person never approved (or accepted) this revision here: the
   * team's claim ("approved by <approvedBy> in the repository"). It reaches no model until accepted in the inbox.
   */
  repositoryClaim: z.object({ approvedBy: z.string(), approvedAt: z.string().optional() }).optional(),
});
export type MemoryEntryView = z.infer<typeof MemoryEntryViewSchema>;

const Title = z.string().trim().min(1, 'a title is required').max(MEMORY_TITLE_MAX, `a title has at most ${MEMORY_TITLE_MAX} characters`);
const Body = z.string().max(MEMORY_BODY_MAX, `a body has at most ${MEMORY_BODY_MAX} characters`);
const Tags = z.array(z.string().max(50)).max(20);
const Id = z.string().min(1).max(100);
/** A workspace folder, by its name (project memory only). */
export const FolderName = z.string().min(1).max(200);

/** Settings the extension owns and passes to the server (and again whenever they change). */
export const MemoryConfigSchema = z.object({
  /** The person's switch (Turn Agent Memory On / Off, the panel's switch), off by default. */
  on: z.boolean(),
  readonly: z.boolean().default(false),
  caps: z.object({ session: z.number().int().min(1), project: z.number().int().min(1), personal: z.number().int().min(1) }).default({ session: 200, project: 1000, personal: 1000 }),
  /** Entries older than this leave recall (0: never). */
  maxAgeDays: z.number().int().min(0).default(0),
  /** Similarity over which a new entry supersedes an active one of the same scope (0–1). */
  supersedeThreshold: z.number().min(0).max(1).default(0.85),
  /** Tokens the memory index may use inside the block. */
  indexBudgetTokens: z.number().int().min(100).default(2000),
  /** Distil a session into inbox proposals whenever `@knowledge` compacts it (the extension acts on it; off by default). */
  distillOnCompaction: z.boolean().default(false),
});
export type MemoryConfig = z.infer<typeof MemoryConfigSchema>;

export const MemoryStatusSchema = z.object({
  on: z.boolean(),
  readonly: z.boolean(),
  scopes: z.array(
    z.object({
      scope: MemoryScopeSchema,
      /** Project memory of a multi-root workspace: one row per folder, named here. */
      folder: z.string().optional(),
      count: z.number().int(),
      cap: z.number().int(),
      /** False when the scope failed to load: it is left out, never indexed as empty. */
      loaded: z.boolean(),
      error: z.string().optional(),
      path: z.string().optional(),
    }),
  ),
});
export type MemoryStatus = z.infer<typeof MemoryStatusSchema>;

export const RememberParamsSchema = z
  .object({
    scope: MemoryScopeSchema,
    type: MemoryTypeSchema,
    title: Title,
    body: Body.default(''),
    tags: Tags.default([]),
    importance: z.enum(['low', 'medium', 'high']).default('medium'),
    confidence: z.number().min(0).max(1).default(1),
    source: z.enum(['human', 'agent']).default('agent'),
    identity: z.string().max(200).optional(),
    /** Required for scope 'session'; for agent writes, the session that wrote it. */
    sessionKey: z.string().max(200).optional(),
    /** Project memory of a multi-root workspace: the folder (by name) whose memory.jsonl stores it; default the first. */
    folder: FolderName.optional(),
    expiresAt: z.string().datetime().optional(),
  })
  .strict();
export type RememberParams = z.input<typeof RememberParamsSchema>;

export const MemoryListParamsSchema = z
  .object({
    scope: MemoryScopeSchema.optional(),
    /** Project entries of this folder only (by name). */
    folder: FolderName.optional(),
    type: MemoryTypeSchema.optional(),
    trust: TrustStateSchema.optional(),
    flagged: z.boolean().optional(),
    aged: z.boolean().optional(),
    /** fuse.js search over title, body and tags. */
    query: z.string().max(500).optional(),
    sessionKey: z.string().max(200).optional(),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(500).default(100),
  })
  .strict();
export type MemoryListParams = z.input<typeof MemoryListParamsSchema>;
export const MemoryListResultSchema = z.object({ entries: z.array(MemoryEntryViewSchema), total: z.number().int() });
export type MemoryListResult = z.infer<typeof MemoryListResultSchema>;

/** What a model may see: unflagged, unaged, trusted for this session (approved, or this session's own pending). */
export const RecallParamsSchema = z
  .object({ query: z.string().max(500), sessionKey: z.string().max(200).optional(), limit: z.number().int().min(1).max(50).default(8), scope: MemoryScopeSchema.optional(), type: MemoryTypeSchema.optional() })
  .strict();
export type RecallParams = z.input<typeof RecallParamsSchema>;

export const MemoryIdParamsSchema = z.object({ id: Id, sessionKey: z.string().max(200).optional() }).strict();
export type MemoryIdParams = z.infer<typeof MemoryIdParamsSchema>;
/** Reading one entry. With `forModel` (or a `sessionKey`): null when a model may not see it. */
export const MemoryReadParamsSchema = MemoryIdParamsSchema.extend({ forModel: z.boolean().optional() }).strict();

export const UpdateMemoryParamsSchema = z
  .object({ id: Id, title: Title.optional(), body: Body.optional(), tags: Tags.optional(), type: MemoryTypeSchema.optional(), importance: z.enum(['low', 'medium', 'high']).optional() })
  .strict();
export type UpdateMemoryParams = z.infer<typeof UpdateMemoryParamsSchema>;

export const FlagWrongParamsSchema = z.object({ id: Id, reason: z.string().trim().min(1).max(500) }).strict();
export type FlagWrongParams = z.infer<typeof FlagWrongParamsSchema>;

export const ConsolidateParamsSchema = z.object({ ids: z.array(Id).min(2).max(100), title: Title, body: Body, type: MemoryTypeSchema.optional() }).strict();
export type ConsolidateParams = z.infer<typeof ConsolidateParamsSchema>;

/** What forgetting `id` would do: the cascade follows provenance. */
export const ForgetPlanSchema = z.object({ deleted: z.array(z.string()), restored: z.array(z.string()) });
export type ForgetPlan = z.infer<typeof ForgetPlanSchema>;

/** Project memory: `folder` forgets that folder's only; without it, every folder's. */
export const ForgetScopeParamsSchema = z.object({ scope: MemoryScopeSchema, sessionKey: z.string().max(200).optional(), folder: FolderName.optional() }).strict();
export type ForgetScopeParams = z.infer<typeof ForgetScopeParamsSchema>;

export const MarkMemoryReviewedParamsSchema = z.object({ id: Id, revision: z.string().min(1).max(100) }).strict();
export type MarkMemoryReviewedParams = z.infer<typeof MarkMemoryReviewedParamsSchema>;

/** Project memory: `folder` names the folder (default the first). */
export const ExportParamsSchema = z.object({ scope: MemoryScopeSchema, format: z.enum(['json', 'markdown']), folder: FolderName.optional() }).strict();
export type ExportParams = z.infer<typeof ExportParamsSchema>;
export const ImportParamsSchema = z.object({ scope: MemoryScopeSchema, format: z.enum(['json', 'markdown']), text: z.string().max(5_000_000), folder: FolderName.optional() }).strict();
export type ImportParams = z.infer<typeof ImportParamsSchema>;
export const ImportResultSchema = z.object({ imported: z.number().int(), flagged: z.number().int(), skipped: z.array(z.string()) });
export type ImportResult = z.infer<typeof ImportResultSchema>;

/** The layered memory index for a session's block: lines (titles only) and what was cut. */
export const MemoryIndexParamsSchema = z.object({ sessionKey: z.string().max(200).optional(), budgetTokens: z.number().int().min(100).optional() }).strict();
export type MemoryIndexParams = z.infer<typeof MemoryIndexParamsSchema>;

// ---- distillation and the decision inbox ---------------------------------------------------------------

/** At most this many proposals are taken from one distillation answer. */
export const DISTILL_MAX_PROPOSALS = 20;
export const DISTILL_RATIONALE_MAX = 500;

const Importance = z.enum(['low', 'medium', 'high']);

/**
 * One proposal as the model must answer it (the extension validates the model's JSON with this; the server
 * validates it again). Unknown keys are dropped. `turn` is the 1-based number of the turn in the prompt that
 * `rationale` quotes; `contradicts` is the id of an existing decision (from the list in the prompt) that this
 * proposal reverses, when it reverses one.
 */
export const DistilledProposalSchema = z.object({
  type: MemoryTypeSchema,
  title: Title,
  body: Body.default(''),
  tags: Tags.default([]),
  importance: Importance.default('medium'),
  rationale: z.string().trim().min(1, 'a rationale quoting the turn is required').max(DISTILL_RATIONALE_MAX, `a rationale has at most ${DISTILL_RATIONALE_MAX} characters`),
  turn: z.number().int().min(1),
  contradicts: Id.optional(),
});
export type DistilledProposal = z.output<typeof DistilledProposalSchema>;

/** The model's whole answer: a JSON array of proposals, or `{ "proposals": [...] }`. An empty array is a valid answer. */
export const DistillAnswerSchema = z.union([
  z.array(DistilledProposalSchema).max(DISTILL_MAX_PROPOSALS),
  z.object({ proposals: z.array(DistilledProposalSchema).max(DISTILL_MAX_PROPOSALS) }).transform((a) => a.proposals),
]);

export const DistillSubmitParamsSchema = z
  .object({
    /** The session whose conversation was distilled. */
    sessionKey: z.string().min(1).max(200),
    /** The model that answered (its id, or vendor/family). */
    model: z.string().min(1).max(200),
    /** How many turns the prompt numbered: a proposal citing a turn past this is skipped (`bad-turn`). */
    turns: z.number().int().min(1).max(1_000_000),
    proposals: z.array(DistilledProposalSchema).max(DISTILL_MAX_PROPOSALS),
    /** Where `new` proposals go. Default: personal for preferences, project for the rest. Updates and conflicts go to their target's scope. */
    scope: z.enum(['project', 'personal']).optional(),
    /** Where `new` project proposals go in a multi-root workspace (by folder name); default the first folder. */
    folder: FolderName.optional(),
  })
  .strict();
export type DistillSubmitParams = z.input<typeof DistillSubmitParamsSchema>;

/** A word-level change of one field, for the inbox's diff of an update or a conflict. */
export const DiffChunkSchema = z.object({ op: z.enum(['equal', 'insert', 'delete']), text: z.string() });
export type DiffChunk = z.infer<typeof DiffChunkSchema>;

/** One field that differs between the target (before) and the proposal (after). */
export const FieldDiffSchema = z.object({
  field: z.enum(['title', 'body', 'tags', 'type', 'importance']),
  before: z.string(),
  after: z.string(),
  /** Word-level chunks from `before` to `after` (title and body; absent when the texts are too long to diff). */
  chunks: z.array(DiffChunkSchema).optional(),
});
export type FieldDiff = z.infer<typeof FieldDiffSchema>;

/**
 * One item of the decision inbox: a pending proposal (origin `proposal`), or a pending entry an agent wrote
 * (`agent`) or an import brought (`import`). `entry.flagged` and `entry.findings` say whether it reads as an
 * instruction and which rule matched: such an item is never approved silently (see MemoryInboxApproveRequest).
 */
export const InboxItemSchema = z.object({
  origin: z.enum(['proposal', 'agent', 'import', 'repository']),
  entry: MemoryEntryViewSchema,
  /** update or conflict: the target as it is now; null when it is gone (approving then adds the proposal as new). */
  target: MemoryEntryViewSchema.nullable().optional(),
  /** update or conflict: the fields that differ, target → proposal. */
  diff: z.array(FieldDiffSchema).optional(),
  /** The target changed since the proposal was made (the diff is against it as it is now). */
  targetChanged: z.boolean().optional(),
});
export type InboxItem = z.infer<typeof InboxItemSchema>;

export const InboxCountsSchema = z.object({
  /** Every item waiting: proposals + agentEntries. What the badges show. */
  total: z.number().int(),
  proposals: z.number().int(),
  /** Pending entries written by agents or brought by an import. */
  agentEntries: z.number().int(),
  flagged: z.number().int(),
  /** Project entries approved in the repository's file, waiting for this person to accept them (part of agentEntries); absent when none. */
  fromRepository: z.number().int().optional(),
  updates: z.number().int(),
  conflicts: z.number().int(),
});
export type InboxCounts = z.infer<typeof InboxCountsSchema>;

/** The items of one session (null: items that name no session — imports, API writes without one). */
export const InboxGroupSchema = z.object({
  sessionKey: z.string().nullable(),
  counts: InboxCountsSchema,
  items: z.array(InboxItemSchema),
  /** The items from one folder's repository (approved in its committed memory.jsonl, not by this person): accept them together. */
  repository: z.object({ folder: z.string() }).optional(),
  /**
   * The id of every item of the group in its order, including those beyond this page: what "select the group" selects,
   * so that a bulk action covers the whole group and not only the items a page shows.
   */
  ids: z.array(z.string()),
});
export type InboxGroup = z.infer<typeof InboxGroupSchema>;

export const InboxParamsSchema = z
  .object({
    /** Only this session's items. */
    sessionKey: z.string().max(200).optional(),
    /** Rejected items too (the record of what was said no to); off by default. */
    includeRejected: z.boolean().default(false),
    /** Paging over items in group order (newest group first; within a group by turn, then age). */
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(1000).default(200),
  })
  .strict();
export type InboxParams = z.input<typeof InboxParamsSchema>;

export const InboxResultSchema = z.object({
  /** The groups of this page, newest first. Each group's counts cover the whole group, not just this page. */
  groups: z.array(InboxGroupSchema),
  /** The whole inbox (rejected items never counted). */
  counts: InboxCountsSchema,
  /** Items matching the params before paging. */
  total: z.number().int(),
  /**
   * A fingerprint of the whole listing these params match (every item's group, id and revision, in order, and
   * what its card shows that changes without a new revision: flagged, reviewed, its target's revision). Two pages
   * with the same stamp come from the same listing, so the second continues the first exactly; a different stamp
   * means an item was decided, added or changed in between, and the pages on show are read again.
   */
  stamp: z.string(),
});
export type InboxResult = z.infer<typeof InboxResultSchema>;

/** What distillation stored, and what it left out and why. */
export const DistillSkipSchema = z.object({
  /** Index of the proposal in the submitted array. */
  index: z.number().int(),
  title: z.string(),
  reason: z.enum(['already-proposed', 'rejected-before', 'duplicate-in-answer', 'secret', 'bad-turn']),
  message: z.string(),
  /** The pending or rejected item it restates (already-proposed, rejected-before). */
  id: z.string().optional(),
});
export type DistillSkip = z.infer<typeof DistillSkipSchema>;
export const DistillSubmitResultSchema = z.object({ items: z.array(InboxItemSchema), skipped: z.array(DistillSkipSchema) });
export type DistillSubmitResult = z.infer<typeof DistillSubmitResultSchema>;

export const InboxIdsParamsSchema = z.object({ ids: z.array(Id).min(1).max(1000) }).strict();
export type InboxIdsParams = z.infer<typeof InboxIdsParamsSchema>;
export const InboxAcceptRepositoryParamsSchema = z.object({ folder: FolderName.optional() }).strict();
export type InboxAcceptRepositoryParams = z.infer<typeof InboxAcceptRepositoryParamsSchema>;
export const InboxRejectParamsSchema = z.object({ ids: z.array(Id).min(1).max(1000), reason: z.string().trim().max(500).optional() }).strict();
export type InboxRejectParams = z.input<typeof InboxRejectParamsSchema>;

/** A bulk action's outcome per id: what was done, and what was refused with the reason (`data.reason` of a MemoryError). */
export const InboxBulkResultSchema = z.object({
  done: z.array(MemoryEntryViewSchema),
  refused: z.array(z.object({ id: z.string(), reason: z.string(), message: z.string() })),
});
export type InboxBulkResult = z.infer<typeof InboxBulkResultSchema>;

export const InboxApproveEditedParamsSchema = z
  .object({
    id: Id,
    edits: z.object({ title: Title.optional(), body: Body.optional(), tags: Tags.optional(), type: MemoryTypeSchema.optional(), importance: Importance.optional() }).strict(),
    /** Approve a proposal as a new entry, leaving its target as it is (an update or a conflict the person does not see as one). */
    asNew: z.boolean().optional(),
  })
  .strict();
export type InboxApproveEditedParams = z.infer<typeof InboxApproveEditedParamsSchema>;

export const InboxMergeParamsSchema = z
  .object({
    /** The inbox item to merge. */
    id: Id,
    /** The existing entry it merges into (active, not itself in the inbox). */
    intoId: Id,
    /** The merged text; default: the target's title, its body then the item's body, tags joined. */
    title: Title.optional(),
    body: Body.optional(),
  })
  .strict();
export type InboxMergeParams = z.infer<typeof InboxMergeParamsSchema>;
// ---- personal memory through Settings Sync --------------------------------------------------------------

/**
 * Largest synced state (its JSON, in UTF-16 code units ≈ bytes for ASCII) the extension writes to, or merges from,
 * Settings Sync: 128 KiB — about 250 entries of 500 characters. Past it nothing more is synced (what was synced
 * stays as it was) and the person is told; an arriving state past it is refused, not merged.
 */
export const PERSONAL_SYNC_MAX_BYTES = 128 * 1024;

/** One approved personal entry as Settings Sync carries it: content, dates, who approved it. */
export const SyncedEntrySchema = z
  .object({
    id: Id,
    type: MemoryTypeSchema,
    title: Title,
    body: Body,
    tags: Tags,
    importance: z.enum(['low', 'medium', 'high']).default('medium'),
    confidence: z.number().min(0).max(1).default(1),
    /** As the sender computed it; recomputed from the content on arrival (never trusted). */
    revision: z.string().max(100),
    /**
     * The revisions this entry had before, on the machine that sent it (oldest first, at most
     * PERSONAL_SYNC_HISTORY): an arrival whose history holds ours was edited on top of ours.
     */
    history: z.array(z.string().max(100)).max(50).default([]),
    createdAt: z.string().max(40),
    updatedAt: z.string().max(40),
    approvedBy: z.string().max(200).optional(),
    approvedAt: z.string().max(40).optional(),
    expiresAt: z.string().max(40).optional(),
    /** Set on both revisions of an entry edited on two machines at once (the id of the other one). */
    conflictWith: Id.optional(),
  })
  .strip();
export type SyncedEntry = z.infer<typeof SyncedEntrySchema>;

/** The value of the synced global-state key. */
export const SyncedStateSchema = z.object({ version: z.literal(1), entries: z.array(SyncedEntrySchema).max(5000) }).strip();
export type SyncedState = z.infer<typeof SyncedStateSchema>;

/** Revisions of one entry remembered per machine and sent with it. */
export const PERSONAL_SYNC_HISTORY = 20;

/**
 * One sync: what arrived (absent when nothing did), and `known` — per entry id, the revisions this machine has had
 * of it through sync, oldest first (kept by the extension, never synced). An id known but no longer in memory was
 * forgotten here and is not brought back.
 */
export const PersonalSyncParamsSchema = z
  .object({
    incoming: z.array(SyncedEntrySchema).max(5000).optional(),
    known: z.record(Id, z.array(z.string().max(100)).max(50)).default({}),
  })
  .strict();
export type PersonalSyncParams = z.input<typeof PersonalSyncParamsSchema>;

/** What a sync did, and what to write to Settings Sync now (the approved, unflagged personal entries). */
export interface PersonalSyncResult {
  outgoing: SyncedEntry[];
  /** `known` after this sync: keep it for the next one. */
  known: Record<string, string[]>;
  added: string[];
  updated: string[];
  /** Edited on two machines: both revisions kept, each naming the other. */
  conflicts: { id: string; copy: string }[];
  /** Arrived, stored and judged: withheld from every model, shown in the panel's Flagged section. */
  flagged: string[];
  /** Not stored, each with the reason (a secret, the scope full, memory off or read-only). */
  skipped: string[];
}
