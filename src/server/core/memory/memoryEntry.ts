/**
 * A memory entry as it is stored: one JSON object per line of a scope's `.jsonl` file.
 *
 * - The schema is loose: fields written by a newer version of the extension survive a rewrite.
 * - A line written without provenance (by hand, or by a tool that predates it) loads as `legacy`: shown to
 *   people, never compiled for a model until someone approves it.
 * - Tags are normalised (lower-cased, trimmed, de-duplicated, sorted); the revision is the sha256 of type,
 *   title, body and tags, computed on every load — a hand edit of a line is judged again like any other edit.
 * - A line missing a date borrows one (see parseStoredEntry); a date that cannot be known is "unknown", never
 *   1970, and never makes an entry old.
 */
import { sha256Hex } from '../sha256Hex';
import { z } from 'zod';
import { MEMORY_BODY_MAX, MEMORY_TITLE_MAX, MemoryScopeSchema, MemoryTypeSchema, SourceKindSchema, TrustStateSchema, type MemoryScope, type MemoryType } from '../../../shared/memorySchemas';

export const ImportanceSchema = z.enum(['low', 'medium', 'high']);
export type Importance = z.infer<typeof ImportanceSchema>;

/** The date of an entry when neither its line nor its file gives one. Not a date: never ages, sorts last. */
export const UNKNOWN_DATE = 'unknown';

/** Entries whose line carries no date at all (dated by the file, or unknown): a dated copy of the same id beats them. */
const undated = new WeakSet<StoredEntry>();

/** Whether `e`'s line carried no date at all (see `newer`); a snapshot (scopeSnapshot.ts) keeps this beside the entry. */
export const isUndated = (e: StoredEntry): boolean => undated.has(e);
/** An entry rebuilt from a snapshot whose line carried no date: as `parseStoredEntry` would have marked it. */
export function markUndated(e: StoredEntry): void {
  undated.add(e);
}

/**
 * What a line parses to. Bump it whenever `parseStoredEntry`, `StoredEntrySchema` or what they depend on changes the
 * entry a line gives: snapshots of parsed entries (scopeSnapshot.ts) made under another value are ignored, never trusted.
 * test/unit/memorySnapshot.test.ts pins the schema's shape to this number.
 */
export const ENTRY_PARSE_VERSION = 1;

export const WrongFlagSchema = z.looseObject({ reason: z.string(), by: z.string(), at: z.string() });

export const StoredProvenanceSchema = z.looseObject({
  sourceKind: SourceKindSchema,
  identity: z.string(),
  sessionKey: z.string().optional(),
  at: z.string(),
});

export const StoredTrustSchema = z.looseObject({
  state: TrustStateSchema,
  approvedBy: z.string().optional(),
  approvedAt: z.string().optional(),
});

/** What a line must hold. Everything else has a default; unknown fields are kept. */
export const StoredEntrySchema = z.looseObject({
  id: z.string().min(1).max(100),
  scope: MemoryScopeSchema.optional(),
  /** Session scope only: the session the entry belongs to (it lives and dies with it). */
  sessionKey: z.string().max(200).optional(),
  type: MemoryTypeSchema.default('fact'),
  status: z.enum(['active', 'superseded', 'archived']).optional(),
  title: z.string().trim().min(1).max(MEMORY_TITLE_MAX),
  body: z.string().max(MEMORY_BODY_MAX).default(''),
  tags: z.array(z.string().max(50)).max(20).default([]),
  importance: ImportanceSchema.default('medium'),
  confidence: z.number().min(0).max(1).default(1),
  provenance: StoredProvenanceSchema.optional(),
  trust: StoredTrustSchema.optional(),
  revision: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  supersededBy: z.string().optional(),
  consolidatedFrom: z.array(z.string()).optional(),
  consolidatedInto: z.string().optional(),
  expiresAt: z.string().optional(),
  wrongFlags: z.array(WrongFlagSchema).default([]),
});

/** The proposal record as stored (loose: a newer version's fields survive). Read through `proposalOf`. */
export const StoredProposalSchema = z.looseObject({
  kind: z.enum(['new', 'update', 'conflict']),
  target: z.string().optional(),
  targetRevision: z.string().optional(),
  rationale: z.string(),
  distilledFrom: z.looseObject({ sessionKey: z.string(), turn: z.number().int().min(1), model: z.string() }),
});
export type StoredProposal = z.infer<typeof StoredProposalSchema>;

export const StoredRejectionSchema = z.looseObject({ reason: z.string().optional(), by: z.string(), at: z.string() });

export interface StoredEntry {
  id: string;
  scope: MemoryScope;
  sessionKey?: string;
  type: MemoryType;
  status?: 'active' | 'superseded' | 'archived';
  title: string;
  body: string;
  tags: string[];
  importance: Importance;
  confidence: number;
  provenance: z.infer<typeof StoredProvenanceSchema>;
  trust: z.infer<typeof StoredTrustSchema>;
  revision: string;
  createdAt: string;
  updatedAt: string;
  supersededBy?: string;
  consolidatedFrom?: string[];
  consolidatedInto?: string;
  expiresAt?: string;
  wrongFlags: z.infer<typeof WrongFlagSchema>[];
  /** Pending proposals (distillation): see StoredProposalSchema; removed on approval. Unvalidated on disk: read with `proposalOf`. */
  proposal?: unknown;
  /** A person rejected it (inbox): kept for the record, never reaches a model. Any value counts as rejected. */
  rejected?: unknown;
  /** The session whose approved proposal superseded this entry. */
  supersededInSession?: string;
  [unknownField: string]: unknown;
}

