/**
 * The workspace's folders as ids name them, on the extension's side: which file an id is (to open it, to mark
 * the Explorer's context keys) and which id a file has (the editor title's pin toggle). Names come from the server
 * (`knowledge/workspace/folders`), which assigns them; until it has answered, VS Code's folders are named the
 * same way (`assignFolderNames`), which gives the same names unless two folders share one.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { WorkspaceFoldersRequest } from '../shared/protocol';
import type { WorkspaceFolderRoot, WorkspaceFoldersInfo } from '../shared/schemas';
import { assignFolderNames, idOfPath, locateId } from '../server/core/workspaceFolders';

/** VS Code's folders on disk (`file:` only), in order, with VS Code's names: what the server is given. */
export function fileWorkspaceFolders(): { name: string; path: string }[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => ({ name: f.name, path: f.uri.fsPath }));
}

export class KnowledgeFolders {
  private info: WorkspaceFoldersInfo | undefined;

  constructor(private readonly client: LanguageClient) {}

  /** Asks the server again (after folders changed); keeps what it knew when the server does not answer. */
  async refresh(): Promise<void> {
    try {
      this.info = await this.client.sendRequest(WorkspaceFoldersRequest.type);
    } catch {
      /* the server is not running: VS Code's folders stand in */
    }
  }

  /** The folders with the names ids start with. */
  get folders(): readonly (WorkspaceFolderRoot & { hasKnowledge?: boolean })[] {
    const current = fileWorkspaceFolders();
    // The server's answer, while it names the folders VS Code has now (in any order).
    const paths = new Set(current.map((f) => f.path));
    if (this.info && this.info.folders.length === paths.size && this.info.folders.every((f) => paths.has(f.path))) return this.info.folders;
    return assignFolderNames(current);
  }

  /** More than one folder: ids start with their folder's name. */
  get multi(): boolean {
    return this.folders.length > 1;
  }

  /** The file an id names, or undefined when no folder holds it. */
  uriOf(id: string): vscode.Uri | undefined {
    const at = locateId(this.folders, id);
    return at ? vscode.Uri.joinPath(vscode.Uri.file(at.folder.path), at.rel) : undefined;
  }

  /** The id of a file, or undefined when it is not a file inside a folder of the workspace. */
  idOf(uri: vscode.Uri): string | undefined {
    return uri.scheme === 'file' ? idOfPath(this.folders, uri.fsPath) : undefined;
  }

  /** The folder an id belongs to, by name, when the workspace has more than one. */
  folderNameOf(id: string): string | undefined {
    return this.multi ? locateId(this.folders, id)?.folder.name : undefined;
  }
}
