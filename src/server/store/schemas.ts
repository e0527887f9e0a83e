/** On-disk schemas of the store. Loose objects: fields written by a newer version survive a round trip. */
import { z } from 'zod';

export const SESSIONS_SCHEMA_VERSION = 1;

export const SessionMetaSchema = z.looseObject({
  key: z.string(),
  createdAt: z.string(),
  /** Note and plan ids pinned to this session. Never derived from project-wide state. */
  project_context_pins: z.array(z.string()).default([]),
  /** Signature of what the session carries, recorded only after a send was accepted. */
  knowledge_context_delivered: z.string().nullable().default(null),
  deliveredAt: z.string().nullable().default(null),
});
export type SessionMeta = z.infer<typeof SessionMetaSchema>;

/** `<globalStorage>/sessions.json`: session metadata and the "pin to next chat" draft for this workspace. */
export const SessionsDocSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  draftPins: z.array(z.string()).default([]),
  sessions: z.record(z.string(), SessionMetaSchema).default({}),
});
export type SessionsDoc = z.infer<typeof SessionsDocSchema>;

export const sessionsDefaults = (): SessionsDoc => ({
  schemaVersion: SESSIONS_SCHEMA_VERSION,
  draftPins: [],
  sessions: {},
});

/** Migrations of sessions.json: version 0 (no version field, an early draft format) had `pins` at the root. */
export const sessionsMigrations: Record<number, (raw: Record<string, unknown>) => Record<string, unknown>> = {
  0: (raw) => {
    const { pins, ...rest } = raw;
    return { ...rest, draftPins: Array.isArray(pins) ? pins : [] };
  },
};
