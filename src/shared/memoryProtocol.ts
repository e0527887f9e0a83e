/**
 * Memory requests (client → server), declared as in `protocol.ts`: method, params schema (from
 * `./memorySchemas`) and result type in one place. Registered by the server ONLY when
 * SESSION_KNOWLEDGE_MEMORY_ENABLE is set (`initializationOptions.memoryEnabled`); otherwise every one answers
 * MethodNotFound. While the person has memory off, mutations answer an error with `data.reason = 'memory-off'`
 * (but a flagged entry can still be listed and forgotten: listFlagged, forgetFlagged); in readonly mode, `'readonly'`; a full scope, `'scope-full'` (the message lists its titles); a bad id,
 * `'not-found'`; approving (or merging) an inbox item the threat scan flags, `'flagged'`.
 *
 * Distillation and the decision inbox: the extension asks the model (the conversation inside the untrusted
 * envelope) and submits its validated proposals; the server classifies each (new, update of the entry it
 * restates, conflict with the approved decision it contradicts), stores it as a PENDING entry carrying a
 * `proposal` record, and never lets a proposal reach a model before a person approves it. The inbox lists
 * proposals and pending agent entries, grouped by session.
 *
 * The flagged rule: every proposal is scanned like any write and stays flagged (with its rule) in the inbox.
 * Approving or merging a flagged item is REFUSED (`'flagged'`, per id in a bulk result) until a person marks
 * that exact revision "Reviewed — not a threat" (MemoryMarkReviewedRequest) — the explicit override; an edit
 * makes a new revision, judged again.
 */
import { defineNotification0, defineRequest, defineRequest0 } from './rpc';
import {
  ConsolidateParamsSchema,
  ExportParamsSchema,
  FlagWrongParamsSchema,
  ForgetScopeParamsSchema,
  ImportParamsSchema,
  MarkMemoryReviewedParamsSchema,
  MemoryConfigSchema,
  MemoryIdParamsSchema,
  MemoryListParamsSchema,
  MemoryReadParamsSchema,
  RecallParamsSchema,
  RememberParamsSchema,
  UpdateMemoryParamsSchema,
  type ForgetPlan,
  type ImportResult,
  type MemoryEntryView,
  type MemoryListResult,
  type MemoryStatus,
} from './memorySchemas';
import {
  DistillSubmitParamsSchema,
  InboxApproveEditedParamsSchema,
  InboxIdsParamsSchema,
  InboxMergeParamsSchema,
  InboxParamsSchema,
  InboxRejectParamsSchema,
  InboxAcceptRepositoryParamsSchema,
  type DistillSubmitResult,
  type InboxBulkResult,
  type InboxCounts,
  type InboxResult,
} from './inboxSchemas';
import { PersonalSyncParamsSchema, type PersonalSyncResult } from './personalSyncSchemas';

export const MemoryConfigureRequest = defineRequest('knowledge/memory/configure', MemoryConfigSchema)<MemoryStatus>();
export const MemoryStatusRequest = defineRequest0('knowledge/memory/status')<MemoryStatus>();
/** People's view: every entry, flagged ones included with their findings. Paged. */
export const MemoryListRequest = defineRequest('knowledge/memory/list', MemoryListParamsSchema)<MemoryListResult>();
/** A model's view: never flagged, aged, legacy, or another session's pending entries. */
export const MemoryRecallRequest = defineRequest('knowledge/memory/recall', RecallParamsSchema)<MemoryEntryView[]>();
/** One entry. With `sessionKey` (a model asking): undefined-as-null when the model may not see it. */
export const MemoryReadRequest = defineRequest('knowledge/memory/read', MemoryReadParamsSchema)<MemoryEntryView | null>();
export const MemoryRememberRequest = defineRequest('knowledge/memory/remember', RememberParamsSchema)<MemoryEntryView>();
export const MemoryUpdateRequest = defineRequest('knowledge/memory/update', UpdateMemoryParamsSchema)<MemoryEntryView>();
export const MemoryApproveRequest = defineRequest('knowledge/memory/approve', MemoryIdParamsSchema)<MemoryEntryView>();
export const MemoryFlagWrongRequest = defineRequest('knowledge/memory/flagWrong', FlagWrongParamsSchema)<MemoryEntryView>();
export const MemoryConsolidateRequest = defineRequest('knowledge/memory/consolidate', ConsolidateParamsSchema)<MemoryEntryView>();
/** What forgetting would delete and restore, shown before the person confirms. Changes nothing. */
export const MemoryForgetPreviewRequest = defineRequest('knowledge/memory/forgetPreview', MemoryIdParamsSchema)<ForgetPlan>();
export const MemoryForgetRequest = defineRequest('knowledge/memory/forget', MemoryIdParamsSchema)<ForgetPlan>();
/** People's view of the flagged entries, with their findings — answered with memory on or off (a committed attack is visible). */
export const MemoryListFlaggedRequest = defineRequest('knowledge/memory/listFlagged', MemoryListParamsSchema)<MemoryListResult>();
/** Deletes one flagged entry (what it superseded comes back), with memory on or off; refused for an entry not flagged. */
export const MemoryForgetFlaggedRequest = defineRequest('knowledge/memory/forgetFlagged', MemoryIdParamsSchema)<ForgetPlan>();
export const MemoryForgetScopeRequest = defineRequest('knowledge/memory/forgetScope', ForgetScopeParamsSchema)<{ deleted: number }>();
export const MemoryMarkReviewedRequest = defineRequest('knowledge/memory/markReviewed', MarkMemoryReviewedParamsSchema)<MemoryEntryView>();
export const MemoryExportRequest = defineRequest('knowledge/memory/export', ExportParamsSchema)<string>();
export const MemoryImportRequest = defineRequest('knowledge/memory/import', ImportParamsSchema)<ImportResult>();

