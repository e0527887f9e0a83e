/**
 * The custom language-server protocol of Session Knowledge. Every message is declared here once, with its
 * direction: its method (under `knowledge/`), its params zod schema (from `./schemas`) and its result type
 * (see `./rpc`). The server routes from these declarations and validates params before any handler runs;
 * both sides use the typed constants (`X.type`), never a bare method string.
 */
import { defineNotification, defineNotification0, defineRequest, defineRequest0 } from './rpc';
import {
  CreateItemParamsSchema,
  ItemsChangedSchema,
  ListItemsParamsSchema,
  StoreProblemSchema,
  type KnowledgeItem,
  type ServerStatus,
  type Stats,
  type WorkspaceFoldersInfo,
} from './schemas';
import { RenamePinParamsSchema, UpdateAgentPinsParamsSchema, UpdateDraftPinsParamsSchema, type UpdateDraftPinsResult } from './pinIdSchemas';
import {
  AppendResultParamsSchema,
  ClaimScheduledRunParamsSchema,
  CompileAgentBlockParamsSchema,
  CompilePinsParamsSchema,
  CreateSessionParamsSchema,
  ListSessionsPageParamsSchema,
  MarkDeliveredParamsSchema,
  PruneSessionsParamsSchema,
  ResolveParamsSchema,
  SessionKeyParamsSchema,
  SetPinnedMessagesParamsSchema,
  SetSessionPinsParamsSchema,
  NameSessionParamsSchema,
  UpdateSessionPinsParamsSchema,
  type ClaimScheduledRunResult,
  type DeleteSessionResult,
  type PruneSessionsResult,
  type PendingBlock,
  type SessionInfo,
  type SessionsPage,
} from './sessionSchemas';
import {
  JudgeFileParamsSchema,
  JudgeTextsParamsSchema,
  MarkReviewedParamsSchema,
  AcceptRepositoryReviewParamsSchema,
  AcceptRepositoryReviewsParamsSchema,
  RepositoryReviewsParamsSchema,
  type JudgeFileResult,
  type JudgeTextsResult,
  type ReviewRecord,
  type RepositoryReviewsResult,
} from './reviewSchemas';

/** Client → server: who the server is (pid, start time); used for health checks and restart tests. */
export const StatusRequest = defineRequest0('knowledge/status')<ServerStatus>();

/**
 * Client → server: the workspace's folders as the server indexes them — the name each one's ids start with (when
 * there is more than one), its path, and whether it has `.knowledge/`. Folders change through the standard
 * `workspace/didChangeWorkspaceFolders`; the server then sends ItemsChanged.
 */
export const WorkspaceFoldersRequest = defineRequest0('knowledge/workspace/folders')<WorkspaceFoldersInfo>();

/** Client → server: the indexed notes and plans of every folder, by folder, then by kind and title. */
export const ListItemsRequest = defineRequest('knowledge/listItems', ListItemsParamsSchema)<KnowledgeItem[]>();

/** Client → server: create `.knowledge/{notes|plans}/<slug>.md` with a heading; answers the new item. */
export const CreateItemRequest = defineRequest('knowledge/createItem', CreateItemParamsSchema)<KnowledgeItem>();

/** Client → server: counts, store health and problems (the same report as `session-knowledge stats`). */
export const StatsRequest = defineRequest0('knowledge/stats')<Stats>();

/** Client → server: the "pin to next chat" draft (ids that pass into the next session created). */
export const GetDraftPinsRequest = defineRequest0('knowledge/getDraftPins')<string[]>();

/**
 * Client → server: add/remove "pin to next chat" draft pins in one atomic update. Secret files and files
 * outside the workspace are refused (listed in `refused`) and nothing changes for them.
 */
export const UpdateDraftPinsRequest = defineRequest('knowledge/updateDraftPins', UpdateDraftPinsParamsSchema)<UpdateDraftPinsResult>();

/** Client → server: re-read every source from disk (after a pull, or by the person's request). */
export const ReindexRequest = defineRequest0('knowledge/reindex')<number>();

/** Server → client: the note/plan index changed (created, edited, renamed or deleted on disk). */
export const ItemsChangedNotification = defineNotification('knowledge/itemsChanged', ItemsChangedSchema);

