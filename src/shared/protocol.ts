/* eslint-disable @typescript-eslint/no-namespace -- the vscode-eslint convention: one namespace per message, holding its method and type */
/**
 * The custom language-server protocol of Session Knowledge. Every method is declared here once, with its
 * direction, and both sides use the typed constants (`X.type`), never a bare method string.
 * Params are validated with the zod schemas in `./schemas` by the server before any handler runs.
 */
import { NotificationType, NotificationType0, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type {
  DeleteSessionResult,
  JudgeFileParams,
  JudgeFileResult,
  MarkReviewedParams,
  ReviewRecord,
  AppendResultParams,
  ClaimScheduledRunParams,
  ClaimScheduledRunResult,
  CompilePinsParams,
  CreateSessionParams,
  MarkDeliveredParams,
  PendingBlock,
  RenamePinParams,
  ResolveParams,
  SessionInfo,
  SessionKeyParams,
  SetPinnedMessagesParams,
  SetSessionPinsParams,
  UpdateSessionPinsParams,
  CreateItemParams,
  ItemsChanged,
  KnowledgeItem,
  ListItemsParams,
  ServerStatus,
  UpdateDraftPinsParams,
  UpdateDraftPinsResult,
  Stats,
  StoreProblem,
} from './schemas';

/** Client → server: who the server is (pid, start time); used for health checks and restart tests. */
export namespace StatusRequest {
  export const method = 'knowledge/status' as const;
  export const type = new RequestType0<ServerStatus, void>(method);
}

/** Client → server: the indexed notes and plans, sorted by kind then title. */
export namespace ListItemsRequest {
  export const method = 'knowledge/listItems' as const;
  export const type = new RequestType<ListItemsParams, KnowledgeItem[], void>(method);
}

/** Client → server: create `.knowledge/{notes|plans}/<slug>.md` with a heading; answers the new item. */
export namespace CreateItemRequest {
  export const method = 'knowledge/createItem' as const;
  export const type = new RequestType<CreateItemParams, KnowledgeItem, void>(method);
}

/** Client → server: counts, store health and problems (the same report as `session-knowledge stats`). */
export namespace StatsRequest {
  export const method = 'knowledge/stats' as const;
  export const type = new RequestType0<Stats, void>(method);
}

/** Client → server: the "pin to next chat" draft (ids that pass into the next session created). */
export namespace GetDraftPinsRequest {
  export const method = 'knowledge/getDraftPins' as const;
  export const type = new RequestType0<string[], void>(method);
}

/**
 * Client → server: add/remove "pin to next chat" draft pins in one atomic update. Secret files and files
 * outside the workspace are refused (listed in `refused`) and nothing changes for them.
 */
export namespace UpdateDraftPinsRequest {
  export const method = 'knowledge/updateDraftPins' as const;
  export const type = new RequestType<UpdateDraftPinsParams, UpdateDraftPinsResult, void>(method);
}

/** Client → server: re-read every source from disk (after a pull, or by the person's request). */
export namespace ReindexRequest {
  export const method = 'knowledge/reindex' as const;
  export const type = new RequestType0<number, void>(method);
}

/** Server → client: the note/plan index changed (created, edited, renamed or deleted on disk). */
export namespace ItemsChangedNotification {
  export const method = 'knowledge/itemsChanged' as const;
  export const type = new NotificationType<ItemsChanged>(method);
}

/** Server → client: a source could not be loaded (malformed file set aside, unreadable folder). */
export namespace ProblemNotification {
  export const method = 'knowledge/problem' as const;
  export const type = new NotificationType<StoreProblem>(method);
}

/** Server → client: the store changed (sessions, draft pins); views refresh. */
export namespace StoreChangedNotification {
  export const method = 'knowledge/storeChanged' as const;
  export const type = new NotificationType0(method);
}

// ---- sessions ------------------------------------------------------------------------------------
// Errors from these carry `data: { reason }` with reason 'unknown-session' | 'refused-pin' | 'no-workspace'.

/** Client → server: create a session (the chat UI's first message passes `consumeDraft: true`). */
export namespace CreateSessionRequest {
  export const method = 'knowledge/sessions/create' as const;
  export const type = new RequestType<CreateSessionParams, SessionInfo, void>(method);
}

/** Client → server: one session's metadata. */
export namespace GetSessionRequest {
  export const method = 'knowledge/sessions/get' as const;
  export const type = new RequestType<SessionKeyParams, SessionInfo, void>(method);
}

/** Client → server: every session of this workspace, newest first. */
export namespace ListSessionsRequest {
  export const method = 'knowledge/sessions/list' as const;
  export const type = new RequestType0<SessionInfo[], void>(method);
}

/** Client → server: replace a session's pins. Refuses (and changes nothing) if any pin is a secret or outside. */
export namespace SetSessionPinsRequest {
  export const method = 'knowledge/sessions/setPins' as const;
  export const type = new RequestType<SetSessionPinsParams, SessionInfo, void>(method);
}

/** Client → server: add/remove a session's pins atomically. Same refusals as setPins. */
export namespace UpdateSessionPinsRequest {
  export const method = 'knowledge/sessions/updatePins' as const;
  export const type = new RequestType<UpdateSessionPinsParams, SessionInfo, void>(method);
}

/** Client → server: the chat messages pinned to survive compaction. */
export namespace SetPinnedMessagesRequest {
  export const method = 'knowledge/sessions/setPinnedMessages' as const;
  export const type = new RequestType<SetPinnedMessagesParams, SessionInfo, void>(method);
}

/** Client → server: delete a session and, with it, its session-scope memory (a session's memory dies with it). */
export namespace DeleteSessionRequest {
  export const method = 'knowledge/sessions/delete' as const;
  export const type = new RequestType<SessionKeyParams, DeleteSessionResult, void>(method);
}

/** Client → server: pins follow a rename made in VS Code (every session and the draft). Answers pins changed. */
export namespace RenamePinRequest {
  export const method = 'knowledge/sessions/renamePin' as const;
  export const type = new RequestType<RenamePinParams, number, void>(method);
}

// ---- delivery ------------------------------------------------------------------------------------

/** Client → server: what the session is owed now; `text` '' when it already carries the signature. Records nothing. */
export namespace ResolvePendingRequest {
  export const method = 'knowledge/delivery/resolvePending' as const;
  export const type = new RequestType<ResolveParams, PendingBlock, void>(method);
}

/** Client → server: the send carrying `signature` was accepted; record it as delivered. */
export namespace MarkDeliveredRequest {
  export const method = 'knowledge/delivery/markDelivered' as const;
  export const type = new RequestType<MarkDeliveredParams, SessionInfo, void>(method);
}

/** Client → server: the session was compacted and lost its block; answers the full block to re-send in its own turn. */
export namespace NotifyCompactedRequest {
  export const method = 'knowledge/delivery/notifyCompacted' as const;
  export const type = new RequestType<ResolveParams, PendingBlock, void>(method);
}

/** Client → server: the block for a list of pins, outside any session (the `knowledge_context` tool, previews). */
export namespace CompilePinsRequest {
  export const method = 'knowledge/delivery/compilePins' as const;
  export const type = new RequestType<CompilePinsParams, PendingBlock, void>(method);
}

/** Client → server: keep the answer of a scheduled or dispatched prompt with its session (newest 20 kept). */
export namespace AppendResultRequest {
  export const method = 'knowledge/sessions/appendResult' as const;
  export const type = new RequestType<AppendResultParams, SessionInfo, void>(method);
}

/**
 * Client → server: claim a scheduled prompt's time slot. Atomic across windows: exactly one caller gets
 * `claimed: true` for a slot. Creates the schedule's session (origin 'schedule', label = name) on first use
 * and keeps its pins in step with the configuration.
 */
export namespace ClaimScheduledRunRequest {
  export const method = 'knowledge/schedule/claim' as const;
  export const type = new RequestType<ClaimScheduledRunParams, ClaimScheduledRunResult, void>(method);
}

// ---- threat findings -----------------------------------------------------------------------------

/** Client → server: judge one workspace file now (current rule set, reviews applied). */
export namespace JudgeFileRequest {
  export const method = 'knowledge/threat/judgeFile' as const;
  export const type = new RequestType<JudgeFileParams, JudgeFileResult | null, void>(method);
}

/**
 * Client → server: a person marks a flagged file "reviewed — not a threat" for exactly this revision under
 * the current rule set. Fails when the file changed since (`revision` no longer matches) or is not flagged.
 */
export namespace MarkReviewedRequest {
  export const method = 'knowledge/threat/markReviewed' as const;
  export const type = new RequestType<MarkReviewedParams, ReviewRecord, void>(method);
}
