/**
 * The Session Knowledge language server over IPC: created without a process, started on first need (the
 * client starts itself on its first request; extension.ts also starts it when the workspace has
 * `.knowledge/` or the tree is shown), and kept alive.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  TransportKind,
  type ErrorHandler,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
} from 'vscode-languageclient/node';
import type { InitializationOptions } from '../shared/schemas';

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 3 * 60_000;

/**
 * Restarts a server that died and tells the person once per window (output channel, and a message with
 * "Show Output"). After MAX_RESTARTS within RESTART_WINDOW_MS it stops trying and says so.
 */
export class RestartingErrorHandler implements ErrorHandler {
  private readonly restarts: number[] = [];
  private told = false;

  constructor(private readonly output: vscode.LogOutputChannel) {}

  error(): { action: ErrorAction; handled: boolean } {
    return { action: ErrorAction.Continue, handled: true };
  }

  closed(): { action: CloseAction; handled: boolean } {
    const now = Date.now();
    this.restarts.push(now);
    while (this.restarts.length > 0 && now - (this.restarts[0] ?? now) > RESTART_WINDOW_MS) this.restarts.shift();
    if (this.restarts.length > MAX_RESTARTS) {
      this.output.warn(`The language server stopped ${this.restarts.length} times in 3 minutes; not restarting it.`);
      void this.tell('Session Knowledge: the language server keeps stopping and was not restarted. Reload the window to try again.', true);
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.output.warn(`The language server stopped unexpectedly; restarting it.`);
    if (!this.told) {
      this.told = true;
      void this.tell('Session Knowledge: the language server stopped unexpectedly and was restarted. Nothing was lost.', false);
    }
    return { action: CloseAction.Restart, handled: true };
  }

  private async tell(message: string, error: boolean): Promise<void> {
    const show = error ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    const choice = await show(message, 'Show Output');
    if (choice === 'Show Output') this.output.show(true);
  }
}

/** How long other requests wait for the setup of a (re)started server before going ahead without it. */
const SETUP_WAIT_MS = 5_000;

/**
 * What every (re)started server process must be told before any other request: it starts knowing only its
 * `initializationOptions` (e.g. memory starts off). Steps run when the client reaches Running; meanwhile
 * other requests wait (at most SETUP_WAIT_MS), except the ones the steps send themselves (`methods`).
 */
export class ServerSetup implements vscode.Disposable {
  private readonly steps: { methods: ReadonlySet<string>; run: () => Promise<void> }[] = [];
  private ready: Promise<void> = Promise.resolve();
  private subscription: vscode.Disposable | undefined;

  add(methods: readonly string[], run: () => Promise<void>): void {
    this.steps.push({ methods: new Set(methods), run });
  }

  attach(client: LanguageClient): void {
    this.subscription = client.onDidChangeState((e) => {
      if (e.newState === State.Running) this.ready = Promise.all(this.steps.map((s) => s.run().catch(() => undefined))).then(() => undefined);
    });
  }

  readonly middleware: Middleware = {
    sendRequest: async (type, param, token, next) => {
      const method = typeof type === 'string' ? type : type.method;
      if (this.steps.length > 0 && !this.steps.some((s) => s.methods.has(method))) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([this.ready, new Promise((r) => (timer = setTimeout(r, SETUP_WAIT_MS)))]);
        clearTimeout(timer);
      }
      return next(type, param, token);
    },
  };

  dispose(): void {
    this.subscription?.dispose();
  }
}

/**
 * `initializationOptions` is read each time the server (re)starts, so a restarted server gets the folders the
 * workspace has then; folders added or removed while it runs reach it as `workspace/didChangeWorkspaceFolders`
 * (vscode-languageclient sends it: the server declares the capability).
 */
export function createLanguageClient(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  initializationOptions: () => InitializationOptions,
  setup: ServerSetup,
): LanguageClient {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
  };
  // One glob over every workspace folder, those added later included (VS Code's own workspace watcher serves it).
  const watcher = vscode.workspace.workspaceFolders?.length ? vscode.workspace.createFileSystemWatcher('**/.knowledge/**') : undefined;
  if (watcher) context.subscriptions.push(watcher);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'markdown', pattern: '**/.knowledge/**/*.md' }],
    synchronize: { fileEvents: watcher },
    initializationOptions,
    outputChannel: output,
    errorHandler: new RestartingErrorHandler(output),
    middleware: setup.middleware,
  };
  const client = new LanguageClient('sessionKnowledge', 'Session Knowledge', serverOptions, clientOptions);
  setup.attach(client);
  return client;
}
