/**
 * Personal memory through Settings Sync: the synced state's shape and cap (a contract between machines), and the
 * sync request between the extension and the server.
 */
import { z } from 'zod';
import { MemoryBody as Body, MemoryEntryId as Id, MemoryTags as Tags, MemoryTitle as Title, MemoryTypeSchema } from './memorySchemas';

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
     * PERSONAL_SYNC_HISTORY, personalSync.ts): an arrival whose history holds ours was edited on top of ours.
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
