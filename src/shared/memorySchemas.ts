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
/** The fields' rules as every memory request states them (the inbox and sync schemas use them too). */
export { Title as MemoryTitle, Body as MemoryBody, Tags as MemoryTags, Id as MemoryEntryId };
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
