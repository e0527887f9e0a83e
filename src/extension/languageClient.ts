/** Starts the Session Knowledge language server over IPC and keeps it alive. */
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  TransportKind,
  type ErrorHandler,
  type LanguageClientOptions,
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

export function createLanguageClient(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  initializationOptions: InitializationOptions,
): LanguageClient {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
  };
  const folder = vscode.workspace.workspaceFolders?.[0];
  const watcher = folder
    ? vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '.knowledge/**'))
    : undefined;
  if (watcher) context.subscriptions.push(watcher);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'markdown', pattern: '**/.knowledge/**/*.md' }],
    synchronize: { fileEvents: watcher },
    initializationOptions,
    outputChannel: output,
    errorHandler: new RestartingErrorHandler(output),
  };
  return new LanguageClient('sessionKnowledge', 'Session Knowledge', serverOptions, clientOptions);
}
