import * as vscode from 'vscode';
import type { SessionKnowledgeApi } from '../../src/extension/api';

export const EXTENSION_ID = 'sessionknowledge.session-knowledge';

export async function activateApi(): Promise<SessionKnowledgeApi> {
  const ext = vscode.extensions.getExtension<SessionKnowledgeApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded`);
  const api = await ext.activate();
  if (!api) throw new Error('activate() returned no API: the extension failed to start (see its output channel)');
  return api;
}

export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the integration tests need a workspace folder');
  return folder.uri.fsPath;
}

export { waitFor } from '../helpers/waitFor';

/** Written in phase 1 and checked in phase 2 (a fresh extension host on the same profile and folder). */
export const RESTART_NOTE = '.knowledge/notes/survives-restart.md';
