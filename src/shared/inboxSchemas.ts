/**
 * Distillation and the decision inbox on the wire: the proposals a model answers, what is submitted and stored,
 * the inbox's items, groups, counts and pages, and the inbox's decisions (approve, edit then approve, reject, merge).
 */
import { z } from 'zod';
import { FolderName, MemoryBody as Body, MemoryEntryId as Id, MemoryEntryViewSchema, MemoryTags as Tags, MemoryTitle as Title, MemoryTypeSchema } from './memorySchemas';

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
  /**
   * The items named by where they came from (memorySource.ts): proposals are `distillation`, the rest of agentEntries
   * (repository items apart) `agent`, `import` or `sync`. A source with no item is left out; absent from older servers.
   */
  bySource: z.object({ distillation: z.number().int(), agent: z.number().int(), import: z.number().int(), sync: z.number().int() }).partial().optional(),
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
