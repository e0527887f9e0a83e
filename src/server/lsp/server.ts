/**
 * The Session Knowledge language server. `startServer(connection)` wires the core and the route modules in
 * `./routes` to a connection; `main.ts` creates the connection (IPC for the extension, stdio for any other
 * LSP client), protocol tests a child process. `./initialize` says what an `initialize` from either means.
 */
import { CodeActionKind, TextDocumentSyncKind, type Connection } from 'vscode-languageserver';
import { ProblemNotification, StoreChangedNotification } from '../../shared/protocol';
import { MemoryChangedNotification } from '../../shared/memoryProtocol';
import { resolveInitialization } from './initialize';
import { KnowledgeCore } from '../core/knowledgeCore';
import { createServerContext } from './routes/routeContext';
import { registerAgentRoutes } from './routes/agentRoutes';
import { registerItemRoutes } from './routes/itemRoutes';
import { registerMemoryRoutes } from './routes/memoryRoutes';
import { registerSessionRoutes } from './routes/sessionRoutes';
import { SERVER_ACCEPT_REVIEW_COMMAND, SERVER_MARK_REVIEWED_COMMAND, registerThreatRoutes } from './routes/threatRoutes';

export function startServer(connection: Connection): void {
  const ctx = createServerContext(connection);

  connection.onInitialize((params) => {
    const init = resolveInitialization(params, process.env);
    const options = init.options;
    for (const note of init.notes) connection.console[note.level](note.message);
    const core = new KnowledgeCore({
      workspaceFolder: options.workspaceFolder,
      ...(options.workspaceFolders ? { workspaceFolders: options.workspaceFolders } : {}),
      globalStoragePath: options.globalStoragePath,
      memoryEnabled: options.memoryEnabled,
      log: (message) => connection.console.info(message),
      onProblem: (problem) => {
        connection.console.warn(problem.message);
        void connection.sendNotification(ProblemNotification.type, problem);
      },
    });
    ctx.init(core, options, init.client);
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
        // Folders added to or removed from the workspace arrive as workspace/didChangeWorkspaceFolders.
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
        // A generic client cannot run the extension's client-side command: the code action names this one instead.
        ...(init.client === 'generic' ? { executeCommandProvider: { commands: [SERVER_MARK_REVIEWED_COMMAND, SERVER_ACCEPT_REVIEW_COMMAND] } } : {}),
      },
      serverInfo: { name: 'session-knowledge-server', version: '0.1.0' },
    };
  });

  const diagnostics = registerThreatRoutes(ctx);
  const items = registerItemRoutes(ctx, diagnostics);
  registerSessionRoutes(ctx);
  registerAgentRoutes(ctx);

  connection.onInitialized(async () => {
    items.followWorkspaceFolders();
    await items.reload();
    await diagnostics.publishFromDisk();
  });

  connection.listen();
}
