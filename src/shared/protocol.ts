/* eslint-disable @typescript-eslint/no-namespace -- the vscode-eslint convention: one namespace per message, holding its method and type */
/**
 * The custom language-server protocol of Session Knowledge. Every method is declared here once, with its
 * direction, and both sides use the typed constants (`X.type`), never a bare method string.
 * Params are validated with the zod schemas in `./schemas` by the server before any handler runs.
 */
import { NotificationType, NotificationType0, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type {
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
