/**
 * The Session Knowledge language server. `startServer(connection)` wires the core and the route modules in
 * `./routes` to a connection; `main.ts` creates the IPC connection, protocol tests a child process.
 */
import { CodeActionKind, ErrorCodes, ResponseError, TextDocumentSyncKind, type Connection } from 'vscode-languageserver';
import { InitializationOptionsSchema } from '../shared/schemas';
import { ProblemNotification, StoreChangedNotification } from '../shared/protocol';
import { MemoryChangedNotification } from '../shared/memoryProtocol';
import { KnowledgeCore } from './knowledgeCore';
import { createServerContext } from './routes/context';
import { registerAgentRoutes } from './routes/agents';
import { registerItemRoutes } from './routes/items';
import { registerMemoryRoutes } from './routes/memory';
import { registerSessionRoutes } from './routes/sessions';
import { registerThreatRoutes } from './routes/threat';

export function startServer(connection: Connection): void {
  const ctx = createServerContext(connection);

  connection.onInitialize((params) => {
    const parsed = InitializationOptionsSchema.safeParse(params.initializationOptions ?? {});
    if (!parsed.success) {
      throw new ResponseError(ErrorCodes.InvalidParams, `Invalid initializationOptions: ${parsed.error.issues[0]?.message}`);
    }
    const options = parsed.data;
    const core = new KnowledgeCore({
      workspaceFolder: options.workspaceFolder,
      globalStoragePath: options.globalStoragePath,
      memoryEnabled: options.memoryEnabled,
      log: (message) => connection.console.info(message),
      onProblem: (problem) => {
        connection.console.warn(problem.message);
        void connection.sendNotification(ProblemNotification.type, problem);
      },
    });
    ctx.init(core, options);
    // Memory exists only when the flag is set: otherwise none of its requests are registered (MethodNotFound).
    if (core.memory) {
      registerMemoryRoutes(connection, {
        memory: core.memory,
        onChanged: () => {
          void connection.sendNotification(MemoryChangedNotification.type, {});
          void connection.sendNotification(StoreChangedNotification.type, {});
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

  const diagnostics = registerThreatRoutes(ctx);
  const items = registerItemRoutes(ctx, diagnostics);
  registerSessionRoutes(ctx);
  registerAgentRoutes(ctx);

  connection.onInitialized(async () => {
    await items.reload();
    await diagnostics.publishFromDisk();
  });

  connection.listen();
}
