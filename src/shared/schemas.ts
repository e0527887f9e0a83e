/**
 * zod schemas shared by the extension and the language server. Every message that crosses a process or
 * trust boundary is validated against one of these; types are derived with `z.infer`, never written twice.
 */
import { z } from 'zod';

/** A workspace folder as the server knows it: the name its ids start with (several folders), and its absolute path. */
/** The rule an item is listed under when the scanner could not judge it (its model file missing or damaged): withheld, like a finding, until it is judged. */
export const UNJUDGED_RULE = 'scanner.unjudged';

export const WorkspaceFolderSchema = z.object({
  name: z.string().min(1).max(200),
  path: z.string().min(1),
});
export type WorkspaceFolderRoot = z.infer<typeof WorkspaceFolderSchema>;

/** Where the server keeps things. Sent by the extension in `initializationOptions`; the server never guesses. */
export const InitializationOptionsSchema = z.object({
  /**
   * Absolute path of the workspace's first folder (or null: no folder open). It names the sessions store and holds
   * project memory; with `workspaceFolders` absent it is the only folder.
   */
  workspaceFolder: z.string().min(1).nullable(),
  /**
   * Every folder of the workspace, in VS Code's order (the first is `workspaceFolder`), with VS Code's name for
   * it: each one's `.knowledge/` is indexed, watched and scanned. Later changes arrive as the standard
   * `workspace/didChangeWorkspaceFolders`.
   */
  workspaceFolders: z.array(WorkspaceFolderSchema).max(500).optional(),
  /** Absolute path of the extension's global storage: personal data and session metadata. */
  globalStoragePath: z.string().min(1),
  /** Whether agent memory exists in this process (`SESSION_KNOWLEDGE_MEMORY_ENABLE`). */
  memoryEnabled: z.boolean().default(false),
});
export type InitializationOptions = z.infer<typeof InitializationOptionsSchema>;

export const KnowledgeKindSchema = z.enum(['note', 'plan']);
export type KnowledgeKind = z.infer<typeof KnowledgeKindSchema>;

/** A note or plan file as the index knows it. */
export const KnowledgeItemSchema = z.object({
  /** Workspace-relative path with forward slashes, e.g. `.knowledge/notes/setup.md`. */
  id: z.string(),
  kind: KnowledgeKindSchema,
  /** First Markdown heading, else the file name without `.md`. */
  title: z.string(),
  /** sha256 (hex) of the file's bytes: changes exactly when the content does. */
  revision: z.string(),
  /** Size in bytes. */
  size: z.number().int().nonnegative(),
  /** Absolute path on disk. */
  path: z.string(),
  /** Rule ids its text trips now (empty: clean or reviewed). Flagged items are withheld from the model. */
  flaggedRules: z.array(z.string()).default([]),
  /** Flagged, and the repository's record (`.knowledge/reviews.json`) has a review of it this person has not accepted: by whom. */
  repositoryReviewedBy: z.string().optional(),
  /** The name of the workspace folder that holds it; present only when the workspace has more than one folder. */
  folder: z.string().optional(),
});
export type KnowledgeItem = z.infer<typeof KnowledgeItemSchema>;

/** Something that went wrong loading a source; shown to the person with the path. Never fatal. */
export const StoreProblemSchema = z.object({
  source: z.string(),
  path: z.string(),
  message: z.string(),
  /** Where a malformed file was moved to, when it was set aside. */
  setAsidePath: z.string().optional(),
  at: z.string(),
});
export type StoreProblem = z.infer<typeof StoreProblemSchema>;

export const StoreHealthSchema = z.object({
  source: z.string(),
  path: z.string(),
  state: z.enum(['ok', 'missing', 'set-aside', 'newer-version']),
  schemaVersion: z.number().int().nullable(),
});
export type StoreHealth = z.infer<typeof StoreHealthSchema>;

export const StatsSchema = z.object({
  workspaceFolder: z.string().nullable(),
  /** Each folder's counts, when the workspace has more than one. */
  folders: z.array(z.object({ name: z.string(), path: z.string(), notes: z.number().int(), plans: z.number().int() })).optional(),
  notes: z.number().int(),
  plans: z.number().int(),
  sessions: z.number().int(),
  draftPins: z.number().int(),
  stores: z.array(StoreHealthSchema),
  problems: z.array(StoreProblemSchema),
});
export type Stats = z.infer<typeof StatsSchema>;

