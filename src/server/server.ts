/**
 * The Session Knowledge language server. `startServer(connection)` wires the core to a connection;
 * `main.ts` creates the IPC connection, protocol tests create one over in-memory streams or a child process.
 */
import {
  type CodeAction,
  CodeActionKind,
  type Connection,
  type Diagnostic,
  DiagnosticSeverity,
  TextDocuments,
  DidChangeWatchedFilesNotification,
  ErrorCodes,
  ResponseError,
  TextDocumentSyncKind,
} from 'vscode-languageserver';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
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
  CreateSessionRequest,
  GetSessionRequest,
  ListSessionsRequest,
  SetSessionPinsRequest,
  UpdateSessionPinsRequest,
  SetPinnedMessagesRequest,
  RenamePinRequest,
  DeleteSessionRequest,
  ResolvePendingRequest,
  MarkDeliveredRequest,
  NotifyCompactedRequest,
  CompilePinsRequest,
  AppendResultRequest,
  ClaimScheduledRunRequest,
  JudgeFileRequest,
  MarkReviewedRequest,
} from '../shared/protocol';
import {
  CreateItemParamsSchema,
  InitializationOptionsSchema,
  ListItemsParamsSchema,
  UpdateDraftPinsParamsSchema,
  type InitializationOptions,
  type PendingBlock,
  type SessionInfo,
  CreateSessionParamsSchema,
  SessionKeyParamsSchema,
  SetSessionPinsParamsSchema,
  UpdateSessionPinsParamsSchema,
  SetPinnedMessagesParamsSchema,
  RenamePinParamsSchema,
  ResolveParamsSchema,
  MarkDeliveredParamsSchema,
  CompilePinsParamsSchema,
  AppendResultParamsSchema,
  ClaimScheduledRunParamsSchema,
  JudgeFileParamsSchema,
  MarkReviewedParamsSchema,
} from '../shared/schemas';
import { SessionError } from './delivery/sessionService';
import type { CompiledBlock } from './delivery/knowledgeBlock';
import type { SessionMeta } from './store/schemas';
import { KnowledgeCore } from './knowledgeCore';
import { registerMemoryRoutes } from './memory/routes';
import { toReviewRecord } from './review/reviewStore';
import { MemoryChangedNotification } from '../shared/memoryProtocol';
import { contentRevision, toId } from './notes/noteIndex';
import { RULESET_VERSION, type ThreatFinding } from './threat/threatScanner';

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
      if (SessionError.is(err)) throw new ResponseError(SESSION_ERROR_CODE, err.message, { reason: err.reason });
      connection.console.error(`handler failed: ${(err as Error)?.stack ?? String(err)}`);
      throw new ResponseError(ErrorCodes.InternalError, (err as Error)?.message ?? String(err));
    }
  };
}

/** Error code of a `SessionError` (unknown session, refused pin, no workspace); `data.reason` says which. */
export const SESSION_ERROR_CODE = -32001;

function toSessionInfo(s: SessionMeta): SessionInfo {
  return {
    key: s.key,
    createdAt: s.createdAt,
    ...(s.label ? { label: s.label } : {}),
    origin: s.origin,
    pins: s.project_context_pins,
    pinnedMessages: s.pinned_messages,
    delivered: s.knowledge_context_delivered ?? '',
    deliveredAt: s.deliveredAt,
    pending: s.lastPendingSignature ?? '',
    results: (s.results ?? []).map((r) => ({ at: r.at, prompt: r.prompt, answer: r.answer, blockSent: r.blockSent, ...(r.error ? { error: r.error } : {}) })),
    ...(s.lastBudget ? { budget: { budgetTokens: s.lastBudget.budgetTokens, usedTokens: s.lastBudget.usedTokens, cutItems: s.lastBudget.cutItems, cutMemoryEntries: s.lastBudget.cutMemoryEntries } } : {}),
  };
}

function toPendingBlock(b: CompiledBlock & { delivered: string }): PendingBlock {
  return {
    text: b.text,
    signature: b.signature,
    delivered: b.delivered,
    items: b.items.map((i) => ({ id: i.id, kind: i.kind, state: i.state, ...(i.reason ? { reason: i.reason } : {}) })),
    budget: b.budget,
  };
}

/** Offsets → LSP positions for one text. */
function positionAt(lineStarts: number[], offset: number): { line: number; character: number } {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - lineStarts[lo]! };
}

export const DIAGNOSTIC_SOURCE = 'Session Knowledge';

export function findingsToDiagnostics(text: string, findings: readonly ThreatFinding[], id: string, revision: string): Diagnostic[] {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  return findings.map((f) => ({
    range: { start: positionAt(lineStarts, f.start), end: positionAt(lineStarts, Math.max(f.start, f.end)) },
    severity: DiagnosticSeverity.Warning,
    source: DIAGNOSTIC_SOURCE,
    code: f.ruleId,
    message: `${f.message} Withheld from the agent — reads as an instruction (${f.category}). If this is intended, mark it reviewed.`,
    data: { id, revision },
  }));
}

