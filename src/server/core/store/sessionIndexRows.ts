/**
 * The sessions index's rows on disk (`sessionIndex.ts`): one entry per session, as a snapshot row
 * `[key, file, createdAt, activity, origin, label, pins, stat]` or a journal line (`{"u": row}` written,
 * `{"d": [key, file]}` removed), and the cursor of the panel's newest-first pages.
 */
import type { SessionMeta } from './storeSchemas';

export const SESSION_INDEX_FORMAT = 1;

export interface IndexEntry {
  key: string;
  /** The session's file name in `sessions/`. */
  file: string;
  createdAt: string;
  /** `lastActivity` of the session (ms; -Infinity when it has no date). */
  activity: number;
  origin: SessionMeta['origin'];
  label: string | null;
  pins: string[];
  /** The file's stat (`ino:size:mtimeNs`) as written; '' when unknown. */
  stat: string;
}

export type Row = [string, string, string, number | null, string, string | null, string[], string];
const ORIGINS = new Set(['chat', 'api', 'dispatch', 'schedule']);

export function toRow(e: IndexEntry): Row {
  return [e.key, e.file, e.createdAt, Number.isFinite(e.activity) ? e.activity : null, e.origin, e.label, e.pins, e.stat];
}

export function fromRow(raw: unknown): IndexEntry | null {
  if (!Array.isArray(raw) || raw.length !== 8) return null;
  const [key, file, createdAt, activity, origin, label, pins, stat] = raw as unknown[];
  if (typeof key !== 'string' || typeof file !== 'string' || typeof createdAt !== 'string' || typeof stat !== 'string') return null;
  if (activity !== null && typeof activity !== 'number') return null;
  if (typeof origin !== 'string' || !ORIGINS.has(origin)) return null;
  if (label !== null && typeof label !== 'string') return null;
  if (!Array.isArray(pins) || !pins.every((p) => typeof p === 'string')) return null;
  return { key, file, createdAt, activity: activity ?? Number.NEGATIVE_INFINITY, origin: origin as IndexEntry['origin'], label, pins: pins as string[], stat };
}

/** One journal line: an entry written, or a session removed. */
export type Change = { put: IndexEntry } | { del: string; file: string };

export function parseLine(line: string): Change | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const o = raw as { u?: unknown; d?: unknown };
  if (o.u !== undefined) {
    const put = fromRow(o.u);
    return put ? { put } : null;
  }
  if (Array.isArray(o.d) && o.d.length === 2 && typeof o.d[0] === 'string' && typeof o.d[1] === 'string') return { del: o.d[0], file: o.d[1] };
  return null;
}

/** The entry of `session`, written to `file` with `stat`. */
export function entryOf(session: SessionMeta, file: string, stat: string | null, activity: number): IndexEntry {
  return {
    key: session.key,
    file,
    createdAt: session.createdAt,
    activity,
    origin: session.origin,
    label: session.label ?? null,
    pins: [...session.project_context_pins],
    stat: stat ?? '',
  };
}

/** The newest-first order of the panel: createdAt descending, then key descending. */
export interface PageCursor {
  createdAt: string;
  key: string;
}

export function encodeCursor(c: PageCursor): string {
  return Buffer.from(JSON.stringify([c.createdAt, c.key]), 'utf8').toString('base64url');
}

export function decodeCursor(text: string): PageCursor | null {
  try {
    const raw = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(raw) && raw.length === 2 && typeof raw[0] === 'string' && typeof raw[1] === 'string') return { createdAt: raw[0], key: raw[1] };
  } catch {
    /* not ours */
  }
  return null;
}
