/**
 * The API `activate()` returns to other extensions:
 *
 * ```ts
 * const api = await vscode.extensions.getExtension<SessionKnowledgeApi>('sessionknowledge.session-knowledge')!.activate();
 * const key = await api.sessions.create({ pins: { notes: ['.knowledge/notes/setup.md'], plans: [] } });
 * const { text, signature } = await api.delivery.resolvePending(key);   // '' when the session already carries it
 * // … send `text` as its own part of your prompt; once the model started answering without error:
 * await api.delivery.markDelivered(key, signature);
 * ```
 *
 * Ids are workspace-relative paths such as `.knowledge/notes/setup.md`. Self-contained (types only): it is
 * shipped as `dist/api.d.ts`. `apiVersion` changes on a breaking change.
 */

/** Pins of a session: notes (`.knowledge/notes/*.md`), plans (`.knowledge/plans/*.md`) and other workspace files. */
export interface Pins {
  notes: string[];
  plans: string[];
  files?: string[];
}

export interface PendingKnowledge {
  /** The knowledge block to send, or '' when the session already carries `signature`. */
  text: string;
  signature: string;
}

export interface KnowledgeItemInfo {
  id: string;
  kind: 'note' | 'plan';
  title: string;
  /** sha256 of the content. */
  revision: string;
  /** True when its text reads as an instruction to a model: its title is withheld and it is never delivered. */
  flagged: boolean;
}

export interface SessionKnowledgeApi {
  readonly apiVersion: 1;
  sessions: {
    /** Creates a session and answers its key. */
    create(options?: { pins?: Pins; label?: string }): Promise<string>;
    getPins(sessionKey: string): Promise<Pins>;
    /** Replaces the pins. Rejects (and changes nothing) when a path is a secret file or outside the workspace. */
    setPins(sessionKey: string, pins: Pins): Promise<void>;
  };
  delivery: {
    /** What the session is owed now; `text` '' when it already carries it. Records nothing. */
    resolvePending(sessionKey: string): Promise<PendingKnowledge>;
    /** Call only after your send was accepted (the model started answering without error). */
    markDelivered(sessionKey: string, signature: string): Promise<void>;
    /** Your conversation was compacted: answers the block to re-send in its own turn. */
    notifyCompacted(sessionKey: string): Promise<PendingKnowledge>;
    /** The signature the session carries; '' when nothing was delivered. */
    delivered(sessionKey: string): Promise<string>;
  };
  /** Notes and plans as the language server indexes them. */
  listItems(): Promise<KnowledgeItemInfo[]>;
  /** The "pin to next chat" draft. */
  getDraftPins(): Promise<string[]>;
  /** The language server's process id and start time (diagnostics). */
  serverStatus(): Promise<{ pid: number; startedAt: string }>;
}

/** Splits a flat list of pinned ids into the API's shape. */
export function toPins(ids: readonly string[]): Pins {
  const pins: Pins = { notes: [], plans: [], files: [] };
  for (const id of ids) {
    if (/^\.knowledge\/notes\/[^/]+\.md$/.test(id)) pins.notes.push(id);
    else if (/^\.knowledge\/plans\/[^/]+\.md$/.test(id)) pins.plans.push(id);
    else pins.files!.push(id);
  }
  return pins;
}

/** Flattens the API's pins into one ordered list: notes, plans, files. */
export function fromPins(pins: Pins | undefined): string[] {
  if (!pins) return [];
  return [...(pins.notes ?? []), ...(pins.plans ?? []), ...(pins.files ?? [])];
}