// ---- distillation and the decision inbox (client → server) ---------------------------------------------

/**
 * The model's validated proposals for one session (the extension built the prompt and called the model; the
 * transcript itself never crosses). Each is checked again, secrets refused, classified — `update` of the entry it
 * restates (with a diff in the inbox), `conflict` with the approved decision it contradicts (the model's
 * `contradicts` hint, or a restatement of opposite polarity), else `new` — and stored pending in one write per
 * scope. Restatements of a pending or rejected proposal, duplicates within the answer and turns past `turns`
 * are skipped, each with its reason. Answers the stored items (flagged ones with their findings) and the skips.
 */
export const MemoryDistillSubmitRequest = defineRequest('knowledge/memory/distill/submit', DistillSubmitParamsSchema)<DistillSubmitResult>();
/**
 * The decision inbox for people: pending proposals and pending agent (and imported) entries, grouped by session
 * (newest first), each with its findings, and for an update or a conflict its target and a word-level diff.
 * Counts per group and for the whole inbox. Paged over items. Empty while memory is off.
 */
export const MemoryInboxRequest = defineRequest('knowledge/memory/inbox', InboxParamsSchema)<InboxResult>();
/** The inbox counts only (the status bar and panel badges): cheap, no views built. All zero while memory is off. */
export const MemoryInboxCountRequest = defineRequest0('knowledge/memory/inbox/count')<InboxCounts>();
/**
 * Approves inbox items in bulk. A proposal becomes an approved entry keeping `provenance.distilledFrom`; an update
 * or a conflict supersedes its target and records the session (`supersededInSession`). An agent entry becomes
 * approved. Refused per id, the rest going ahead: flagged and not reviewed (`flagged`), not in the inbox
 * (`invalid`), gone (`not-found`), a full scope (`scope-full`).
 */
export const MemoryInboxApproveRequest = defineRequest('knowledge/memory/inbox/approve', InboxIdsParamsSchema)<InboxBulkResult>();
/**
 * Edit then approve one item. The edit is saved first (a new revision, judged again, secrets refused); when the
 * edited text is flagged the approval is refused (`flagged`) and the edited item stays in the inbox.
 */
export const MemoryInboxApproveEditedRequest = defineRequest('knowledge/memory/inbox/approveEdited', InboxApproveEditedParamsSchema)<MemoryEntryView>();
/**
 * "Accept all from the repository": every project entry of one folder (by name; every folder when none is named) whose
 * committed line says approved and that this person has not approved or accepted here. Records this person's
 * acceptance of each revision in their own record; the committed file is not changed. Flagged ones are refused
 * (`flagged`) until reviewed. Accepting one item is MemoryInboxApproveRequest with its id.
 */
export const MemoryInboxAcceptRepositoryRequest = defineRequest('knowledge/memory/inbox/acceptRepository', InboxAcceptRepositoryParamsSchema)<InboxBulkResult>();
/** Rejects inbox items in bulk, keeping the optional reason. A rejected item is kept for the record, reaches no model, and a later distillation does not propose it again. */
export const MemoryInboxRejectRequest = defineRequest('knowledge/memory/inbox/reject', InboxRejectParamsSchema)<InboxBulkResult>();
/**
 * Merges an inbox item into an existing active entry: the entry takes the merged text (approved by the person) and,
 * in the same scope, records the item in `consolidatedFrom` (forgetting follows it); across scopes the item is
 * removed. Refused for a flagged item (`flagged`). Answers the updated entry.
 */
export const MemoryInboxMergeRequest = defineRequest('knowledge/memory/inbox/merge', InboxMergeParamsSchema)<MemoryEntryView>();

/**
 * Client → server: personal memory through Settings Sync — merge what arrived (by id and revision against the
 * machine's `base`), answer the approved, unflagged personal entries to send. Every arriving entry is judged at once.
 */
export const MemorySyncPersonalRequest = defineRequest('knowledge/memory/syncPersonal', PersonalSyncParamsSchema)<PersonalSyncResult>();
/** Server → client: memory changed (a tool call, another window, a file changed on disk). */
export const MemoryChangedNotification = defineNotification0('knowledge/memory/changed');
