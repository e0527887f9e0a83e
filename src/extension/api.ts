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
 * Ids are workspace-relative paths such as `.knowledge/notes/setup.md`; in a workspace of several folders they
 * start with the folder's name (`infra/.knowledge/notes/deploy.md`), and an id without one names the first folder.
 * Self-contained (types only): it is shipped as `dist/api.d.ts`. `apiVersion` changes on a breaking change.
 */

/**
 * Pins of a session: notes (`.knowledge/notes/*.md`), plans (`.knowledge/plans/*.md`) and other workspace files
 * (each folder's, `<folder>/.knowledge/notes/*.md`, when the workspace has several).
 */
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
  /** The workspace folder that holds it (VS Code's name for it), when the workspace has more than one. */
  folder?: string;
}

export interface SessionKnowledgeApi {
  readonly apiVersion: 1;
  sessions: {
    /** Creates a session and answers its key. `label`: its name, as people see it (else one is made from when it started). */
    create(options?: { pins?: Pins; label?: string }): Promise<string>;
    /**
     * The session's name as people see it: an `@knowledge` chat is named after its first prompt, a scheduled run after
     * its schedule, yours after the `label` you created it with; a session stored without one is named by when and how
     * it started ("Chat of 2026-12-03 17:44"). Never the key.
     */
    name(sessionKey: string): Promise<string>;
    getPins(sessionKey: string): Promise<Pins>;
    /** Replaces the pins. Rejects (and changes nothing) when a path is a secret file or outside the workspace. */
    setPins(sessionKey: string, pins: Pins): Promise<void>;
  };
  delivery: {
    /**
     * What the session is owed now; `text` '' when it already carries it. Records nothing. Rejects in Restricted Mode
     * (the folder is not trusted: nothing is delivered; send without it, and the session stays owed it).
     */
    resolvePending(sessionKey: string): Promise<PendingKnowledge>;
    /** Call only after your send was accepted (the model started answering without error). */
    markDelivered(sessionKey: string, signature: string): Promise<void>;
    /** Your conversation was compacted: answers the block to re-send in its own turn. Rejects in Restricted Mode. */
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
  /** Agent memory. Present only when SESSION_KNOWLEDGE_MEMORY_ENABLE is set in VS Code's environment. */
  memory?: MemoryApi;
}

export type MemoryScope = 'session' | 'project' | 'personal';

/** An entry as the API shows it. `flagged` entries are only returned by `list` (for people), with findings. */
export interface MemoryEntryView {
  id: string;
  scope: MemoryScope;
  type: 'fact' | 'preference' | 'lesson' | 'decision' | 'reference';
  title: string;
  body: string;
  tags: string[];
  trust: { state: 'pending' | 'approved' | 'legacy'; approvedBy?: string; approvedAt?: string };
  provenance: { sourceKind: 'human' | 'agent' | 'import' | 'legacy'; identity: string; sessionKey?: string; at: string; distilledFrom?: { sessionKey: string; turn: number; model: string } };
  revision: string;
  flagged: boolean;
  findings: { ruleId: string; category: string; message: string; field: 'title' | 'body' | 'tags'; start: number; end: number }[];
  aged: boolean;
  /** Project memory of a multi-root workspace: the folder (by name) whose `.knowledge/memory.jsonl` keeps it. */
  folder?: string;
  /** Pending proposals only: what distillation proposes (`update` and `conflict` name the entry they would supersede). */
  proposal?: { kind: 'new' | 'update' | 'conflict'; target?: string; rationale: string; distilledFrom: { sessionKey: string; turn: number; model: string } };
  /** The entry that replaced it, and the session whose approved proposal did (an update or a conflict). */
  supersededBy?: string;
  supersededInSession?: string;
  /** Set when a person rejected it (kept for the record; it reaches no model). */
  rejected?: { reason?: string; by: string; at: string };
  /** Project memory approved in the repository's file, not yet by this person: the team's claim; it reaches no model until accepted. */
  repositoryClaim?: { approvedBy: string; approvedAt?: string };
}

/**
 * One item of the decision inbox: a pending proposal, a pending entry an agent wrote or an import brought, or a
 * `repository` entry (approved in the committed memory.jsonl, not yet by this person: `approve` accepts it).
 */
export interface MemoryInboxItem {
  origin: 'proposal' | 'agent' | 'import' | 'repository';
  entry: MemoryEntryView;
  /** update or conflict: the entry it would supersede, as it is now (null: gone since). */
  target?: MemoryEntryView | null;
  /** update or conflict: what differs, target → proposal. */
  diff?: { field: 'title' | 'body' | 'tags' | 'type' | 'importance'; before: string; after: string }[];
}

export interface MemoryInboxCounts {
  total: number;
  proposals: number;
  agentEntries: number;
  flagged: number;
  /** Repository entries waiting to be accepted (absent when none). */
  fromRepository?: number;
  updates: number;
  conflicts: number;
}

/** The inbox grouped by session (null: items that name none), newest first. */
export interface MemoryInbox {
  groups: { sessionKey: string | null; counts: MemoryInboxCounts; items: MemoryInboxItem[]; repository?: { folder: string } }[];
  counts: MemoryInboxCounts;
}

export interface MemoryApi {
  /** The person's switch (off by default). */
  isEnabled(): Promise<boolean>;
  setEnabled(on: boolean): Promise<void>;
  /** `folder`: project memory of a multi-root workspace — the folder (by name) to keep it in; default the first. */
  remember(entry: { scope: MemoryScope; type: string; title: string; body: string; tags?: string[]; sessionKey?: string; source?: 'human' | 'agent'; folder?: string }): Promise<{ id: string }>;
  /** For people: every entry, flagged ones included with their findings (`folder`: one folder's project entries). */
  list(options?: { scope?: string; folder?: string }): Promise<MemoryEntryView[]>;
  /** What a model may see: never flagged, aged, legacy, or another session's pending entries. */
  recall(query: string, options?: { sessionKey?: string; limit?: number }): Promise<MemoryEntryView[]>;
  read(id: string): Promise<MemoryEntryView | undefined>;
  /**
   * Approves an entry or an inbox item (an update or a conflict supersedes its target). Rejects with a
   * MemoryError-like error (`data.reason` 'flagged') for an item the threat scan flags that no person reviewed.
   */
  approve(id: string): Promise<void>;
  forget(id: string): Promise<{ deleted: string[]; restored: string[] }>;
  /**
   * Distils the conversation of an `@knowledge` session this window has seen into inbox proposals (the model is asked
   * with the transcript inside the untrusted envelope; the transcript is never stored). Answers the stored
   * proposals; rejects when the session is unknown here, no model is available, or the model's answer stayed malformed.
   */
  distill(sessionKey: string): Promise<MemoryInboxItem[]>;
  /** The decision inbox: pending proposals and pending agent entries, grouped by session. */
  inbox(): Promise<MemoryInbox>;
  /** Rejects an inbox item, keeping the reason; it never reaches a model. */
  reject(id: string, reason?: string): Promise<void>;
}