/** Server → client: a source could not be loaded (malformed file set aside, unreadable folder). */
export const ProblemNotification = defineNotification('knowledge/problem', StoreProblemSchema);

/** Server → client: the store changed (sessions, draft pins); views refresh. */
export const StoreChangedNotification = defineNotification0('knowledge/storeChanged');

// ---- sessions ------------------------------------------------------------------------------------
// Errors from these carry `data: { reason }` with reason 'unknown-session' | 'refused-pin' | 'no-workspace'.

/** Client → server: create a session (the chat UI's first message passes `consumeDraft: true`). */
export const CreateSessionRequest = defineRequest('knowledge/sessions/create', CreateSessionParamsSchema)<SessionInfo>();

/** Client → server: one session's metadata. */
export const GetSessionRequest = defineRequest('knowledge/sessions/get', SessionKeyParamsSchema)<SessionInfo>();

/**
 * Client → server: every session of this workspace, newest first. Reads every session's file: for the commands that
 * need them all (the delete picker, scheduled results); the panel pages with `ListSessionsPageRequest`.
 */
export const ListSessionsRequest = defineRequest0('knowledge/sessions/list')<SessionInfo[]>();

/** Client → server: one page of sessions, newest first (`limit`, and the `next` cursor of the page before). */
export const ListSessionsPageRequest = defineRequest('knowledge/sessions/page', ListSessionsPageParamsSchema)<SessionsPage>();

/**
 * Client → server: give a session without a name its name (a name once given stays: a chat keeps the name of its
 * first prompt). Bookkeeping, not activity. Answers the session as it is after.
 */
export const NameSessionRequest = defineRequest('knowledge/sessions/name', NameSessionParamsSchema)<SessionInfo>();

/** Client → server: replace a session's pins. Refuses (and changes nothing) if any pin is a secret or outside. */
export const SetSessionPinsRequest = defineRequest('knowledge/sessions/setPins', SetSessionPinsParamsSchema)<SessionInfo>();

/** Client → server: add/remove a session's pins atomically. Same refusals as setPins. */
export const UpdateSessionPinsRequest = defineRequest('knowledge/sessions/updatePins', UpdateSessionPinsParamsSchema)<SessionInfo>();

/** Client → server: the chat messages pinned to survive compaction. */
export const SetPinnedMessagesRequest = defineRequest('knowledge/sessions/setPinnedMessages', SetPinnedMessagesParamsSchema)<SessionInfo>();

/** Client → server: delete a session and, with it, its session-scope memory (a session's memory dies with it). */
export const DeleteSessionRequest = defineRequest('knowledge/sessions/delete', SessionKeyParamsSchema)<DeleteSessionResult>();

/** Client → server: pins follow a rename made in VS Code (every session, the draft and the agent pins). Answers pins changed. */
export const RenamePinRequest = defineRequest('knowledge/sessions/renamePin', RenamePinParamsSchema)<number>();

/**
 * Client → server: retention (`sessionKnowledge.sessionRetentionDays`). Removes sessions with no activity for that
 * many days — their pins and delivery records — and their session-scope memory. Sent when a server starts and when
 * the setting changes.
 */
export const PruneSessionsRequest = defineRequest('knowledge/sessions/prune', PruneSessionsParamsSchema)<PruneSessionsResult>();

// ---- delivery ------------------------------------------------------------------------------------

/**
 * Client → server: what the session is owed now; `text` '' when it already carries the signature. Records nothing:
 * no file is written and the session's last activity does not move. `tokensPerChar` (the model's own): cut once.
 */
export const ResolvePendingRequest = defineRequest('knowledge/delivery/resolvePending', ResolveParamsSchema)<PendingBlock>();

/** Client → server: the send carrying `signature` was accepted; record it as delivered. */
export const MarkDeliveredRequest = defineRequest('knowledge/delivery/markDelivered', MarkDeliveredParamsSchema)<SessionInfo>();

/** Client → server: the session was compacted and lost its block; answers the full block to re-send in its own turn. */
export const NotifyCompactedRequest = defineRequest('knowledge/delivery/notifyCompacted', ResolveParamsSchema)<PendingBlock>();

