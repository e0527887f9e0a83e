/**
 * Sessions, their pins and their delivered signature, over the store. The three delivery moments all come
 * through here: `resolvePending` (a message from the chat UI, a scheduled or dispatched prompt),
 * `markDelivered` (only after the caller's send was accepted), and `notifyCompacted` (the session lost its
 * block: answer it again, to be sent in its own turn). Pure Node, no `vscode`.
 */
import { randomUUID } from 'node:crypto';
import { withFileLock } from '../store/atomicFile';
import type { SessionStore } from '../store/sessionStore';
import { lastActivity } from '../store/sessionStore';
import { MAX_RESULTS, type SessionMeta } from '../store/storeSchemas';
import type { PinCheck } from '../pinPolicy';
import { BlockMemo, loadPinned, type CompiledBlock, type MemoryIndexEntry, type PinnedFileReader, type JudgeFn, type BlockFinding } from './knowledgeBlock';
import type { BlockDestination } from './blockWords';

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
  store: SessionStore;
  /** Retention: removes the session-scope memory of pruned sessions (absent without memory). */
  forgetSessionMemory?: (keys: ReadonlySet<string>) => Promise<number>;
  /** The pin policy over the workspace's folders: answers the pin's id, or why it is refused. Null without a folder. */
  checkPin: ((idOrPath: string) => PinCheck) | null;
  reader: PinnedFileReader | null;
  judge: JudgeFn;
  /** Findings on a pin's id alone (`threat/names.ts`): for pins that cannot be read, whose id is still printed. */
  judgeName?: (id: string) => readonly BlockFinding[];
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
  /** Blocks by the revisions of their inputs: with nothing changed, a pending check compiles nothing. */
  private readonly blocks = new BlockMemo();

  constructor(private readonly deps: SessionServiceDeps) {}

  /** Normalises pins; throws a SessionError listing every refused pin (nothing changes then). */
  normalizePins(pins: readonly string[]): string[] {
    const checkPin = this.deps.checkPin;
    if (pins.length === 0) return [];
    if (!checkPin) throw new SessionError('no-workspace', 'Open a folder first: pins are files in the workspace.');
    const refused: string[] = [];
    const ids: string[] = [];
    for (const pin of pins) {
      const check = checkPin(pin);
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
    const make = (all: string[]): SessionMeta => ({
      key,
      createdAt: new Date().toISOString(),
      project_context_pins: all,
      knowledge_context_delivered: null,
      deliveredAt: null,
      origin: options.origin ?? 'api',
      pinned_messages: [],
      results: [],
      ...(options.label ? { label: options.label } : {}),
    });
    if (!options.consumeDraft) return (await this.deps.store.update(key, () => make(pins)))!;
    // The draft passes into the session: the session is written first, then the draft emptied, both under the
    // index's lock (a crash in between leaves the draft for the next chat too, never loses it).
    let created: SessionMeta | undefined;
    let draft: string[] = [];
    await this.deps.store.withIndexLock(async () => {
      draft = (await this.deps.store.index.load()).draftPins;
      created = await this.deps.store.update(key, () => make([...draft, ...pins.filter((p) => !draft.includes(p))]));
    });
    // An empty draft has nothing to give: the index is not written again.
    if (created && draft.length > 0) {
      const taken = new Set(created.project_context_pins);
      await this.deps.store.updateIndex((doc) => {
        doc.draftPins = doc.draftPins.filter((p) => !taken.has(p));
      });
    }
    return created!;
  }

  async get(key: string): Promise<SessionMeta> {
    const session = await this.deps.store.get(key);
    if (!session) throw new SessionError('unknown-session', `Unknown session ${key}.`);
    return session;
  }

  /** Every session, newest first: reads every file (not for a hot path: the panel pages with `listPage`). */
  async list(): Promise<SessionMeta[]> {
    return [...(await this.deps.store.list())].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.key.localeCompare(a.key));
  }

  /** One page of sessions, newest first; `cursor` is the `next` of the page before. */
  async listPage(options: { limit: number; cursor?: string }): Promise<{ sessions: SessionMeta[]; total: number; next: string | null }> {
    return this.deps.store.page(options.limit, options.cursor);
  }

  /** A change that is activity (a message, a pin change, a delivery): it moves `lastActivityAt`. */
  private async mutate(key: string, fn: (s: SessionMeta) => void): Promise<SessionMeta> {
    const result = await this.deps.store.update(key, (current) => {
      if (!current) return undefined;
      const session = structuredClone(current);
      fn(session);
      return session;
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
    const checkPin = this.deps.checkPin;
    // The id as given too: a pin kept from before multi-root support names its folder without the folder's name.
    const removeIds = new Set(remove.flatMap((r) => [r, ...(checkPin ? [(checkPin(r) as { id?: string }).id ?? r] : [])]));
    return this.mutate(key, (s) => {
      const next = s.project_context_pins.filter((p) => !removeIds.has(p));
      for (const id of addIds) if (!next.includes(id)) next.push(id);
      s.project_context_pins = next;
    });
  }

  /** Removes a session's metadata. Throws `unknown-session` when there is none. */
  async delete(key: string): Promise<void> {
    let found = false;
    await this.deps.store.update(key, (current) => {
      found = current !== undefined;
      return found ? 'delete' : undefined;
    });
    if (!found) throw new SessionError('unknown-session', `Unknown session ${key}.`);
  }

  /**
   * Gives a session without a name its name; a named one keeps its own (a chat is named by its first prompt, and a
   * scheduled session's name is how its schedule finds it). Bookkeeping, not activity: the last activity stays.
   */
  async name(key: string, name: string): Promise<SessionMeta> {
    let found = false;
    const written = await this.deps.store.update(
      key,
      (current) => {
        found = current !== undefined;
        return current && !current.label?.trim() ? { ...current, label: name } : undefined;
      },
      { activity: false },
    );
    if (!found) throw new SessionError('unknown-session', `Unknown session ${key}.`);
    return written ?? this.get(key);
  }

  async setPinnedMessages(key: string, messages: readonly string[]): Promise<SessionMeta> {
    return this.mutate(key, (s) => {
      s.pinned_messages = [...messages];
    });
  }

  /**
   * Compiles the block for a session's pins (and the memory index) without changing anything. `tokensPerChar`: the
   * model's own count (the client measured it), so the block is cut to the budget once; else the server's estimate.
   * `destination`: where the block goes (its preamble's words; `blockWords.ts`).
   */
  async compile(pins: readonly string[], budgetTokens?: number, sessionKey?: string, withMemory = true, tokensPerChar?: number, destination: BlockDestination = 'chat'): Promise<CompiledBlock> {
    const judgeName = this.deps.judgeName ?? (() => []);
    const items = this.deps.reader
      ? await loadPinned(this.deps.reader, pins, this.deps.judge, judgeName)
      : pins.map((id) => ({ id, kind: 'file' as const, state: 'unavailable' as const, revision: 'unavailable', text: '', reason: 'no workspace folder is open', ...(judgeName(id).length > 0 ? { nameWithheld: true } : {}) }));
    let memory: MemoryIndexEntry[] | null = null;
    try {
      memory = withMemory ? await this.deps.memoryIndex(sessionKey) : null;
    } catch {
      memory = null; // a memory store that fails to load is left out; the pins still go through
    }
    return this.blocks.compile(items, memory, budgetTokens ?? this.deps.defaultBudgetTokens, this.deps.memoryIndexBudget?.(), tokensPerChar, destination);
  }

  /**
   * What the session is owed now: the block when its signature differs from the delivered one, else text ''.
   * A pure read: it writes nothing (the panel resolves every session it shows; a read is not activity, and
   * retention must still see an idle session as idle). Delivery is recorded by `markDelivered`.
   */
  async resolvePending(key: string, budgetTokens?: number, tokensPerChar?: number): Promise<CompiledBlock & { delivered: string }> {
    const session = await this.get(key);
    const block = await this.compile(session.project_context_pins, budgetTokens, key, true, tokensPerChar);
    const delivered = session.knowledge_context_delivered ?? '';
    if (block.signature === delivered || block.text === '') {
      return { ...block, text: '', delivered };
    }
    return { ...block, delivered };
  }

  /**
   * Records that the session now carries `signature` (the meter's cheap "carrying" reads `lastPendingSignature`).
   * Call only after the send was accepted.
   */
  async markDelivered(key: string, signature: string): Promise<SessionMeta> {
    return this.mutate(key, (s) => {
      s.knowledge_context_delivered = signature;
      s.deliveredAt = new Date().toISOString();
      s.lastPendingSignature = signature;
    });
  }

  /** The session lost its block (compaction). Answers the full block to re-send; delivery is recorded by `markDelivered`. */
  async notifyCompacted(key: string, budgetTokens?: number, tokensPerChar?: number): Promise<CompiledBlock> {
    const session = await this.mutate(key, (s) => {
      s.knowledge_context_delivered = null;
      s.deliveredAt = null;
    });
    return this.compile(session.project_context_pins, budgetTokens, key, true, tokensPerChar);
  }

  async appendResult(key: string, result: SessionMeta['results'][number]): Promise<SessionMeta> {
    return this.mutate(key, (s) => {
      s.results = [...(s.results ?? []), result].slice(-MAX_RESULTS);
    });
  }

  /**
   * Delivery to an agent outside VS Code's chat (a Claude Code hook, the MCP server) at one of its moments.
   * The session `key` is created on first sight with `pins` (already normalised: the agent pins), and follows
   * them when they change. Answers the text to send ('' when nothing is owed) and `commit`, which records the
   * delivery: call it only after the text was handed to the agent, so a failed write re-sends next time.
   *
   * - `start`: a new, resumed or cleared session — the whole block; `fresh` (a brand-new session, Claude Code's
   *   `startup`): owed only when the session does not carry this very block yet, so that two start hooks of one
   *   new session (two hook processes, or the hook installed twice) deliver once;
   * - `compact`: the session lost its history — the whole block again;
   * - `prompt`: the block only when owed (first delivery, or a pinned item's revision or verdict changed).
   *
   * `send`: the whole delivery — create the session, compile, decide, send, record — runs holding the session's
   * delivery lock (across processes), `send` is awaited before the record and `commit` does nothing: concurrent
   * deliveries to one session send the block once.
   */
  async deliverToAgent(
    key: string,
    pins: readonly string[],
    moment: 'start' | 'compact' | 'prompt',
    budgetTokens?: number,
    label = 'agent',
    options: { fresh?: boolean; send?: (text: string) => Promise<void>; destination?: BlockDestination } = {},
  ): Promise<{ text: string; block: CompiledBlock; commit: () => Promise<void> }> {
    const deliver = async (): Promise<{ text: string; block: CompiledBlock; commit: () => Promise<void> }> => {
      const ids = [...pins];
      const session = (await this.deps.store.update(key, (current) => {
        if (current && current.project_context_pins.length === ids.length && current.project_context_pins.every((p, i) => p === ids[i])) return undefined;
        return current
          ? { ...current, project_context_pins: ids }
          : { key, createdAt: new Date().toISOString(), project_context_pins: ids, knowledge_context_delivered: null, deliveredAt: null, origin: 'api', label, pinned_messages: [], results: [] };
      })) ?? (await this.get(key));
      const block = await this.compile(session.project_context_pins, budgetTokens, key, true, undefined, options.destination ?? 'claude-code');
      const carries = block.signature === (session.knowledge_context_delivered ?? '');
      const owed = moment === 'compact' || (moment === 'start' && !options.fresh) || !carries;
      const text = owed ? block.text : '';
      const commit = async () => {
        if (!owed || (text === '' && moment === 'prompt')) return;
        await this.markDelivered(key, block.signature);
      };
      if (!options.send) return { text, block, commit };
      if (text !== '') await options.send(text);
      await commit();
      return { text, block, commit: async () => undefined };
    };
    if (!options.send) return deliver();
    // The delivery lock is a file of its own beside the session's: the session file's lock is taken inside, per write.
    return withFileLock(`${this.deps.store.pathOf(key)}.delivery`, deliver, { sweepTemps: false });
  }

  /** Claims a scheduled prompt's slot; exactly one caller across processes gets `claimed: true`. */
  async claimScheduledRun(name: string, slot: string, pins: readonly string[]): Promise<{ claimed: boolean; key: string }> {
    const ids = this.normalizePins(pins);
    let outcome: { claimed: boolean; key: string } | undefined;
    // Find-or-create under the index's lock (one window creates the schedule's session); the claim itself is
    // a read-modify-write of that session's file under its own lock.
    await this.deps.store.withIndexLock(async () => {
      const found = await this.findScheduled(name);
      const key = found?.key ?? `sk-${randomUUID()}`;
      await this.deps.store.update(key, (current) => {
        const session: SessionMeta = current
          ? structuredClone(current)
          : { key, createdAt: new Date().toISOString(), project_context_pins: ids, knowledge_context_delivered: null, deliveredAt: null, origin: 'schedule', label: name, pinned_messages: [], results: [] };
        session.project_context_pins = ids;
        if (session.lastScheduledSlot === slot) {
          outcome = { claimed: false, key };
          return current ? undefined : session;
        }
        session.lastScheduledSlot = slot;
        outcome = { claimed: true, key };
        return session;
      });
    });
    return outcome!;
  }

  /**
   * The scheduled session named `name`, through the index (each one it names re-read from its file). Finding none,
   * every file is checked against the index before the answer is trusted: a second session for one schedule would
   * let one slot be claimed twice.
   */
  private async findScheduled(name: string): Promise<SessionMeta | undefined> {
    const index = await this.deps.store.readyIndex();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) await index.verifyNow();
      for (const key of index.scheduled(name)) {
        const s = await this.deps.store.get(key);
        if (s && s.origin === 'schedule' && s.label === name) return s;
      }
    }
    return undefined;
  }

  /** Pins follow a rename made in VS Code: every session and the draft. Answers how many pins changed. */
  async renamePin(oldId: string, newId: string): Promise<number> {
    let changed = 0;
    const hit = (p: string) => p === oldId || p.startsWith(`${oldId}/`);
    const swap = (list: string[]) =>
      list.map((p) => {
        if (!hit(p)) return p;
        changed += 1;
        return newId + p.slice(oldId.length);
      });
    await this.deps.store.updateIndex((doc) => {
      doc.draftPins = swap(doc.draftPins);
    });
    // Only the sessions the index says pin it are written (each under its own lock, re-read first).
    const index = await this.deps.store.readyIndex();
    for (const key of index.pinning(oldId)) {
      // Bookkeeping, not activity: a rename followed keeps the session's last activity (retention still sees it idle).
      await this.deps.store.update(
        key,
        (current) => (current && current.project_context_pins.some(hit) ? { ...current, project_context_pins: swap(current.project_context_pins) } : undefined),
        { activity: false },
      );
    }
    return changed;
  }

  /**
   * Retention: removes every session with no activity for `days` days (0: keep everything) — its file, with its
   * pins and delivery record — and its session-scope memory. Answers the keys removed.
   */
  async prune(days: number, now = Date.now(), onMemoryKept?: (err: Error) => void): Promise<{ pruned: string[]; memoryEntries: number }> {
    if (!(days > 0)) return { pruned: [], memoryEntries: 0 };
    const cutoff = now - days * 86_400_000;
    const pruned: string[] = [];
    const index = await this.deps.store.readyIndex();
    for (const key of index.idleBefore(cutoff)) {
      // Re-checked under the session's lock: another window may have just used it.
      await this.deps.store.update(key, (current) => {
        if (!current || lastActivity(current) >= cutoff) return undefined;
        pruned.push(current.key);
        return 'delete';
      });
    }
    let memoryEntries = 0;
    if (pruned.length > 0 && this.deps.forgetSessionMemory) {
      try {
        memoryEntries = await this.deps.forgetSessionMemory(new Set(pruned));
      } catch (err) {
        onMemoryKept?.(err as Error); // read-only memory: the sessions go, their memory stays (said in the answer)
      }
    }
    return { pruned, memoryEntries };
  }
}
