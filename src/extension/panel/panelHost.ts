/** What the knowledge panel needs from the extension. Implemented in extension.ts, only when the memory flag is set. */
import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

export interface PanelHost {
  /** The started language client (vscode-languageclient/node). */
  client: LanguageClient;
  log: vscode.LogOutputChannel;
  /** The person's memory switch. Not a VS Code setting: no memory setting may exist when the flag is unset. */
  memoryOn(): boolean;
  /** Persists the switch and reconfigures the server. */
  setMemoryOn(on: boolean): Promise<void>;
  /** Fires when the store, the notes or memory changed (another window, a file on disk, a tool call). */
  onDidChange: vscode.Event<void>;
}
