/** On-disk schemas of the store. Loose objects: fields written by a newer version survive a round trip. */
import { z } from 'zod';

/** Version 1: one `sessions.json` holding every session. Version 2: that file is a small index (the draft) and each session has its own file. */
export const SESSIONS_SCHEMA_VERSION = 2;
/** Version of one session's own file (`sessions/<name>.json`). */
export const SESSION_FILE_SCHEMA_VERSION = 1;

export const SessionMetaSchema = z.looseObject({
  key: z.string(),
  createdAt: z.string(),
  /** Note and plan ids pinned to this session. Never derived from project-wide state. */
  project_context_pins: z.array(z.string()).default([]),
  /** Signature of what the session carries, recorded only after a send was accepted. */
  knowledge_context_delivered: z.string().nullable().default(null),
  deliveredAt: z.string().nullable().default(null),
  label: z.string().optional(),
  /** Who created it: the chat UI, another extension through the API, a dispatch tool, a scheduled prompt. */
  origin: z.enum(['chat', 'api', 'dispatch', 'schedule']).default('chat'),
  /** Chat messages the person pinned so that they survive compaction (re-sent with the block). */
  pinned_messages: z.array(z.string()).default([]),
  /** Budget figures of a block, written by versions before issue 24 at each resolve; read, no longer written. */
  lastBudget: z
    .looseObject({ budgetTokens: z.number(), usedTokens: z.number(), cutItems: z.array(z.string()), cutMemoryEntries: z.number() })
    .optional(),
  /** The signature last delivered (versions before issue 24: last resolved); the meter's cheap "re-send pending". */
  lastPendingSignature: z.string().optional(),
  /** When something last happened to the session (a message, a pin change, a delivery); retention prunes by it. Reads never move it. Older files: createdAt, deliveredAt, results. */
  lastActivityAt: z.string().optional(),
  /** Scheduled prompts: the last time slot claimed (so two windows never run the same slot twice). */
  lastScheduledSlot: z.string().optional(),
  /** Answers of scheduled and dispatched prompts, newest last, at most MAX_RESULTS. */
  results: z
    .array(z.looseObject({ at: z.string(), prompt: z.string(), answer: z.string(), blockSent: z.boolean(), error: z.string().optional() }))
    .default([]),
});

export const MAX_RESULTS = 20;
export type SessionMeta = z.infer<typeof SessionMetaSchema>;

/** Version 1 of `sessions.json` (before the split): session metadata and the "pin to next chat" draft for this workspace. Read only to migrate it. */
export const SessionsDocSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  draftPins: z.array(z.string()).default([]),
  sessions: z.record(z.string(), SessionMetaSchema).default({}),
});
export type SessionsDoc = z.infer<typeof SessionsDocSchema>;

export const legacySessionsDefaults = (): SessionsDoc => ({
  schemaVersion: 1,
  draftPins: [],
  sessions: {},
});

/** `sessions.json` from version 2 on: the draft and whatever a newer version adds; sessions live in `sessions/`. */
export const SessionsIndexSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  draftPins: z.array(z.string()).default([]),
});
export type SessionsIndex = z.infer<typeof SessionsIndexSchema>;

export const sessionsIndexDefaults = (): SessionsIndex => ({ schemaVersion: SESSIONS_SCHEMA_VERSION, draftPins: [] });

/** `sessions/<name>.json`: one session (unknown fields kept). */
export const SessionFileSchema = SessionMetaSchema.extend({ schemaVersion: z.number().int().min(1) });
export type SessionFile = z.infer<typeof SessionFileSchema>;

/**
 * Migrations of sessions.json: version 0 (no version field, an early draft format) had `pins` at the root.
 * Version 1 → 2 (the split) is done by `SessionStore.open`, which moves the sessions out before the index is read;
 * any `sessions` left in the index are an unknown field to it (kept, and moved out at the next open).
 */
export const sessionsMigrations: Record<number, (raw: Record<string, unknown>) => Record<string, unknown>> = {
  0: (raw) => {
    const { pins, ...rest } = raw;
    return { ...rest, draftPins: Array.isArray(pins) ? pins : [] };
  },
  1: (raw) => raw,
};
