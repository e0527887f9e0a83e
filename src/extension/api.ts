/**
 * The API `activate()` returns to other extensions (`vscode.extensions.getExtension(
 * 'sessionknowledge.session-knowledge').exports`). Ids are workspace-relative paths such as
 * `.knowledge/notes/setup.md`. Grows with later capabilities; `apiVersion` changes on a breaking change.
 */
export interface KnowledgeItemInfo {
  id: string;
  kind: 'note' | 'plan';
  title: string;
  /** sha256 of the content. */
  revision: string;
}

export interface SessionKnowledgeApi {
  readonly apiVersion: 1;
  /** Notes and plans as the language server indexes them. */
  listItems(): Promise<KnowledgeItemInfo[]>;
  /** The "pin to next chat" draft. */
  getDraftPins(): Promise<string[]>;
  /** The language server's process id and start time (diagnostics). */
  serverStatus(): Promise<{ pid: number; startedAt: string }>;
}
