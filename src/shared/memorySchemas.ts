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
  }),
  trust: z.object({ state: TrustStateSchema, approvedBy: z.string().optional(), approvedAt: z.string().optional() }),
  revision: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  supersededBy: z.string().optional(),
  consolidatedFrom: z.array(z.string()).optional(),
  consolidatedInto: z.string().optional(),
  expiresAt: z.string().optional(),
  wrongFlags: z.array(z.object({ reason: z.string(), by: z.string(), at: z.string() })),
  /** Judged now with the current rule set; flagged entries never reach a model. */
  flagged: z.boolean(),
  findings: z.array(MemoryFindingSchema),
  reviewed: z.boolean(),
  /** Past its expiry or older than the maximum age: out of recall, still stored. */
  aged: z.boolean(),
  /** Another revision of this entry, edited on another machine at the same time, arrived by Settings Sync: its id. */
  conflictWith: z.string().optional(),
});
export type MemoryEntryView = z.infer<typeof MemoryEntryViewSchema>;

const Title = z.string().trim().min(1, 'a title is required').max(MEMORY_TITLE_MAX, `a title has at most ${MEMORY_TITLE_MAX} characters`);
const Body = z.string().max(MEMORY_BODY_MAX, `a body has at most ${MEMORY_BODY_MAX} characters`);
const Tags = z.array(z.string().max(50)).max(20);
const Id = z.string().min(1).max(100);

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
});
export type MemoryConfig = z.infer<typeof MemoryConfigSchema>;

export const MemoryStatusSchema = z.object({
  on: z.boolean(),
  readonly: z.boolean(),
  scopes: z.array(
    z.object({
      scope: MemoryScopeSchema,
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
    expiresAt: z.string().datetime().optional(),
  })
  .strict();
export type RememberParams = z.input<typeof RememberParamsSchema>;

export const MemoryListParamsSchema = z
  .object({
    scope: MemoryScopeSchema.optional(),
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

export const ForgetScopeParamsSchema = z.object({ scope: MemoryScopeSchema, sessionKey: z.string().max(200).optional() }).strict();
export type ForgetScopeParams = z.infer<typeof ForgetScopeParamsSchema>;

export const MarkMemoryReviewedParamsSchema = z.object({ id: Id, revision: z.string().min(1).max(100) }).strict();
export type MarkMemoryReviewedParams = z.infer<typeof MarkMemoryReviewedParamsSchema>;

export const ExportParamsSchema = z.object({ scope: MemoryScopeSchema, format: z.enum(['json', 'markdown']) }).strict();
export type ExportParams = z.infer<typeof ExportParamsSchema>;
export const ImportParamsSchema = z.object({ scope: MemoryScopeSchema, format: z.enum(['json', 'markdown']), text: z.string().max(5_000_000) }).strict();
export type ImportParams = z.infer<typeof ImportParamsSchema>;
export const ImportResultSchema = z.object({ imported: z.number().int(), flagged: z.number().int(), skipped: z.array(z.string()) });
export type ImportResult = z.infer<typeof ImportResultSchema>;

/** The layered memory index for a session's block: lines (titles only) and what was cut. */
export const MemoryIndexParamsSchema = z.object({ sessionKey: z.string().max(200).optional(), budgetTokens: z.number().int().min(100).optional() }).strict();
export type MemoryIndexParams = z.infer<typeof MemoryIndexParamsSchema>;

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
