/**
 * The knowledge panel's message protocol, in both directions, declared once.
 *
 * Webview → host (`PanelInbound`):
 *   - `{ type: 'ready' }` — the webview's script has run and its listener is installed. The host posts
 *     NOTHING before it: every render of the webview (a new nonce, a reload) sends `ready` again and the
 *     host answers with a full `state`.
 *   - `{ type: 'request', requestId, method, params }` — one of `PanelMethods`. The host always answers
 *     with exactly one `response` carrying the same `requestId`.
 *
 * Host → webview (`PanelOutbound`):
 *   - `{ type: 'state', state }` — everything the panel shows except the memory page (sessions, pins,
 *     flagged items, the memory switch and status). Sent after `ready` and whenever the store, the notes
 *     or memory changed.
 *   - `{ type: 'changed' }` — memory changed: the webview asks again for the page it shows.
 *   - `{ type: 'response', requestId, ok: true, result }` or `{ ..., ok: false, error: { reason, message } }`.
 *
 * The webview is untrusted: the host validates every inbound message with the zod schemas below and
 * answers a malformed one with `reason: 'invalid-message'` — it changes nothing. The webview imports this
 * module for its types only (`import type`), so zod never ships in the webview bundle.
 */
import { z } from 'zod';
import {
  ConsolidateParamsSchema,
  FlagWrongParamsSchema,
  FolderName,
  MarkMemoryReviewedParamsSchema,
  MemoryListParamsSchema,
  MemoryScopeSchema,
  UpdateMemoryParamsSchema,
  type ForgetPlan,
  type ImportResult,
  type MemoryEntryView,
  type MemoryStatus,
} from './memorySchemas';
import {
  InboxApproveEditedParamsSchema,
  InboxMergeParamsSchema,
  InboxRejectParamsSchema,
  type InboxBulkResult,
  type InboxCounts,
  type InboxItem,
} from './inboxSchemas';
import type { KnowledgeKind } from './schemas';
import { PinIdSchema } from './pinIdSchemas';
import { RememberByHandSchema } from './handMemorySchemas';

const Id = z.string().min(1).max(4096);
const MemoryId = z.string().min(1).max(100);
const SessionKey = z.string().min(1).max(200);
const PinList = z.array(PinIdSchema).max(200);
const Revision = z.string().regex(/^[0-9a-f]{64}$/, 'a revision is 64 hex digits');

