/**
 * The Session Knowledge language server. `startServer(connection)` wires the core to a connection;
 * `main.ts` creates the IPC connection, protocol tests create one over in-memory streams or a child process.
 */
import {
  type Connection,
  DidChangeWatchedFilesNotification,
  ErrorCodes,
  ResponseError,
  TextDocumentSyncKind,
} from 'vscode-languageserver';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import {
  CreateItemRequest,
  GetDraftPinsRequest,
  ItemsChangedNotification,
  ListItemsRequest,
  ProblemNotification,
  ReindexRequest,
  UpdateDraftPinsRequest,
  StatsRequest,
  StatusRequest,
  StoreChangedNotification,
} from '../shared/protocol';
import {
  CreateItemParamsSchema,
  InitializationOptionsSchema,
  ListItemsParamsSchema,
  UpdateDraftPinsParamsSchema,
  type InitializationOptions,
} from '../shared/schemas';
import { KnowledgeCore } from './knowledgeCore';
import { toId } from './notes/noteIndex';

/**
 * Runs a handler safely: params are validated first (InvalidParams on failure), a thrown error becomes a
 * `ResponseError` with the message, and the server keeps serving.
 */
export function runSafe<S extends z.ZodType, R>(
  connection: Connection,
  schema: S,
  handler: (params: z.infer<S>) => Promise<R> | R,
): (params: unknown) => Promise<R> {
  return async (params: unknown) => {
    const parsed = schema.safeParse(params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ResponseError(ErrorCodes.InvalidParams, `Invalid params at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
    }
    try {
      return await handler(parsed.data);
    } catch (err) {
      if (err instanceof ResponseError) throw err;
      connection.console.error(`handler failed: ${(err as Error)?.stack ?? String(err)}`);
      throw new ResponseError(ErrorCodes.InternalError, (err as Error)?.message ?? String(err));
    }
  };
}

export function startServer(connection: Connection): void {
  let core: KnowledgeCore | undefined;
  let options: InitializationOptions | undefined;
  const startedAt = new Date().toISOString();
  const ready = (): KnowledgeCore => {
    if (!core) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'The Session Knowledge server is still starting.');
    return core;
  };

  connection.onInitialize((params) => {
    const parsed = InitializationOptionsSchema.safeParse(params.initializationOptions ?? {});
    if (!parsed.success) {
      throw new ResponseError(ErrorCodes.InvalidParams, `Invalid initializationOptions: ${parsed.error.issues[0]?.message}`);
    }
    options = parsed.data;
    core = new KnowledgeCore({
      workspaceFolder: options.workspaceFolder,
      globalStoragePath: options.globalStoragePath,
      onProblem: (problem) => {
        connection.console.warn(problem.message);
        void connection.sendNotification(ProblemNotification.type, problem);
      },
    });
    return {
      capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental },
      serverInfo: { name: 'session-knowledge-server', version: '0.1.0' },
    };
  });

  connection.onInitialized(async () => {
    await ready().load();
    void connection.sendNotification(ItemsChangedNotification.type, { ids: ready().listItems().map((i) => i.id) });
  });

  connection.onRequest(StatusRequest.type, () => ({
    pid: process.pid,
    startedAt,
    workspaceFolder: options?.workspaceFolder ?? null,
    memoryEnabled: options?.memoryEnabled ?? false,
    itemCount: core?.notes?.size ?? 0,
  }));

  connection.onRequest(
    ListItemsRequest.method,
    runSafe(connection, ListItemsParamsSchema, (p) => ready().listItems(p.kind)),
  );

  connection.onRequest(
    CreateItemRequest.method,
    runSafe(connection, CreateItemParamsSchema, async (p) => {
      const item = await ready().createItem(p.kind, p.title);
      void connection.sendNotification(ItemsChangedNotification.type, { ids: [item.id] });
      return item;
    }),
  );

  connection.onRequest(StatsRequest.type, () => ready().stats());

  connection.onRequest(GetDraftPinsRequest.type, () => ready().getDraftPins());

  connection.onRequest(
    UpdateDraftPinsRequest.method,
    runSafe(connection, UpdateDraftPinsParamsSchema, async (p) => {
      const result = await ready().updateDraftPins(p.add, p.remove);
      void connection.sendNotification(StoreChangedNotification.type);
      return result;
    }),
  );

  connection.onRequest(ReindexRequest.type, async () => {
    const c = ready();
    await c.load();
    const ids = c.listItems().map((i) => i.id);
    void connection.sendNotification(ItemsChangedNotification.type, { ids });
    return ids.length;
  });

  // Files created, edited, renamed or deleted outside the extension reach us through the client's watcher.
  connection.onNotification(DidChangeWatchedFilesNotification.type, async (params) => {
    const c = core;
    if (!c?.notes) return;
    const changed: string[] = [];
    for (const change of params.changes) {
      let path: string;
      try {
        path = fileURLToPath(change.uri);
      } catch {
        continue;
      }
      if (path.endsWith('sessions.json')) continue;
      if (await c.notes.refreshPath(path)) changed.push(toId(c.notes.workspaceFolder, path));
    }
    // A folder rename or delete arrives as one event for the folder: rescan to be sure.
    if (params.changes.some((ch) => !ch.uri.endsWith('.md'))) changed.push(...(await c.notes.rebuild()));
    if (changed.length > 0) void connection.sendNotification(ItemsChangedNotification.type, { ids: changed });
  });

  connection.listen();
}