export function startServer(connection: Connection): void {
  let core: KnowledgeCore | undefined;
  const documents = new TextDocuments(TextDocument);
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
      memoryEnabled: options.memoryEnabled,
      onProblem: (problem) => {
        connection.console.warn(problem.message);
        void connection.sendNotification(ProblemNotification.type, problem);
      },
    });
    // Memory exists only when the flag is set: otherwise none of its requests are registered (MethodNotFound).
    if (core.memory) {
      registerMemoryRoutes(connection, {
        memory: core.memory,
        runSafe,
        onChanged: () => {
          void connection.sendNotification(MemoryChangedNotification.type);
          void connection.sendNotification(StoreChangedNotification.type);
        },
      });
    }
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      },
      serverInfo: { name: 'session-knowledge-server', version: '0.1.0' },
    };
  });

  // ---- diagnostics: threat findings on files under .knowledge/ (open editors use their live text) ----
  const idOfUri = (uri: string): string | undefined => {
    if (!options?.workspaceFolder || !uri.startsWith('file:')) return undefined;
    try {
      const id = toId(options.workspaceFolder, fileURLToPath(uri));
      return id.startsWith('.knowledge/') ? id : undefined;
    } catch {
      return undefined;
    }
  };
  const uriOfId = (id: string) => pathToFileURL(join(options!.workspaceFolder!, id)).href;
  const publishOpen = (doc: TextDocument) => {
    const id = idOfUri(doc.uri);
    if (!id || !core) return;
    const text = doc.getText();
    const revision = contentRevision(text);
    const findings = core.judge(id, text, revision) as readonly ThreatFinding[];
    void connection.sendDiagnostics({ uri: doc.uri, diagnostics: findingsToDiagnostics(text, findings, id, revision) });
  };
  const publishFromDisk = async (ids?: readonly string[]) => {
    const c = core;
    if (!c || !options?.workspaceFolder) return;
    const judged = await c.refreshFlags(ids);
    for (const [id, j] of judged) {
      const uri = uriOfId(id);
      const open = documents.get(uri);
      if (open) publishOpen(open);
      else void connection.sendDiagnostics({ uri, diagnostics: j ? findingsToDiagnostics(j.text, j.findings as ThreatFinding[], id, j.revision) : [] });
    }
  };
  documents.onDidOpen((e) => publishOpen(e.document));
  documents.onDidChangeContent((e) => publishOpen(e.document));
  documents.onDidClose((e) => {
    const id = idOfUri(e.document.uri);
    if (id) void publishFromDisk([id]);
  });
  documents.listen(connection);

  connection.onCodeAction((params) => {
    const actions: CodeAction[] = [];
    for (const d of params.context.diagnostics) {
      if (d.source !== DIAGNOSTIC_SOURCE) continue;
      const data = d.data as { id?: string; revision?: string } | undefined;
      if (!data?.id || !data.revision) continue;
      actions.push({
        title: `Mark as reviewed — not a threat (${String(d.code)})`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        command: { title: 'Mark as reviewed', command: 'sessionKnowledge.markReviewed', arguments: [data.id, data.revision] },
      });
    }
    // One action per document revision is enough.
    return actions.slice(0, 1);
  });

  connection.onRequest(
    JudgeFileRequest.method,
    runSafe(connection, JudgeFileParamsSchema, async (p) => {
      const j = await ready().judgeFile(p.id);
      if (!j) return null;
      const plain = (f: ThreatFinding) => ({ ruleId: f.ruleId, category: f.category, severity: f.severity, message: f.message, start: f.start, end: f.end });
      return { id: j.id, revision: j.revision, rulesetVersion: RULESET_VERSION, findings: j.findings.map(plain), allFindings: j.allFindings.map(plain), ...(j.review ? { review: toReviewRecord(j.review) } : {}) };
    }),
  );
  connection.onRequest(
    MarkReviewedRequest.method,
    runSafe(connection, MarkReviewedParamsSchema, async (p) => {
      const r = await ready().markReviewed(p.id, p.revision);
      await publishFromDisk([r.id]);
      void connection.sendNotification(ItemsChangedNotification.type, { ids: [r.id] });
      return toReviewRecord(r);
    }),
  );

  connection.onInitialized(async () => {
    await ready().load();
    void connection.sendNotification(ItemsChangedNotification.type, { ids: ready().listItems().map((i) => i.id) });
    await publishFromDisk();
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
      await publishFromDisk([item.id]);
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

  // ---- sessions and delivery ----
  const sessions = () => ready().sessionService;
  const announce = <T>(value: T): T => {
    void connection.sendNotification(StoreChangedNotification.type);
    return value;
  };
  connection.onRequest(
    CreateSessionRequest.method,
    runSafe(connection, CreateSessionParamsSchema, async (p) => announce(toSessionInfo(await sessions().create(p)))),
  );
  connection.onRequest(GetSessionRequest.method, runSafe(connection, SessionKeyParamsSchema, async (p) => toSessionInfo(await sessions().get(p.key))));
  connection.onRequest(ListSessionsRequest.type, async () => (await sessions().list()).map(toSessionInfo));
  connection.onRequest(
    SetSessionPinsRequest.method,
    runSafe(connection, SetSessionPinsParamsSchema, async (p) => announce(toSessionInfo(await sessions().setPins(p.key, p.pins)))),
  );
  connection.onRequest(
    UpdateSessionPinsRequest.method,
    runSafe(connection, UpdateSessionPinsParamsSchema, async (p) => announce(toSessionInfo(await sessions().updatePins(p.key, p.add, p.remove)))),
  );
  connection.onRequest(
    SetPinnedMessagesRequest.method,
    runSafe(connection, SetPinnedMessagesParamsSchema, async (p) => announce(toSessionInfo(await sessions().setPinnedMessages(p.key, p.messages)))),
  );
  connection.onRequest(
    DeleteSessionRequest.method,
    runSafe(connection, SessionKeyParamsSchema, async (p) => {
      const c = ready();
      await c.sessionService.delete(p.key);
      let memoryDeleted = 0;
      let memoryKept: string | undefined;
      if (c.memory) {
        try {
          memoryDeleted = (await c.memory.forgetScope('session', p.key)).deleted;
          if (memoryDeleted > 0) void connection.sendNotification(MemoryChangedNotification.type);
        } catch (err) {
          memoryKept = (err as Error).message;
        }
      }
      return announce({ key: p.key, memoryDeleted, ...(memoryKept ? { memoryKept } : {}) });
    }),
  );
  connection.onRequest(
    RenamePinRequest.method,
    runSafe(connection, RenamePinParamsSchema, async (p) => announce(await sessions().renamePin(p.oldId, p.newId))),
  );
  connection.onRequest(
    ResolvePendingRequest.method,
    runSafe(connection, ResolveParamsSchema, async (p) => toPendingBlock(await sessions().resolvePending(p.key, p.budgetTokens))),
  );
  connection.onRequest(
    MarkDeliveredRequest.method,
    runSafe(connection, MarkDeliveredParamsSchema, async (p) => announce(toSessionInfo(await sessions().markDelivered(p.key, p.signature)))),
  );
  connection.onRequest(
    NotifyCompactedRequest.method,
    runSafe(connection, ResolveParamsSchema, async (p) => announce(toPendingBlock({ ...(await sessions().notifyCompacted(p.key, p.budgetTokens)), delivered: '' }))),
  );
  connection.onRequest(
    CompilePinsRequest.method,
    runSafe(connection, CompilePinsParamsSchema, async (p) => {
      const ids = sessions().normalizePins(p.pins);
      return toPendingBlock({ ...(await sessions().compile(ids, p.budgetTokens)), delivered: '' });
    }),
  );

  connection.onRequest(
    AppendResultRequest.method,
    runSafe(connection, AppendResultParamsSchema, async (p) => announce(toSessionInfo(await sessions().appendResult(p.key, p.result)))),
  );
  connection.onRequest(
    ClaimScheduledRunRequest.method,
    runSafe(connection, ClaimScheduledRunParamsSchema, async (p) => announce(await sessions().claimScheduledRun(p.name, p.slot, p.pins))),
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
    // memory.jsonl changed (a pull, a teammate's entries, another window): load and scan it again.
    if (c.memory && params.changes.some((ch) => ch.uri.endsWith('/.knowledge/memory.jsonl'))) {
      try {
        await c.memory.reload('project');
      } catch (err) {
        connection.console.warn(`Could not reload project memory: ${(err as Error).message}`);
      }
      void connection.sendNotification(MemoryChangedNotification.type);
      void connection.sendNotification(StoreChangedNotification.type);
    }
    // reviews.json changed (a pull, another window): reload it and judge everything again.
    if (params.changes.some((ch) => ch.uri.endsWith('/.knowledge/reviews.json'))) {
      await c.reviews?.load();
      await publishFromDisk();
      changed.push(...c.listItems().map((i) => i.id));
    } else if (changed.length > 0) {
      await publishFromDisk(changed);
    }
    if (changed.length > 0) void connection.sendNotification(ItemsChangedNotification.type, { ids: [...new Set(changed)] });
  });

  connection.listen();
}