/** Params of every request the webview may make, by method. Strict: unknown fields are refused. */
export const PanelParamsSchemas = {
  /** The state again (the webview's refresh button). Answers `PanelState`. */
  'state/get': z.object({}).strict(),
  /** Pin/unpin on one session. Answers nothing; a `state` follows. */
  'session/updatePins': z.object({ key: SessionKey, add: PinList.default([]), remove: PinList.default([]) }).strict(),
  /** The next page of sessions (newest first) after the ones shown: `cursor` is the `sessionsNext` of the state or of the page before. Answers `SessionsMore`. */
  'sessions/more': z.object({ cursor: z.string().min(1).max(1000) }).strict(),
  /** Pin/unpin on the "next chat" draft. Answers the pins refused, with reasons. */
  'draft/updatePins': z.object({ add: PinList.default([]), remove: PinList.default([]) }).strict(),
  /** The person's memory switch. */
  'memory/setOn': z.object({ on: z.boolean() }).strict(),
  /** One page of memory (server-side fuse.js search and filters). Answers `MemoryPage`. */
  'memory/list': MemoryListParamsSchema.omit({ sessionKey: true })
    .extend({ offset: z.number().int().min(0).max(10_000_000).default(0), limit: z.number().int().min(1).max(200).default(50) })
    .strict(),
  /** The person looked at these entries: acknowledge them (clears their "new"/"changed" badges next time). */
  'memory/acknowledge': z.object({ entries: z.array(z.object({ id: MemoryId, revision: z.string().min(1).max(100) }).strict()).max(500) }).strict(),
  'memory/update': UpdateMemoryParamsSchema,
  /** Remember… (the memory section's form): a person's own entry, written as every memory write. Answers the entry. */
  'memory/remember': RememberByHandSchema,
  'memory/approve': z.object({ id: MemoryId }).strict(),
  'memory/flagWrong': FlagWrongParamsSchema,
  'memory/consolidate': ConsolidateParamsSchema,
  /** What forgetting would delete and restore (titles resolved for people). Changes nothing. */
  'memory/forgetPreview': z.object({ id: MemoryId }).strict(),
  'memory/forget': z.object({ id: MemoryId }).strict(),
  'memory/markReviewed': MarkMemoryReviewedParamsSchema,
  /** Export a scope: the host asks where to save it. Answers the path written, or null when cancelled. */
  'memory/export': z.object({ scope: MemoryScopeSchema, format: z.enum(['json', 'markdown']), folder: FolderName.optional() }).strict(),
  /** Import into a scope: the host asks which file. Answers the import result, or null when cancelled. */
  'memory/import': z.object({ scope: MemoryScopeSchema, format: z.enum(['json', 'markdown']), folder: FolderName.optional() }).strict(),
  /**
   * The decision inbox: one page of pending proposals and pending agent entries, grouped by session (newest
   * group first). Answers `InboxPage`. The webview asks for the first page, then the next ones (`offset`) as the
   * person scrolls, appending a page only when its `stamp` is the one on show (else it reads the pages again).
   */
  'inbox/list': z.object({ offset: z.number().int().min(0).max(10_000_000).default(0), limit: z.number().int().min(1).max(1000).default(200) }).strict(),
  /** Approve inbox items (one, or a selection). Answers the per-id outcome: a flagged, unreviewed item is refused (`flagged`). */
  'inbox/approve': z.object({ ids: z.array(MemoryId).min(1).max(1000) }).strict(),
  /**
   * "Accept all from the repository" for one folder (by name): the project entries its committed memory.jsonl says are
   * approved that this person has not accepted yet. Answers the per-id outcome (a flagged one is refused).
   */
  'inbox/acceptRepository': z.object({ folder: z.string().min(1).max(200) }).strict(),
  /** Save the person's edit of one item, then approve it (`asNew`: leave an update's or a conflict's target alone). */
  'inbox/approveEdited': InboxApproveEditedParamsSchema,
  /** Reject inbox items with an optional reason, which is kept on each. Answers the per-id outcome. */
  'inbox/reject': InboxRejectParamsSchema,
  /** Merge one item into an existing live entry (chosen with `inbox/mergeTargets`). Answers the updated entry. */
  'inbox/merge': InboxMergeParamsSchema,
  /** Entries the item may merge into (live, not waiting in the inbox), nearest to `query` (default: the item's title). Changes nothing. */
  'inbox/mergeTargets': z.object({ id: MemoryId, query: z.string().max(500).optional() }).strict(),
  /** Open a note or plan in the editor (the panel's "edit" for files). */
  'item/open': z.object({ id: Id }).strict(),
  /**
   * "Reviewed — not a threat", per finding, for exactly this revision of a note or plan: the host asks in VS Code (which
   * finding, the text it lets through, the rules it clears) and answers once the person decided.
   */
  'item/markReviewed': z.object({ id: Id, revision: Revision }).strict(),
  /** Remove the flagged lines of a note or plan: the host shows the lines, asks, and edits the note (Undo in the editor). */
  'item/removeFlaggedLines': z.object({ id: Id, revision: Revision }).strict(),
  'item/acceptRepositoryReview': z.object({ id: Id, revision: Revision }).strict(),
  /** Delete a note or plan file (the webview asked the person to confirm first). */
  'item/forget': z.object({ id: Id }).strict(),
} as const;

export type PanelMethod = keyof typeof PanelParamsSchemas;
export const PANEL_METHODS = Object.keys(PanelParamsSchemas) as PanelMethod[];
/** What the webview sends for `method` (defaults may be omitted). */
export type PanelParams<M extends PanelMethod> = z.input<(typeof PanelParamsSchemas)[M]>;

