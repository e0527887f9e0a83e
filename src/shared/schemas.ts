/**
 * The knowledge items' wire contract: where the server keeps things (`initializationOptions`), the items it lists,
 * its health and status. Every message that crosses a process or trust boundary is validated against a zod schema
 * in src/shared (this file, pinIdSchemas.ts, sessionSchemas.ts, reviewSchemas.ts, the memory ones); types are
 * derived with `z.infer`, never written twice.
 */
import { z } from 'zod';

/** The rule an item is listed under when the scanner could not judge it (its model file missing or damaged): withheld, like a finding, until it is judged. */
export const UNJUDGED_RULE = 'scanner.unjudged';

/** A workspace folder as the server knows it: the name its ids start with (several folders), and its absolute path. */
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
/** One finding in a file's text as the server judged it, with an excerpt around it (`start`/`end`: UTF-16 offsets into `text`, half-open). */
export const FindingSpanSchema = z.object({
  ruleId: z.string(),
  category: z.string(),
  message: z.string(),
  text: z.string(),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
});
export type FindingSpan = z.infer<typeof FindingSpanSchema>;

export const KnowledgeItemSchema = z.object({
  /** Workspace-relative path with forward slashes, e.g. `.knowledge/notes/setup.md`. */
  id: z.string(),
  kind: KnowledgeKindSchema,
  /** First Markdown heading, else the file name without `.md`. */
  title: z.string(),
  /**
   * sha256 (hex) of the bytes judged and sent: the whole file, or its first 512 KiB (on a whole character) when it is
   * longer. The one revision of a file: diagnostics, reviews, the panel and the block all name this one.
   */
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
  /**
   * Flagged items, when the list was asked `withSpans`: the first findings with excerpts, cut from the very text the
   * server read and judged (so a client never reads the file, or asks again, to show them).
   */
  spans: z.array(FindingSpanSchema).max(5).optional(),
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

export const ListItemsParamsSchema = z
  .object({
    kind: KnowledgeKindSchema.optional(),
    /** Flagged items carry `spans`: what matched, with excerpts (the panel). */
    withSpans: z.boolean().optional(),
  })
  .strict();
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

/** The workspace's folders as the server indexes them (`knowledge/workspace/folders`). */
export interface WorkspaceFoldersInfo {
  /** More than one folder: every id starts with its folder's name. */
  multi: boolean;
  folders: { name: string; path: string; hasKnowledge: boolean }[];
}
