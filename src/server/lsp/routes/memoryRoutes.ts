/**
 * Owns the memory requests on the wire, registered only when memory exists in this process
 * (SESSION_KNOWLEDGE_MEMORY_ENABLE); a change is followed by `onChanged` so views and blocks refresh.
 */
import type { Connection } from 'vscode-languageserver';
import {
  MemoryApproveRequest,
  MemoryConfigureRequest,
  MemoryConsolidateRequest,
  MemoryExportRequest,
  MemoryFlagWrongRequest,
  MemoryForgetPreviewRequest,
  MemoryForgetRequest,
  MemoryForgetScopeRequest,
  MemoryForgetFlaggedRequest,
  MemoryListFlaggedRequest,
  MemoryImportRequest,
  MemoryListRequest,
  MemoryMarkReviewedRequest,
  MemoryReadRequest,
  MemoryRecallRequest,
  MemoryRememberRequest,
  MemoryStatusRequest,
  MemoryUpdateRequest,
  MemoryDistillSubmitRequest,
  MemoryInboxApproveEditedRequest,
  MemoryInboxApproveRequest,
  MemoryInboxAcceptRepositoryRequest,
  MemoryInboxCountRequest,
  MemoryInboxMergeRequest,
  MemoryInboxRejectRequest,
  MemoryInboxRequest,
  MemorySyncPersonalRequest,
} from '../../../shared/memoryProtocol';
import type { AnyRequestDecl } from '../../../shared/rpc';
import type { MemoryService } from '../../core/memory/memoryService';
import { route, type Handler } from '../routing';

export interface MemoryRouteDeps {
  memory: MemoryService;
  /** Called after every change (the server sends MemoryChangedNotification, re-publishes blocks…). */
  onChanged: () => void;
}

export function registerMemoryRoutes(connection: Connection, deps: MemoryRouteDeps): void {
  const { memory, onChanged } = deps;
  /** A route that changes memory: as `route`, then tell the server once the change is made. */
  const change = <D extends AnyRequestDecl>(decl: D, handler: Handler<D>) =>
    route(connection, decl, async (p) => {
      const result = await handler(p);
      onChanged();
      return result;
    });

  change(MemoryConfigureRequest, (p) => memory.configure(p));
  route(connection, MemoryStatusRequest, () => memory.status());
  route(connection, MemoryListRequest, (p) => memory.list(p));
  route(connection, MemoryRecallRequest, (p) => memory.recall(p));
  route(connection, MemoryReadRequest, (p) =>
    memory.read(p.id, { ...(p.sessionKey !== undefined ? { sessionKey: p.sessionKey } : {}), ...(p.forModel !== undefined ? { forModel: p.forModel } : {}) }),
  );
  change(MemoryRememberRequest, (p) => memory.remember(p));
  change(MemoryUpdateRequest, (p) => memory.update(p));
  change(MemoryApproveRequest, (p) => memory.approve(p.id));
  change(MemoryFlagWrongRequest, (p) => memory.flagWrong(p.id, p.reason));
  change(MemoryConsolidateRequest, (p) => memory.consolidate(p));
  route(connection, MemoryForgetPreviewRequest, (p) => memory.forgetPreview(p.id));
  change(MemoryForgetRequest, (p) => memory.forget(p.id));
  route(connection, MemoryListFlaggedRequest, (p) => memory.listFlagged(p));
  change(MemoryForgetFlaggedRequest, (p) => memory.forgetFlagged(p.id));
  change(MemoryForgetScopeRequest, (p) => memory.forgetScope(p.scope, p.sessionKey, p.folder));
  change(MemoryMarkReviewedRequest, (p) => memory.markReviewed(p.id, p.revision));
  route(connection, MemoryExportRequest, (p) => memory.exportScope(p.scope, p.format, p.folder));
  change(MemoryImportRequest, (p) => memory.importScope(p.scope, p.format, p.text, p.folder !== undefined ? { folder: p.folder } : {}));
  change(MemoryDistillSubmitRequest, (p) => memory.submitDistilled(p));
  route(connection, MemoryInboxRequest, (p) => memory.inbox(p));
  route(connection, MemoryInboxCountRequest, () => memory.inboxCounts());
  change(MemoryInboxApproveRequest, (p) => memory.approveItems(p.ids));
  change(MemoryInboxAcceptRepositoryRequest, (p) => memory.acceptRepository(p.folder));
  change(MemoryInboxApproveEditedRequest, (p) => memory.approveEdited(p));
  change(MemoryInboxRejectRequest, (p) => memory.rejectItems(p.ids, p.reason));
  change(MemoryInboxMergeRequest, (p) => memory.mergeItem(p));
  // Announced only when something arrived: a sync that changed nothing must not start another.
  route(connection, MemorySyncPersonalRequest, async (p) => {
    const result = await memory.syncPersonal(p);
    if (result.added.length + result.updated.length + result.conflicts.length > 0) onChanged();
    return result;
  });
}