/** A session as the panel shows it. */
export interface SessionView {
  key: string;
  label?: string;
  /** What the person sees: the stored name, else a fallback (`sessionNames.ts`); never the key. */
  name: string;
  origin: 'chat' | 'api' | 'dispatch' | 'schedule';
  createdAt: string;
  pins: string[];
  /** carrying: delivered = what it is owed; resend-pending: owed something else; never: nothing delivered. */
  delivery: 'carrying' | 'resend-pending' | 'never' | 'unknown';
  delivered: string;
  pending: string;
  deliveredAt: string | null;
  budget?: { budgetTokens: number; usedTokens: number; cutItems: string[]; cutMemoryEntries: number };
  /** Pinned items that are withheld (flagged) or unavailable in the block. */
  withheld: string[];
}

/** A finding with the text around it, so the panel can highlight the matched span. */
export interface SpanView {
  ruleId: string;
  category: string;
  message: string;
  /** The excerpt; `start`/`end` are UTF-16 offsets into it (half-open). */
  text: string;
  start: number;
  end: number;
  /** Which field of a memory entry matched; absent for files. */
  field?: 'title' | 'body' | 'tags';
}

/** A flagged note or plan: withheld from the agent. */
export interface FlaggedItemView {
  id: string;
  kind: KnowledgeKind;
  title: string;
  revision: string;
  rules: string[];
  spans: SpanView[];
  /** The workspace folder that holds it, when the workspace has more than one. */
  folder?: string;
  /** The repository's record has a review of it this person has not accepted: by whom (shown, never obeyed). */
  repositoryReviewedBy?: string;
}

export interface ItemView {
  id: string;
  kind: KnowledgeKind;
  title: string;
  flagged: boolean;
}

export interface MemoryPart {
  /** The person's switch. */
  on: boolean;
  /** False while the server has no memory routes (MethodNotFound) or failed: `error` says why. */
  available: boolean;
  error?: string;
  status?: MemoryStatus;
  /** Flagged memory entries (first page), for the Flagged section. */
  flagged: MemoryEntryRow[];
  flaggedTotal: number;
  /** The decision inbox's counts (the section's badge and the view's badge); absent when they could not be read. */
  inbox?: InboxCounts;
}

export interface PanelState {
  /** The first page of sessions, newest first. */
  sessions: SessionView[];
  sessionsTotal: number;
  /** The cursor of the next page (`sessions/more`); null when every session is shown. */
  sessionsNext: string | null;
  /** `sessionKnowledge.sessionRetentionDays` (0: every session is kept). */
  sessionRetentionDays: number;
  draftPins: string[];
  items: ItemView[];
  flaggedItems: FlaggedItemView[];
  memory: MemoryPart;
  /** Set when a source failed to load; the rest still shows. */
  problems: string[];
  /** `WITHHELD_WARNING`, sent so the webview bundle never imports this module's values (and zod). */
  withheldWarning: string;
}

/** A memory entry with the badges computed against what the person last looked at. */
export interface MemoryEntryRow {
  entry: MemoryEntryView;
  badge: 'new' | 'changed' | null;
  spans: SpanView[];
  /**
   * Titles of the entries this one names (`supersededBy`, `consolidatedInto`, `consolidatedFrom`), resolved by
   * the host so the card never shows a bare id; an id missing here is no longer stored.
   */
  links?: Record<string, string>;
}

/** A further page of sessions for the panel. */
export interface SessionsMore {
  sessions: SessionView[];
  next: string | null;
}

export interface MemoryPage {
  rows: MemoryEntryRow[];
  total: number;
  offset: number;
  limit: number;
}

/** One inbox item as the panel shows it: the server's item, and the matched spans of a flagged (or reviewed) one. */
export interface InboxItemRow extends InboxItem {
  spans: SpanView[];
}

/** The items of one session. `label`: the session's label for people (absent: unlabelled or no longer stored). */
export interface InboxGroupView {
  sessionKey: string | null;
  /** The items from one folder's repository (approved in its committed memory.jsonl, not yet by this person). */
  repository?: { folder: string };
  label?: string;
  counts: InboxCounts;
  items: InboxItemRow[];
  /** Every item of the group in order, beyond this page too: what "Select all" of the group selects. */
  ids: string[];
}

export interface InboxPage {
  groups: InboxGroupView[];
  /** The whole inbox. */
  counts: InboxCounts;
  /** Items waiting (before paging). */
  total: number;
  offset: number;
  limit: number;
  /** The listing's fingerprint (InboxResult.stamp): a page continues the ones on show only when it is the same. */
  stamp: string;
}

