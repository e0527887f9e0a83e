/**
 * Sessions, their pins and their delivered signature, over the store. The three delivery moments all come
 * through here: `resolvePending` (a message from the chat UI, a scheduled or dispatched prompt),
 * `markDelivered` (only after the caller's send was accepted), and `notifyCompacted` (the session lost its
 * block: answer it again, to be sent in its own turn). Pure Node, no `vscode`.
 */
import { randomUUID } from 'node:crypto';
import type { JsonDocument } from '../store/jsonDocument';
import { MAX_RESULTS, type SessionMeta, type SessionsDoc } from '../store/schemas';
import { checkPinnable } from '../pinPolicy';
import { compileBlock, loadPinned, type CompiledBlock, type MemoryIndexEntry, type PinnedFileReader, type JudgeFn } from './knowledgeBlock';

export class SessionError extends Error {
  constructor(
    readonly reason: 'unknown-session' | 'refused-pin' | 'no-workspace',
    message: string,
  ) {
    super(message);
  }
  static is(err: unknown): err is SessionError {
    return err instanceof SessionError;
  }
}

export interface SessionServiceDeps {
  doc: JsonDocument<SessionsDoc>;
  workspaceFolder: string | null;
  reader: PinnedFileReader | null;
  judge: JudgeFn;
  /** The memory index when memory exists and is on; null otherwise (absent, never empty-by-failure). */
  memoryIndex: (sessionKey: string | undefined) => Promise<MemoryIndexEntry[] | null>;
  /** Tokens the memory index may take of the block (the person's index budget); unlimited when absent. */
  memoryIndexBudget?: () => number | undefined;
  defaultBudgetTokens: number;
}

export interface CreateSessionOptions {
  pins?: string[];
  label?: string;
  origin?: SessionMeta['origin'];
  /** The chat UI's first message: the "pin to next chat" draft passes into the session and empties. */
  consumeDraft?: boolean;
}

export class SessionService {
  constructor(private readonly deps: SessionServiceDeps) {}

  /** Normalises pins; throws a SessionError listing every refused pin (nothing changes then). */
  normalizePins(pins: readonly string[]): string[] {
    const folder = this.deps.workspaceFolder;
    if (pins.length === 0) return [];
    if (!folder) throw new SessionError('no-workspace', 'Open a folder first: pins are files in the workspace.');
    const refused: string[] = [];
    const ids: string[] = [];
    for (const pin of pins) {
      const check = checkPinnable(folder, pin);
      if (check.ok) {
        if (!ids.includes(check.id)) ids.push(check.id);
      } else refused.push(check.reason);
    }
    if (refused.length > 0) throw new SessionError('refused-pin', `Not pinned: ${refused.join('; ')}.`);
    return ids;
  }

  async create(options: CreateSessionOptions = {}): Promise<SessionMeta> {
    const pins = this.normalizePins(options.pins ?? []);
    const key = `sk-${randomUUID()}`;
    let created: SessionMeta | undefined;
    await this.deps.doc.update((doc) => {
      const all = options.consumeDraft ? [...doc.draftPins, ...pins.filter((p) => !doc.draftPins.includes(p))] : pins;
      if (options.consumeDraft) doc.draftPins = [];
      created = {
        key,
        createdAt: new Date().toISOString(),
        project_context_pins: all,
        knowledge_context_delivered: null,
        deliveredAt: null,
        origin: options.origin ?? 'api',
        pinned_messages: [],
        results: [],
        ...(options.label ? { label: options.label } : {}),
      };
      doc.sessions[key] = created;
    });
    return created!;
  }

  async get(key: string): Promise<SessionMeta> {
    const doc = await this.deps.doc.load();
    const session = ownSession(doc.sessions, key);
    if (!session) throw new SessionError('unknown-session', `Unknown session ${key}.`);
    return session;
  }

