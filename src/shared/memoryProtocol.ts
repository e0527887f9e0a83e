/**
 * Memory requests (client → server), declared as in `protocol.ts`: method, params schema (from
 * `./memorySchemas`) and result type in one place. Registered by the server ONLY when
 * SESSION_KNOWLEDGE_MEMORY_ENABLE is set (`initializationOptions.memoryEnabled`); otherwise every one answers
 * MethodNotFound. While the person has memory off, mutations answer an error with `data.reason = 'memory-off'`
 * (but a flagged entry can still be listed and forgotten: listFlagged, forgetFlagged); in readonly mode, `'readonly'`; a full scope, `'scope-full'` (the message lists its titles); a bad id,
 * `'not-found'`.
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
  PersonalSyncParamsSchema,
  RecallParamsSchema,
  RememberParamsSchema,
  UpdateMemoryParamsSchema,
  type ForgetPlan,
  type ImportResult,
  type MemoryEntryView,
  type MemoryListResult,
  type MemoryStatus,
  type PersonalSyncResult,
} from './memorySchemas';

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
/**
 * Client → server: personal memory through Settings Sync — merge what arrived (by id and revision against the
 * machine's `base`), answer the approved, unflagged personal entries to send. Every arriving entry is judged at once.
 */
export const MemorySyncPersonalRequest = defineRequest('knowledge/memory/syncPersonal', PersonalSyncParamsSchema)<PersonalSyncResult>();
/** Server → client: memory changed (a tool call, another window, a file changed on disk). */
export const MemoryChangedNotification = defineNotification0('knowledge/memory/changed');
