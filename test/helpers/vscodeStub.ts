/**
 * The few parts of the `vscode` module the knowledge panel's host touches, for running the real host
 * (`src/extension/panel/knowledgePanel.ts`) in plain node (test/helpers/hostilePanel.ts). Dialogs answer
 * "cancelled"; file writes and deletions are recorded in `calls`, never performed.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';

export const calls: { api: string; args: unknown[] }[] = [];
const record = (api: string, args: unknown[]) => void calls.push({ api, args });

export class Uri {
  private constructor(readonly fsPath: string) {}
  get path(): string {
    return this.fsPath;
  }
  get scheme(): string {
    return 'file';
  }
  static file(path: string): Uri {
    return new Uri(path);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(join(base.fsPath, ...parts));
  }
  toString(): string {
    return `file://${this.fsPath}`;
  }
}

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

/** The provider the host registered, for the harness to resolve a view with. */
export const registered: { provider?: { resolveWebviewView(view: unknown): void } } = {};

export const window = {
  registerWebviewViewProvider(_id: string, provider: { resolveWebviewView(view: unknown): void }): Disposable {
    registered.provider = provider;
    return new Disposable();
  },
  showSaveDialog: async (...args: unknown[]) => void record('window.showSaveDialog', args),
  showOpenDialog: async (...args: unknown[]) => void record('window.showOpenDialog', args),
  showTextDocument: async (...args: unknown[]) => void record('window.showTextDocument', args),
  showInformationMessage: async (...args: unknown[]) => void record('window.showInformationMessage', args),
};

/** The panel's remedies run the extension's commands (flaggedRemedy.ts: a picker the person confirms); here they are recorded. */
export const commands = {
  executeCommand: async (...args: unknown[]) => void record('commands.executeCommand', args),
};

export const workspace = {
  workspaceFolders: undefined as { uri: Uri }[] | undefined,
  getConfiguration: () => ({ get: <T>(_key: string, fallback: T): T => fallback }),
  asRelativePath: (uri: Uri) => uri.fsPath,
  fs: {
    readFile: async (uri: Uri) => new Uint8Array(await fs.readFile(uri.fsPath)),
    writeFile: async (...args: unknown[]) => void record('workspace.fs.writeFile', args),
    delete: async (...args: unknown[]) => void record('workspace.fs.delete', args),
  },
};
