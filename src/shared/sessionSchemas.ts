/**
 * Sessions and delivery on the wire: a session's view, the requests that create, pin, resolve, compile, mark
 * delivered, page, prune and delete sessions, the compiled block, and scheduled runs.
 */
import { z } from 'zod';
import { PinList } from './pinIdSchemas';

// A session key names an entry of a JSON object: never a prototype member's name.
const SessionKey = z
  .string()
  .min(1)
  .max(200)
  .refine((k) => !['__proto__', 'constructor', 'prototype'].includes(k) && !(k in Object.prototype), { message: 'not a session key' });

/** The agent block: the agent pins compiled now (flagged items withheld). */
export const CompileAgentBlockParamsSchema = z
  .object({
    budgetTokens: z.number().int().min(200).max(1_000_000).optional(),
    /** false: leave the memory index out (a file in the workspace, such as Copilot's instruction file, must not carry personal memory). */
    memory: z.boolean().optional(),
    /** Where the block goes (its preamble says so): Copilot's instruction file; absent, an agent of the MCP kind. */
    destination: z.enum(['copilot', 'mcp']).optional(),
  })
  .strict();
export type CompileAgentBlockParams = z.input<typeof CompileAgentBlockParamsSchema>;

export const SessionInfoSchema = z.object({
  key: z.string(),
  createdAt: z.string(),
  /** The name stored with the session (absent in files written before sessions had names). */
  label: z.string().optional(),
  /** What a person sees: `label`, else a fallback from its start (`sessionNames.ts`); never the key. */
  name: z.string(),
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

/** Names a session that has no name yet (a chat whose first message was a command is named by its first prompt). */
export const NameSessionParamsSchema = z.object({ key: SessionKey, name: z.string().trim().min(1).max(200) }).strict();
export type NameSessionParams = z.infer<typeof NameSessionParamsSchema>;

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
  .object({
    key: SessionKey,
    budgetTokens: z.number().int().min(200).max(1_000_000).optional(),
    /**
     * The model's own tokens per character (its count of a sample, or of the last block it was sent): the server cuts
     * the block to `budgetTokens` by it, once. Absent: the server's estimate (4 characters a token).
     */
    tokensPerChar: z.number().min(0.01).max(4).optional(),
  })
  .strict();
export type ResolveParams = z.infer<typeof ResolveParamsSchema>;

export const CompilePinsParamsSchema = z
  .object({ pins: PinList, budgetTokens: z.number().int().min(200).max(1_000_000).optional() })
  .strict();
export type CompilePinsParams = z.infer<typeof CompilePinsParamsSchema>;

export const MarkDeliveredParamsSchema = z.object({ key: SessionKey, signature: z.string().min(1).max(200) }).strict();
export type MarkDeliveredParams = z.infer<typeof MarkDeliveredParamsSchema>;

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

/** Retention: sessions with no activity for `olderThanDays` days go (0: keep every session). */
export const PruneSessionsParamsSchema = z.object({ olderThanDays: z.number().int().min(0).max(36_500) }).strict();
export type PruneSessionsParams = z.infer<typeof PruneSessionsParamsSchema>;

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
  /** Memory entries listed in the block's index (absent from servers before it was added). */
  memoryEntries: z.number().int().optional(),
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

/** What deleting a session did. Its session-scope memory goes with it unless memory is off or read-only. */
export const DeleteSessionResultSchema = z.object({
  key: z.string(),
  memoryDeleted: z.number().int(),
  /** Why session memory was kept (memory off, read-only), when it was. */
  memoryKept: z.string().optional(),
});
export type DeleteSessionResult = z.infer<typeof DeleteSessionResultSchema>;