/** Client → server: the block for a list of pins, outside any session (the `knowledge_context` tool, previews). */
export const CompilePinsRequest = defineRequest('knowledge/delivery/compilePins', CompilePinsParamsSchema)<PendingBlock>();

/** Client → server: keep the answer of a scheduled or dispatched prompt with its session (newest 20 kept). */
export const AppendResultRequest = defineRequest('knowledge/sessions/appendResult', AppendResultParamsSchema)<SessionInfo>();

/**
 * Client → server: claim a scheduled prompt's time slot. Atomic across windows: exactly one caller gets
 * `claimed: true` for a slot. Creates the schedule's session (origin 'schedule', label = name) on first use
 * and keeps its pins in step with the configuration.
 */
export const ClaimScheduledRunRequest = defineRequest('knowledge/schedule/claim', ClaimScheduledRunParamsSchema)<ClaimScheduledRunResult>();

// ---- agent pins (`.knowledge/pins.json`: what agents outside `@knowledge` carry) ---------------------
// Changes are announced with StoreChangedNotification, as draft pins are.

/**
 * Client → server: the agent pins, read from `.knowledge/pins.json` now. `refused` lists entries of a hand-edited
 * file that the pin policy refuses (secrets, outside the workspace): agents never get those. A malformed file is
 * set aside and reported (ProblemNotification), and reads as no pins.
 */
export const GetAgentPinsRequest = defineRequest0('knowledge/agents/getPins')<UpdateDraftPinsResult>();

/**
 * Client → server: add/remove agent pins in one locked, atomic update of `.knowledge/pins.json`. Secret files and
 * files outside the workspace are refused (listed in `refused`, with the reason) and nothing changes for them.
 */
export const UpdateAgentPinsRequest = defineRequest('knowledge/agents/updatePins', UpdateAgentPinsParamsSchema)<UpdateDraftPinsResult>();

/** Client → server: the block agents get for the agent pins, compiled now (flagged items withheld). Records nothing. */
export const CompileAgentBlockRequest = defineRequest('knowledge/agents/compile', CompileAgentBlockParamsSchema)<PendingBlock>();

// ---- threat findings -----------------------------------------------------------------------------

/** Client → server: judge one workspace file now (current rule set, reviews applied). */
export const JudgeFileRequest = defineRequest('knowledge/threat/judgeFile', JudgeFileParamsSchema)<JudgeFileResult | null>();

/**
 * Client → server: a person marks a flagged file "reviewed — not a threat" for exactly this revision under
 * the current rule set. Fails when the file changed since (`revision` no longer matches) or is not flagged.
 */
export const MarkReviewedRequest = defineRequest('knowledge/threat/markReviewed', MarkReviewedParamsSchema)<ReviewRecord>();

/**
 * Client → server: this person accepts the repository's review (the team's record in `.knowledge/reviews.json`) of a
 * file as it is now into their own record. Until then that review is shown, never obeyed. Fails when the repository
 * has no review of this revision under the current rule set.
 */
export const AcceptRepositoryReviewRequest = defineRequest('knowledge/threat/acceptRepositoryReview', AcceptRepositoryReviewParamsSchema)<ReviewRecord>();

/** Client → server: the repository's reviews (current rule set) this person has not accepted, per folder. */
export const RepositoryReviewsRequest = defineRequest('knowledge/threat/repositoryReviews', RepositoryReviewsParamsSchema)<RepositoryReviewsResult>();

/** Client → server: accept these of a folder's repository reviews (listed first by `RepositoryReviewsRequest`). Answers those accepted. */
export const AcceptRepositoryReviewsRequest = defineRequest('knowledge/threat/acceptRepositoryReviews', AcceptRepositoryReviewsParamsSchema)<ReviewRecord[]>();

/**
 * Client → server: judge texts now (current rule set, reviews applied for texts that carry a pin id) — what
 * `@knowledge` replays to the model (earlier blocks, pinned messages, the compaction summary) before it is sent.
 */
export const JudgeTextsRequest = defineRequest('knowledge/threat/judgeTexts', JudgeTextsParamsSchema)<JudgeTextsResult>();