  async list(): Promise<SessionMeta[]> {
    const doc = await this.deps.doc.load();
    return Object.values(doc.sessions).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  private async mutate(key: string, fn: (s: SessionMeta) => void): Promise<SessionMeta> {
    let result: SessionMeta | undefined;
    await this.deps.doc.update((doc) => {
      const session = ownSession(doc.sessions, key);
      if (!session) return;
      fn(session);
      result = session;
    });
    if (!result) throw new SessionError('unknown-session', `Unknown session ${key}.`);
    return result;
  }

  async setPins(key: string, pins: readonly string[]): Promise<SessionMeta> {
    const ids = this.normalizePins(pins);
    return this.mutate(key, (s) => {
      s.project_context_pins = ids;
    });
  }

  async updatePins(key: string, add: readonly string[], remove: readonly string[]): Promise<SessionMeta> {
    const addIds = this.normalizePins(add);
    const folder = this.deps.workspaceFolder;
    const removeIds = new Set(remove.map((r) => (folder ? (checkPinnable(folder, r) as { id?: string }).id ?? r : r)));
    return this.mutate(key, (s) => {
      const next = s.project_context_pins.filter((p) => !removeIds.has(p));
      for (const id of addIds) if (!next.includes(id)) next.push(id);
      s.project_context_pins = next;
    });
  }

  /** Removes a session's metadata. Throws `unknown-session` when there is none. */
  async delete(key: string): Promise<void> {
    let found = false;
    await this.deps.doc.update((doc) => {
      found = Object.hasOwn(doc.sessions, key);
      if (found) delete doc.sessions[key];
    });
    if (!found) throw new SessionError('unknown-session', `Unknown session ${key}.`);
  }

  async setPinnedMessages(key: string, messages: readonly string[]): Promise<SessionMeta> {
    return this.mutate(key, (s) => {
      s.pinned_messages = [...messages];
    });
  }

  /** Compiles the block for a session's pins (and the memory index) without changing anything. */
  async compile(pins: readonly string[], budgetTokens?: number, sessionKey?: string): Promise<CompiledBlock> {
    const items = this.deps.reader ? await loadPinned(this.deps.reader, pins, this.deps.judge) : pins.map((id) => ({ id, kind: 'file' as const, state: 'unavailable' as const, revision: 'unavailable', text: '', reason: 'no workspace folder is open' }));
    let memory: MemoryIndexEntry[] | null = null;
    try {
      memory = await this.deps.memoryIndex(sessionKey);
    } catch {
      memory = null; // a memory store that fails to load is left out; the pins still go through
    }
    return compileBlock(items, memory, budgetTokens ?? this.deps.defaultBudgetTokens, this.deps.memoryIndexBudget?.());
  }

  /**
   * What the session is owed now: the block when its signature differs from the delivered one, else text ''.
   * Records nothing about delivery (see `markDelivered`).
   */
  async resolvePending(key: string, budgetTokens?: number): Promise<CompiledBlock & { delivered: string }> {
    const session = await this.get(key);
    const block = await this.compile(session.project_context_pins, budgetTokens, key);
    const delivered = session.knowledge_context_delivered ?? '';
    // Remember the figures for the meter; a failure to record them must not fail the send.
    void this.mutate(key, (s) => {
      s.lastBudget = { ...block.budget };
      s.lastPendingSignature = block.signature;
    }).catch(() => undefined);
    if (block.signature === delivered || block.text === '') {
      return { ...block, text: '', delivered };
    }
    return { ...block, delivered };
  }

  /** Records that the session now carries `signature`. Call only after the send was accepted. */
  async markDelivered(key: string, signature: string): Promise<SessionMeta> {
    return this.mutate(key, (s) => {
      s.knowledge_context_delivered = signature;
      s.deliveredAt = new Date().toISOString();
    });
  }

  /** The session lost its block (compaction). Answers the full block to re-send; delivery is recorded by `markDelivered`. */
  async notifyCompacted(key: string, budgetTokens?: number): Promise<CompiledBlock> {
    const session = await this.mutate(key, (s) => {
      s.knowledge_context_delivered = null;
      s.deliveredAt = null;
    });
    return this.compile(session.project_context_pins, budgetTokens, key);
  }

  async appendResult(key: string, result: SessionMeta['results'][number]): Promise<SessionMeta> {
    return this.mutate(key, (s) => {
      s.results = [...(s.results ?? []), result].slice(-MAX_RESULTS);
    });
  }

  /** Claims a scheduled prompt's slot; exactly one caller across processes gets `claimed: true`. */
  async claimScheduledRun(name: string, slot: string, pins: readonly string[]): Promise<{ claimed: boolean; key: string }> {
    const ids = this.normalizePins(pins);
    let outcome: { claimed: boolean; key: string } | undefined;
    await this.deps.doc.update((doc) => {
      let session = Object.values(doc.sessions).find((s) => s.origin === 'schedule' && s.label === name);
      if (!session) {
        const key = `sk-${randomUUID()}`;
        session = { key, createdAt: new Date().toISOString(), project_context_pins: ids, knowledge_context_delivered: null, deliveredAt: null, origin: 'schedule', label: name, pinned_messages: [], results: [] };
        doc.sessions[key] = session;
      }
      session.project_context_pins = ids;
      if (session.lastScheduledSlot === slot) {
        outcome = { claimed: false, key: session.key };
        return;
      }
      session.lastScheduledSlot = slot;
      outcome = { claimed: true, key: session.key };
    });
    return outcome!;
  }

  /** Pins follow a rename made in VS Code: every session and the draft. Answers how many pins changed. */
  async renamePin(oldId: string, newId: string): Promise<number> {
    let changed = 0;
    await this.deps.doc.update((doc) => {
      const swap = (list: string[]) =>
        list.map((p) => {
          if (p === oldId) {
            changed += 1;
            return newId;
          }
          if (p.startsWith(`${oldId}/`)) {
            changed += 1;
            return newId + p.slice(oldId.length);
          }
          return p;
        });
      doc.draftPins = swap(doc.draftPins);
      for (const s of Object.values(doc.sessions)) s.project_context_pins = swap(s.project_context_pins);
    });
    return changed;
  }
}

/**
 * A session by key, only when the key is the session map's OWN property: `sessions['__proto__']`, `['constructor']`
 * or `['toString']` must answer "unknown session", not the object's prototype (which a write would then pollute).
 */
function ownSession<T>(sessions: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(sessions, key) ? sessions[key] : undefined;
}
