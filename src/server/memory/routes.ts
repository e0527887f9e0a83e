/**
 * The memory requests on the language-server connection. Registered only when memory exists in this
 * process (SESSION_KNOWLEDGE_MEMORY_ENABLE); every param is validated with its zod schema through
 * `runSafe`, and a MemoryError becomes a ResponseError with MEMORY_ERROR_CODE and `data.reason`.
 */
import { ResponseError, type Connection } from 'vscode-languageserver';
import { z } from 'zod';
import {
  MemoryApproveRequest,
  MemoryConfigureRequest,
  MemoryConsolidateRequest,
  MemoryExportRequest,
  MemoryFlagWrongRequest,
  MemoryForgetPreviewRequest,
  MemoryForgetRequest,
  MemoryForgetScopeRequest,
  MemoryImportRequest,
  MemoryListRequest,
  MemoryMarkReviewedRequest,
  MemoryReadRequest,
  MemoryRecallRequest,
  MemoryRememberRequest,
  MemoryStatusRequest,
  MemoryUpdateRequest,
} from '../../shared/memoryProtocol';
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
  RecallParamsSchema,
  RememberParamsSchema,
  UpdateMemoryParamsSchema,
} from '../../shared/memorySchemas';
import type { runSafe } from '../server';
import { MEMORY_ERROR_CODE, MemoryError } from './errors';
import type { MemoryService } from './memoryService';

export { MEMORY_ERROR_CODE, MemoryError } from './errors';

export interface MemoryRouteDeps {
  memory: MemoryService;
  runSafe: typeof runSafe;
  /** Called after every change (the server sends MemoryChangedNotification, re-publishes blocks…). */
  onChanged: () => void;
}

const ReadParamsSchema = MemoryIdParamsSchema.extend({ forModel: z.boolean().optional() }).strict();
const StatusParamsSchema = z.unknown();

/** Turns a MemoryError into the ResponseError clients see; anything else passes through to runSafe. */
export async function mapMemoryError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (MemoryError.is(err)) throw new ResponseError(MEMORY_ERROR_CODE, err.message, { reason: err.reason });
    throw err;
  }
}

export function registerMemoryRoutes(connection: Connection, deps: MemoryRouteDeps): void {
  const { memory, runSafe: safe, onChanged } = deps;
  /** A read: validated, mapped. */
  const read = <S extends z.ZodType, R>(schema: S, fn: (p: z.infer<S>) => Promise<R>) => safe(connection, schema, (p) => mapMemoryError(() => fn(p)));
  /** A change: as `read`, then tell the server. */
  const change = <S extends z.ZodType, R>(schema: S, fn: (p: z.infer<S>) => Promise<R>) =>
    safe(connection, schema, (p) =>
      mapMemoryError(async () => {
        const result = await fn(p);
        onChanged();
        return result;
      }),
    );

  connection.onRequest(MemoryConfigureRequest.method, change(MemoryConfigSchema, (p) => memory.configure(p)));
  connection.onRequest(MemoryStatusRequest.method, read(StatusParamsSchema, () => memory.status()));
  connection.onRequest(MemoryListRequest.method, read(MemoryListParamsSchema, (p) => memory.list(p)));
  connection.onRequest(MemoryRecallRequest.method, read(RecallParamsSchema, (p) => memory.recall(p)));
  connection.onRequest(
    MemoryReadRequest.method,
    read(ReadParamsSchema, (p) => memory.read(p.id, { ...(p.sessionKey !== undefined ? { sessionKey: p.sessionKey } : {}), ...(p.forModel !== undefined ? { forModel: p.forModel } : {}) })),
  );
  connection.onRequest(MemoryRememberRequest.method, change(RememberParamsSchema, (p) => memory.remember(p)));
  connection.onRequest(MemoryUpdateRequest.method, change(UpdateMemoryParamsSchema, (p) => memory.update(p)));
  connection.onRequest(MemoryApproveRequest.method, change(MemoryIdParamsSchema, (p) => memory.approve(p.id)));
  connection.onRequest(MemoryFlagWrongRequest.method, change(FlagWrongParamsSchema, (p) => memory.flagWrong(p.id, p.reason)));
  connection.onRequest(MemoryConsolidateRequest.method, change(ConsolidateParamsSchema, (p) => memory.consolidate(p)));
  connection.onRequest(MemoryForgetPreviewRequest.method, read(MemoryIdParamsSchema, (p) => memory.forgetPreview(p.id)));
  connection.onRequest(MemoryForgetRequest.method, change(MemoryIdParamsSchema, (p) => memory.forget(p.id)));
  connection.onRequest(MemoryForgetScopeRequest.method, change(ForgetScopeParamsSchema, (p) => memory.forgetScope(p.scope, p.sessionKey)));
  connection.onRequest(MemoryMarkReviewedRequest.method, change(MarkMemoryReviewedParamsSchema, (p) => memory.markReviewed(p.id, p.revision)));
  connection.onRequest(MemoryExportRequest.method, read(ExportParamsSchema, (p) => memory.exportScope(p.scope, p.format)));
  connection.onRequest(MemoryImportRequest.method, change(ImportParamsSchema, (p) => memory.importScope(p.scope, p.format, p.text)));
}