// ---- request params -------------------------------------------------------------------------------

export const ListItemsParamsSchema = z.object({ kind: KnowledgeKindSchema.optional() }).strict();
export type ListItemsParams = z.infer<typeof ListItemsParamsSchema>;

export const CreateItemParamsSchema = z
  .object({
    kind: KnowledgeKindSchema,
    title: z.string().trim().min(1, 'a title is required').max(200, 'a title has at most 200 characters'),
    /** The workspace folder (its name, as `knowledge/workspace/folders` lists it) to create it in; default the first. */
    folder: WorkspaceFolderSchema.shape.name.optional(),
  })
  .strict();
export type CreateItemParams = z.infer<typeof CreateItemParamsSchema>;

/** Longest pin id accepted (a workspace-relative path, or an absolute path inside the workspace). */
export const PIN_ID_MAX = 1024;
/**
 * What no pin id may hold: control characters and line breaks (C0, DEL, C1, U+2028/U+2029), bidi controls,
 * and angle brackets with their full-width and small look-alikes. Ids are interpolated into the knowledge
 * block, notices and messages; none of these belongs in a file path a person pins.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a pin id must not hold
const PIN_ID_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069<>\ufe64\ufe65\uff1c\uff1e]/;
const PIN_ID_FORBIDDEN_ALL = new RegExp(PIN_ID_FORBIDDEN.source, 'g');

/** A pin id as an error message may show it: JSON-quoted, shortened, every forbidden character as `\uXXXX`. */
export function quotePinId(id: string): string {
  const short = id.length > 160 ? `${id.slice(0, 160)}…` : id;
  return `"${short.replace(/["\\]/g, (c) => `\\${c}`).replace(PIN_ID_FORBIDDEN_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

function describeForbidden(c: string): string {
  if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029' || c === '\u0085') return 'a line break';
  if (/[<>\ufe64\ufe65\uff1c\uff1e]/.test(c)) return 'an angle bracket';
  if (/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(c)) return 'a bidi control character';
  return 'a control character';
}

/** Why `id` cannot be a pin id (a sentence naming it), or undefined when it can. The one rule, at every boundary. */
export function pinIdProblem(id: string): string | undefined {
  if (id.length === 0) return 'a pin id is empty';
  if (id.length > PIN_ID_MAX) return `pin id ${quotePinId(id)} is longer than ${PIN_ID_MAX} characters`;
  const bad = PIN_ID_FORBIDDEN.exec(id);
  if (bad) return `pin id ${quotePinId(id)} holds ${describeForbidden(bad[0])}: a pin is a workspace path without control characters, line breaks or angle brackets`;
  return undefined;
}

/**
 * A pin id on the wire: a workspace-relative path (or an absolute path inside the workspace, which the server
 * turns into one), 1–{@link PIN_ID_MAX} characters, no control characters, line breaks or angle brackets.
 * Every pin param of the protocol uses it: a bad id is refused with an error that names it, and nothing changes.
 */
export const PinIdSchema = z.string().superRefine((id, ctx) => {
  const problem = pinIdProblem(id);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
/** Add and/or remove draft pins in one atomic update. Entries are workspace-relative ids or absolute paths. */
export const UpdateDraftPinsParamsSchema = z
  .object({ add: z.array(PinIdSchema).max(200).default([]), remove: z.array(PinIdSchema).max(200).default([]) })
  .strict();
export type UpdateDraftPinsParams = z.input<typeof UpdateDraftPinsParamsSchema>;

export const UpdateDraftPinsResultSchema = z.object({
  pins: z.array(z.string()),
  /** Pins refused, each with the reason (secret file, outside the workspace). Nothing else changed for them. */
  refused: z.array(z.object({ pin: z.string(), reason: z.string() })),
});
export type UpdateDraftPinsResult = z.infer<typeof UpdateDraftPinsResultSchema>;

export const ServerStatusSchema = z.object({
  pid: z.number().int(),
  startedAt: z.string(),
  workspaceFolder: z.string().nullable(),
  /** Every folder the server indexes, with the name its ids start with when there is more than one. */
  workspaceFolders: z.array(WorkspaceFolderSchema).optional(),
  memoryEnabled: z.boolean(),
  itemCount: z.number().int(),
});
export type ServerStatus = z.infer<typeof ServerStatusSchema>;

export const ItemsChangedSchema = z.object({ ids: z.array(z.string()) });
export type ItemsChanged = z.infer<typeof ItemsChangedSchema>;

// ---- sessions and delivery ------------------------------------------------------------------------

// A session key names an entry of a JSON object: never a prototype member's name.
const SessionKey = z
  .string()
  .min(1)
  .max(200)
  .refine((k) => !['__proto__', 'constructor', 'prototype'].includes(k) && !(k in Object.prototype), { message: 'not a session key' });
const PinList = z.array(PinIdSchema).max(500);

/** Add and/or remove agent pins (`.knowledge/pins.json`) in one atomic update; same ids as every pin list. */
export const UpdateAgentPinsParamsSchema = z.object({ add: PinList.default([]), remove: PinList.default([]) }).strict();
export type UpdateAgentPinsParams = z.input<typeof UpdateAgentPinsParamsSchema>;

/** The agent block: the agent pins compiled now (flagged items withheld). */
export const CompileAgentBlockParamsSchema = z
  .object({
    budgetTokens: z.number().int().min(200).max(1_000_000).optional(),
    /** false: leave the memory index out (a file in the workspace, such as Copilot's instruction file, must not carry personal memory). */
    memory: z.boolean().optional(),
  })
  .strict();
export type CompileAgentBlockParams = z.input<typeof CompileAgentBlockParamsSchema>;

export const SessionInfoSchema = z.object({
  key: z.string(),
  createdAt: z.string(),
  label: z.string().optional(),
  origin: z.enum(['chat', 'api', 'dispatch', 'schedule']),
  /** Pinned ids (workspace-relative). */
  pins: z.array(z.string()),
  pinnedMessages: z.array(z.string()),
  /** `knowledge_context_delivered`: '' when nothing was delivered. */
  delivered: z.string(),
  deliveredAt: z.string().nullable(),
  /** The signature the session is owed now ('' when not computed yet). */
  pending: z.string(),
  budget: z
    .object({ budgetTokens: z.number(), usedTokens: z.number(), cutItems: z.array(z.string()), cutMemoryEntries: z.number() })
    .optional(),
  results: z.array(z.object({ at: z.string(), prompt: z.string(), answer: z.string(), blockSent: z.boolean(), error: z.string().optional() })),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

export const CreateSessionParamsSchema = z
  .object({
    pins: PinList.optional(),
    label: z.string().max(200).optional(),
    origin: z.enum(['chat', 'api', 'dispatch', 'schedule']).optional(),
    consumeDraft: z.boolean().optional(),
  })
  .strict();
export type CreateSessionParams = z.input<typeof CreateSessionParamsSchema>;

export const SessionKeyParamsSchema = z.object({ key: SessionKey }).strict();
export type SessionKeyParams = z.infer<typeof SessionKeyParamsSchema>;

export const SetSessionPinsParamsSchema = z.object({ key: SessionKey, pins: PinList }).strict();
export type SetSessionPinsParams = z.infer<typeof SetSessionPinsParamsSchema>;

export const UpdateSessionPinsParamsSchema = z
  .object({ key: SessionKey, add: PinList.default([]), remove: PinList.default([]) })
  .strict();
export type UpdateSessionPinsParams = z.input<typeof UpdateSessionPinsParamsSchema>;

export const SetPinnedMessagesParamsSchema = z
  .object({ key: SessionKey, messages: z.array(z.string().max(20_000)).max(50) })
  .strict();
export type SetPinnedMessagesParams = z.infer<typeof SetPinnedMessagesParamsSchema>;

export const ResolveParamsSchema = z
  .object({ key: SessionKey, budgetTokens: z.number().int().min(200).max(1_000_000).optional() })
  .strict();
export type ResolveParams = z.infer<typeof ResolveParamsSchema>;

export const CompilePinsParamsSchema = z
  .object({ pins: PinList, budgetTokens: z.number().int().min(200).max(1_000_000).optional() })
  .strict();
export type CompilePinsParams = z.infer<typeof CompilePinsParamsSchema>;

export const MarkDeliveredParamsSchema = z.object({ key: SessionKey, signature: z.string().min(1).max(200) }).strict();
export type MarkDeliveredParams = z.infer<typeof MarkDeliveredParamsSchema>;

export const RenamePinParamsSchema = z.object({ oldId: PinIdSchema, newId: PinIdSchema }).strict();
export type RenamePinParams = z.infer<typeof RenamePinParamsSchema>;

/** Retention: sessions with no activity for `olderThanDays` days go (0: keep every session). */
/** One page of sessions, newest first: `cursor` is the `next` of the page before (absent: the first page). */
export const ListSessionsPageParamsSchema = z
  .object({ limit: z.number().int().min(1).max(500).default(30), cursor: z.string().min(1).max(1000).optional() })
  .strict();
export type ListSessionsPageParams = z.infer<typeof ListSessionsPageParamsSchema>;

/** A page of sessions: `total` of the workspace, `next` the cursor of the following page (null: this is the last). */
export interface SessionsPage {
  sessions: SessionInfo[];
  total: number;
  next: string | null;
}

export const PruneSessionsParamsSchema = z.object({ olderThanDays: z.number().int().min(0).max(36_500) }).strict();
export type PruneSessionsParams = z.infer<typeof PruneSessionsParamsSchema>;
export const DEFAULT_SESSION_RETENTION_DAYS = 90;

/** What retention removed: the sessions (with their pins and delivery records) and their session-scope memory entries. */
export interface PruneSessionsResult {
  pruned: string[];
  memoryEntries: number;
  /** Why session memory was kept (read-only), when it was. */
  memoryKept?: string;
}

export const BlockItemSchema = z.object({
  id: z.string(),
  kind: z.enum(['note', 'plan', 'file']),
  state: z.enum(['ok', 'withheld', 'unavailable']),
  reason: z.string().optional(),
});

/** A compiled block. `text` is '' when the session already carries `signature`. */
export const PendingBlockSchema = z.object({
  text: z.string(),
  signature: z.string(),
  delivered: z.string(),
  items: z.array(BlockItemSchema),
  budget: z.object({ budgetTokens: z.number(), usedTokens: z.number(), cutItems: z.array(z.string()), cutMemoryEntries: z.number() }),
});
export type PendingBlock = z.infer<typeof PendingBlockSchema>;

export const SessionResultSchema = z.object({
  at: z.string(),
  prompt: z.string().max(100_000),
  answer: z.string().max(1_000_000),
  blockSent: z.boolean(),
  error: z.string().max(10_000).optional(),
});
export type SessionResult = z.infer<typeof SessionResultSchema>;

export const AppendResultParamsSchema = z.object({ key: SessionKey, result: SessionResultSchema }).strict();
export type AppendResultParams = z.infer<typeof AppendResultParamsSchema>;

/** Claims one time slot of a scheduled prompt, creating its session on first use. */
export const ClaimScheduledRunParamsSchema = z
  .object({ name: z.string().min(1).max(200), slot: z.string().min(1).max(100), pins: PinList })
  .strict();
export type ClaimScheduledRunParams = z.infer<typeof ClaimScheduledRunParamsSchema>;
export const ClaimScheduledRunResultSchema = z.object({ claimed: z.boolean(), key: z.string() });
export type ClaimScheduledRunResult = z.infer<typeof ClaimScheduledRunResultSchema>;

export const MarkReviewedParamsSchema = z.object({ id: PinIdSchema, revision: z.string().regex(/^[0-9a-f]{64}$/) }).strict();
export type MarkReviewedParams = z.infer<typeof MarkReviewedParamsSchema>;

/** This person accepts the repository's review of one file as it is now (`revision`) into their own record. */
export const AcceptRepositoryReviewParamsSchema = MarkReviewedParamsSchema;
export type AcceptRepositoryReviewParams = MarkReviewedParams;
/** The repository's reviews not yet accepted: of one folder (its name) or, without it, of every folder. */
export const RepositoryReviewsParamsSchema = z.object({ folder: z.string().max(1000).optional() }).strict();
export type RepositoryReviewsParams = z.infer<typeof RepositoryReviewsParamsSchema>;
/** Accept these of a folder's repository reviews (as listed by the repository-reviews request). */
export const AcceptRepositoryReviewsParamsSchema = z
  .object({ folder: z.string().max(1000), reviews: z.array(z.object({ id: z.string().min(1).max(4096), contentHash: z.string().regex(/^[0-9a-f]{64}$/) }).strict()).max(10_000) })
  .strict();
export type AcceptRepositoryReviewsParams = z.infer<typeof AcceptRepositoryReviewsParamsSchema>;

export const ReviewRecordSchema = z.object({
  id: z.string(),
  contentHash: z.string(),
  rulesetVersion: z.string(),
  rules: z.array(z.string()),
  reviewedBy: z.string(),
  reviewedAt: z.string(),
});
export type ReviewRecord = z.infer<typeof ReviewRecordSchema>;
export interface RepositoryReviewsResult {
  folders: { folder: string; reviews: ReviewRecord[] }[];
}

/** A finding on a file, with line/column for people (0-based in the protocol, 1-based in the CLI). */
export const FileFindingSchema = z.object({
  ruleId: z.string(),
  category: z.string(),
  severity: z.string(),
  message: z.string(),
  start: z.number().int(),
  end: z.number().int(),
});
export const JudgeFileResultSchema = z.object({
  id: z.string(),
  revision: z.string(),
  rulesetVersion: z.string(),
  /** Findings that stand (withheld from the model). Empty when clean or reviewed. */
  findings: z.array(FileFindingSchema),
  /** Every finding, reviewed or not, so a person sees what matched. */
  allFindings: z.array(FileFindingSchema),
  /** This person's review (their own record, or the repository's review they accepted) that clears the findings. */
  review: ReviewRecordSchema.optional(),
  /** The repository's review alone (`.knowledge/reviews.json`, the team's record): shown, never obeyed until accepted. */
  repositoryReview: ReviewRecordSchema.optional(),
  /**
   * What the learned stage vetoed in the text (a rule's match the model read as benign): the rule, its span, the model
   * score the rule needs (`gate`) and the score the text reached (`score`); null when not finite.
   */
  vetoed: z.array(z.object({ ruleId: z.string(), start: z.number().int(), end: z.number().int(), gate: z.number().nullable(), score: z.number().nullable() })).optional(),
});
export type JudgeFileResult = z.infer<typeof JudgeFileResultSchema>;
export const JudgeFileParamsSchema = z.object({ id: PinIdSchema }).strict();
export type JudgeFileParams = z.infer<typeof JudgeFileParamsSchema>;

/** Texts to judge now: replayed blocks' items, pinned messages, compaction summaries. `id`: a pin, whose reviews apply. */
export const JudgeTextsParamsSchema = z
  .object({ texts: z.array(z.object({ text: z.string().max(2_000_000), id: PinIdSchema.optional() }).strict()).max(500) })
  .strict();
export type JudgeTextsParams = z.infer<typeof JudgeTextsParamsSchema>;
/** One verdict per text, in order: flagged (findings stand, no review covers them) and the rules that matched. */
export interface JudgeTextsResult {
  rulesetVersion: string;
  results: { flagged: boolean; rules: string[] }[];
}

/** What deleting a session did. Its session-scope memory goes with it unless memory is off or read-only. */
export const DeleteSessionResultSchema = z.object({
  key: z.string(),
  memoryDeleted: z.number().int(),
  /** Why session memory was kept (memory off, read-only), when it was. */
  memoryKept: z.string().optional(),
});
export type DeleteSessionResult = z.infer<typeof DeleteSessionResultSchema>;

/** The workspace's folders as the server indexes them (`knowledge/workspace/folders`). */
export interface WorkspaceFoldersInfo {
  /** More than one folder: every id starts with its folder's name. */
  multi: boolean;
  folders: { name: string; path: string; hasKnowledge: boolean }[];
}