/**
 * A pending entry that distillation wrote and no person approved yet: it reaches no model, not even its own
 * session's, and counts toward nothing (caps, supersede). Any `proposal` value counts, even one that does not parse.
 */
export function isPendingProposal(e: StoredEntry): boolean {
  return e.trust.state === 'pending' && e.proposal !== undefined && e.proposal !== null;
}

export function isRejected(e: StoredEntry): boolean {
  return e.rejected !== undefined && e.rejected !== null;
}

const proposals = new WeakMap<StoredEntry, StoredProposal | null>();

/** The entry's proposal record when it is a pending proposal whose record parses; undefined otherwise. */
export function proposalOf(e: StoredEntry): StoredProposal | undefined {
  if (!isPendingProposal(e)) return undefined;
  let p = proposals.get(e);
  if (p === undefined) {
    const parsed = StoredProposalSchema.safeParse(e.proposal);
    p = parsed.success ? parsed.data : null;
    proposals.set(e, p);
  }
  return p ?? undefined;
}

/** The rejection as stored, when it parses (a malformed one still counts as rejected: see isRejected). */
export function rejectionOf(e: StoredEntry): z.infer<typeof StoredRejectionSchema> | undefined {
  if (!isRejected(e)) return undefined;
  const parsed = StoredRejectionSchema.safeParse(e.rejected);
  return parsed.success ? parsed.data : { by: 'unknown', at: UNKNOWN_DATE };
}

/** Lower-cased, trimmed, empty ones dropped, de-duplicated, sorted. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0))].sort();
}

/** sha256 (hex) of type, title, body and (normalised) tags: changes exactly when the content does. */
export function computeRevision(e: { type: string; title: string; body: string; tags: readonly string[] }): string {
  const text = JSON.stringify([e.type, e.title, e.body, e.tags]);
  return sha256Hex(text);
}

/**
 * Parses one line's JSON value into an entry of `scope`; answers the first schema problem otherwise. A
 * missing createdAt falls back to provenance.at, then updatedAt, then `fileDate` (the file's mtime when it
 * was loaded), then UNKNOWN_DATE; a missing updatedAt to the createdAt so found.
 */
export function parseStoredEntry(raw: unknown, scope: MemoryScope, rawLine: string, fileDate?: string): { ok: true; entry: StoredEntry } | { ok: false; reason: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'the line is not a JSON object' };
  const obj = raw as Record<string, unknown>;
  // A hand-written line may lack an id: derive a stable one from the line so it survives reloads.
  const withId = typeof obj.id === 'string' && obj.id.length > 0 ? obj : { ...obj, id: `legacy-${sha256Hex(rawLine).slice(0, 16)}` };
  const parsed = StoredEntrySchema.safeParse(withId);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}` };
  }
  const d = parsed.data;
  const tags = normalizeTags(d.tags);
  const lineDate = d.createdAt ?? d.provenance?.at ?? d.updatedAt;
  const createdAt = lineDate ?? fileDate ?? UNKNOWN_DATE;
  const legacy = !d.provenance || !d.trust;
  const entry: StoredEntry = {
    ...d,
    id: d.id,
    scope,
    type: d.type,
    title: d.title,
    body: d.body,
    tags,
    importance: d.importance,
    confidence: d.confidence,
    provenance: d.provenance ?? { sourceKind: 'legacy', identity: 'unknown', at: createdAt },
    // Without provenance there is no trust to speak of: legacy until a person approves it.
    trust: legacy ? { state: 'legacy' } : d.trust!,
    revision: computeRevision({ type: d.type, title: d.title, body: d.body, tags }),
    createdAt,
    updatedAt: d.updatedAt ?? createdAt,
    wrongFlags: d.wrongFlags,
  };
  if (d.type === 'decision' && !entry.status) entry.status = entry.supersededBy ? 'superseded' : 'active';
  if (lineDate === undefined) undated.add(entry);
  return { ok: true, entry };
}

/** The on-disk line (no trailing newline). Known fields first in a fixed order, unknown ones after. */
export function serializeEntry(e: StoredEntry): string {
  const { id, scope, sessionKey, type, status, title, body, tags, importance, confidence, provenance, trust, revision, createdAt, updatedAt, supersededBy, consolidatedFrom, consolidatedInto, expiresAt, wrongFlags, ...rest } = e;
  return JSON.stringify({
    id,
    scope,
    ...(sessionKey !== undefined ? { sessionKey } : {}),
    type,
    ...(status !== undefined ? { status } : {}),
    title,
    body,
    tags,
    importance,
    confidence,
    provenance,
    trust,
    revision,
    createdAt,
    updatedAt,
    ...(supersededBy !== undefined ? { supersededBy } : {}),
    ...(consolidatedFrom !== undefined ? { consolidatedFrom } : {}),
    ...(consolidatedInto !== undefined ? { consolidatedInto } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    wrongFlags,
    ...rest,
  });
}

/** Stable order of a scope file: by createdAt, then id. New entries land at the end, so appends merge. */
export function compareEntries(a: StoredEntry, b: StoredEntry): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Newest updatedAt wins (a union merge can leave two versions of one id); a copy whose line carries a date
 * beats one without; ties go to the later revision string.
 */
export function newer(a: StoredEntry, b: StoredEntry): StoredEntry {
  if (undated.has(a) !== undated.has(b)) return undated.has(a) ? b : a;
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt ? a : b;
  return a.revision >= b.revision ? a : b;
}