/** An entry an inbox item may merge into. */
export interface MergeTarget {
  id: string;
  title: string;
  scope: MemoryEntryView['scope'];
  type: MemoryEntryView['type'];
  body: string;
}

export interface ForgetPreview extends ForgetPlan {
  /** Titles of the ids in `deleted`/`restored`, for people (id when unknown). */
  titles: Record<string, string>;
}

/** What each method answers. */
export interface PanelResults {
  'state/get': PanelState;
  'session/updatePins': null;
  'sessions/more': SessionsMore;
  'draft/updatePins': { refused: { pin: string; reason: string }[] };
  'memory/setOn': null;
  'memory/list': MemoryPage;
  'memory/acknowledge': null;
  'memory/update': MemoryEntryView;
  'memory/remember': MemoryEntryView;
  'memory/approve': MemoryEntryView;
  'memory/flagWrong': MemoryEntryView;
  'memory/consolidate': MemoryEntryView;
  'memory/forgetPreview': ForgetPreview;
  'memory/forget': ForgetPlan;
  'memory/markReviewed': MemoryEntryView;
  'memory/export': string | null;
  /** `summary`: what the import did, in one sentence for people (the host's notification says the same). */
  'memory/import': (ImportResult & { summary: string }) | null;
  'inbox/list': InboxPage;
  'inbox/approve': InboxBulkResult;
  'inbox/acceptRepository': InboxBulkResult;
  'inbox/approveEdited': MemoryEntryView;
  'inbox/reject': InboxBulkResult;
  'inbox/merge': MemoryEntryView;
  'inbox/mergeTargets': MergeTarget[];
  'item/open': null;
  'item/markReviewed': null;
  'item/removeFlaggedLines': null;
  'item/acceptRepositoryReview': null;
  'item/forget': null;
}

/**
 * Why a request failed. `invalid-message`: the webview sent something the schema refuses (nothing changed).
 * `memory-unavailable`: the server has no memory routes. The memory server's own reasons pass through
 * (`flagged`: approving or merging an inbox item that reads as an instruction and was not marked reviewed).
 */
export type PanelErrorReason =
  | 'invalid-message'
  | 'memory-unavailable'
  | 'memory-off'
  | 'readonly'
  | 'scope-full'
  | 'not-found'
  | 'invalid'
  | 'scope-unavailable'
  | 'flagged'
  | 'failed';

export interface PanelError {
  reason: PanelErrorReason;
  message: string;
}

// ---- envelopes ----

export const PanelRequestEnvelopeSchema = z
  .object({
    type: z.literal('request'),
    requestId: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    method: z.enum(PANEL_METHODS as [PanelMethod, ...PanelMethod[]]),
    params: z.unknown(),
  })
  .strict();
export const PanelReadySchema = z.object({ type: z.literal('ready') }).strict();
export const PanelInboundSchema = z.union([PanelReadySchema, PanelRequestEnvelopeSchema]);

export type PanelRequest = { [M in PanelMethod]: { type: 'request'; requestId: number; method: M; params: PanelParams<M> } }[PanelMethod];
export type PanelInbound = { type: 'ready' } | PanelRequest;

export type PanelResponse =
  | { type: 'response'; requestId: number; ok: true; result: PanelResults[PanelMethod] }
  | { type: 'response'; requestId: number | null; ok: false; error: PanelError };

export type PanelOutbound = { type: 'state'; state: PanelState } | { type: 'changed' } | PanelResponse;

/** The webview's persisted view state (`getState`/`setState`). Version it when its shape changes. */
export interface PanelViewState {
  v: 1;
  /** `inbox` is optional: older saved states have none (open by default). */
  open: { sessions: boolean; memory: boolean; flagged: boolean; inbox?: boolean };
  filters: { scope?: string; type?: string; trust?: string; flagged?: boolean; aged?: boolean; query?: string };
  offset: number;
  selected: string[];
  /** The scope and format chosen for export and import (optional: older saved states have none). */
  exchange?: { scope?: string; format?: string };
}

/** The rule text the panel shows on every flagged entry. One sentence, one place. */
export const WITHHELD_WARNING = 'Withheld from the agent — reads as an instruction';
