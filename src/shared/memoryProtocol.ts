/* eslint-disable @typescript-eslint/no-namespace -- one namespace per message, as in protocol.ts */
/**
 * Memory requests (client → server). Registered by the server ONLY when SESSION_KNOWLEDGE_MEMORY_ENABLE is
 * set (`initializationOptions.memoryEnabled`); otherwise every one answers MethodNotFound. While the person
 * has memory off, mutations answer an error with `data.reason = 'memory-off'`; in readonly mode,
 * `'readonly'`; a full scope, `'scope-full'` (the message lists its titles); a bad id, `'not-found'`.
 */
import { NotificationType0, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type {
  ConsolidateParams,
  ExportParams,
  FlagWrongParams,
  ForgetPlan,
  ForgetScopeParams,
  ImportParams,
  ImportResult,
  MarkMemoryReviewedParams,
  MemoryConfig,
  MemoryEntryView,
  MemoryIdParams,
  MemoryListParams,
  MemoryListResult,
  MemoryStatus,
  RecallParams,
  RememberParams,
  UpdateMemoryParams,
} from './memorySchemas';

export namespace MemoryConfigureRequest {
  export const method = 'knowledge/memory/configure' as const;
  export const type = new RequestType<MemoryConfig, MemoryStatus, void>(method);
}
export namespace MemoryStatusRequest {
  export const method = 'knowledge/memory/status' as const;
  export const type = new RequestType0<MemoryStatus, void>(method);
}
/** People's view: every entry, flagged ones included with their findings. Paged. */
export namespace MemoryListRequest {
  export const method = 'knowledge/memory/list' as const;
  export const type = new RequestType<MemoryListParams, MemoryListResult, void>(method);
}
/** A model's view: never flagged, aged, legacy, or another session's pending entries. */
export namespace MemoryRecallRequest {
  export const method = 'knowledge/memory/recall' as const;
  export const type = new RequestType<RecallParams, MemoryEntryView[], void>(method);
}
/** One entry. With `sessionKey` (a model asking): undefined-as-null when the model may not see it. */
export namespace MemoryReadRequest {
  export const method = 'knowledge/memory/read' as const;
  export const type = new RequestType<MemoryIdParams & { forModel?: boolean }, MemoryEntryView | null, void>(method);
}
export namespace MemoryRememberRequest {
  export const method = 'knowledge/memory/remember' as const;
  export const type = new RequestType<RememberParams, MemoryEntryView, void>(method);
}
export namespace MemoryUpdateRequest {
  export const method = 'knowledge/memory/update' as const;
  export const type = new RequestType<UpdateMemoryParams, MemoryEntryView, void>(method);
}
export namespace MemoryApproveRequest {
  export const method = 'knowledge/memory/approve' as const;
  export const type = new RequestType<MemoryIdParams, MemoryEntryView, void>(method);
}
export namespace MemoryFlagWrongRequest {
  export const method = 'knowledge/memory/flagWrong' as const;
  export const type = new RequestType<FlagWrongParams, MemoryEntryView, void>(method);
}
export namespace MemoryConsolidateRequest {
  export const method = 'knowledge/memory/consolidate' as const;
  export const type = new RequestType<ConsolidateParams, MemoryEntryView, void>(method);
}
/** What forgetting would delete and restore, shown before the person confirms. Changes nothing. */
export namespace MemoryForgetPreviewRequest {
  export const method = 'knowledge/memory/forgetPreview' as const;
  export const type = new RequestType<MemoryIdParams, ForgetPlan, void>(method);
}
export namespace MemoryForgetRequest {
  export const method = 'knowledge/memory/forget' as const;
  export const type = new RequestType<MemoryIdParams, ForgetPlan, void>(method);
}
export namespace MemoryForgetScopeRequest {
  export const method = 'knowledge/memory/forgetScope' as const;
  export const type = new RequestType<ForgetScopeParams, { deleted: number }, void>(method);
}
export namespace MemoryMarkReviewedRequest {
  export const method = 'knowledge/memory/markReviewed' as const;
  export const type = new RequestType<MarkMemoryReviewedParams, MemoryEntryView, void>(method);
}
export namespace MemoryExportRequest {
  export const method = 'knowledge/memory/export' as const;
  export const type = new RequestType<ExportParams, string, void>(method);
}
export namespace MemoryImportRequest {
  export const method = 'knowledge/memory/import' as const;
  export const type = new RequestType<ImportParams, ImportResult, void>(method);
}
/** Server → client: memory changed (a tool call, another window, a file changed on disk). */
export namespace MemoryChangedNotification {
  export const method = 'knowledge/memory/changed' as const;
  export const type = new NotificationType0(method);
}
