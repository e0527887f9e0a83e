/**
 * The sessions store: one small file per session, so that one session's write costs the same at 100 sessions
 * and at 100k. Layout, in the workspace's folder of global storage (see `paths.ts`):
 *
 *   sessions.json            the index: `{ schemaVersion: 2, draftPins, …unknown fields kept }`
 *   sessions-index.json/.log its secondary indexes (scheduled names, pins, last activity, newest first):
 *                            `sessionIndex.ts`, one journal line appended with each session write under its lock
 *   sessions/<name>.json     one session (`SessionFileSchema`), `<name>` derived from its key (`sessionFileName`)
 *
 * Guarantees, per file, as for every document of the store (tests: test/unit/sessionStore.test.ts, store.test.ts,
 * sessionIndex.test.ts, crashRecovery.test.ts):
 * - writes are atomic (temp + fsync + rename: `writeSmallFileAtomic`, without a folder fsync — a power loss may undo
 *   the last write, never tear it) and read-modify-write under that file's cross-process lock (a link whose target
 *   is its owner), re-reading the file first (through the stat-keyed cache: an unchanged file is not read again):
 *   two windows writing the same session lose nothing; writing different sessions, they never wait for each other;
 * - no hot path lists every session: claims, pin renames, pruning and the panel's pages go through the indexes;
 * - a malformed session file is set aside (`<name>.json.malformed-<time>`), reported with both paths, and the
 *   session reads as unknown; every other session loads; a malformed index is set aside by `JsonDocument`;
 * - unknown fields (a newer version's) are kept on the round trip.
 *
 * Migration from version 1 (one `sessions.json` holding every session): `sessionSplit.ts`. One session's file (read,
 * written, set aside): `sessionFiles.ts`.
 */
import { promises as fs } from 'node:fs';
import { basename, join } from 'node:path';
import { JsonDocument } from './jsonDocument';
import { removeDeadTempFiles, withFileLock, writeSmallFileAtomic } from './atomicFile';
import { SessionIndex, decodeCursor, encodeCursor, entryOf, type PageCursor } from './sessionIndex';
import { SessionFiles, lastActivity, serializeSession, sessionFileName, sessionsDirOf, statKeyOf } from './sessionFiles';
import { splitSessionsFile } from './sessionSplit';
import { SESSIONS_SCHEMA_VERSION, SessionsIndexSchema, sessionsIndexDefaults, sessionsMigrations, type SessionMeta, type SessionsIndex } from './storeSchemas';
import type { StoreHealth, StoreProblem } from '../../../shared/schemas';

export interface SessionStoreOptions {
  /** `sessions.json` (the index); the sessions go in `sessions/` beside it. */
  indexPath: string;
  onProblem?: (problem: StoreProblem) => void;
  /** Tests: called after each session file the migration writes (a test kills the process here). */
  onMigrateProgress?: (written: number, total: number) => void;
  /** Tests: fold the index's journal into its snapshot past this many lines. */
  indexFoldAfter?: number;
  /** Tests: drop an index journal nobody folded past this size. */
  indexMaxJournalBytes?: number;
}

export { lastActivity, sessionFileName, sessionsDirOf } from './sessionFiles';

/** What `update` answers: the session as written, or undefined when there was none (and nothing was written). */
export type SessionUpdate = (current: SessionMeta | undefined) => SessionMeta | undefined | 'delete';

/**
 * `activity` (default true): the write is something that happened to the session — a message, a pin change or a
 * delivery — and stamps `lastActivityAt` (retention prunes by it). `false`: bookkeeping (a rename followed) keeps the
 * stamp it had. Reads write nothing at all.
 */
export interface SessionUpdateOptions {
  activity?: boolean;
}

export class SessionStore {
  readonly index: JsonDocument<SessionsIndex>;
  /** The secondary indexes (scheduled names, pins, last activity, newest first): `sessionIndex.ts`. */
  readonly sessionIndex: SessionIndex;
  readonly dir: string;
  private opened: Promise<void> | null = null;
  /** Per-file queues: this process's own writes of one session, in order (the file lock orders processes). */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** The session files: read through a stat-keyed cache, set aside when malformed (`sessionFiles.ts`). */
  private readonly files: SessionFiles;
  private listed: { dirStat: string; sessions: SessionMeta[] } | null = null;
  /** The index was malformed at open and set aside (health says so until the next write). */
  private setAsideAtOpen = false;

  constructor(readonly options: SessionStoreOptions) {
    this.dir = sessionsDirOf(options.indexPath);
    this.files = new SessionFiles(this.dir, options.onProblem);
    this.index = new JsonDocument<SessionsIndex>({
      source: 'sessions',
      path: options.indexPath,
      schema: SessionsIndexSchema,
      currentVersion: SESSIONS_SCHEMA_VERSION,
      defaults: sessionsIndexDefaults,
      migrations: sessionsMigrations,
      onProblem: options.onProblem,
    });
    this.sessionIndex = new SessionIndex({
      indexPath: options.indexPath,
      dir: this.dir,
      activityOf: lastActivity,
      ...(options.indexFoldAfter !== undefined ? { foldAfter: options.indexFoldAfter } : {}),
      ...(options.indexMaxJournalBytes !== undefined ? { maxJournalBytes: options.indexMaxJournalBytes } : {}),
      reindex: (file, key) => this.reindex(file, key),
      read: async (file) => {
        const path = join(this.dir, file);
        const session = await this.files.read(path, undefined);
        // A file under another session's name (copied by hand) is not that session: `get` would not find it either.
        if (!session || sessionFileName(session.key) !== file) return undefined;
        return { session, stat: this.files.statOf(file) };
      },
    });
  }

  get indexPath(): string {
    return this.options.indexPath;
  }

  pathOf(key: string): string {
    return this.files.pathOf(key);
  }

  /** Migrates (when needed), sweeps crash leftovers, loads the index. Once per store; later calls wait for the first. */
  open(): Promise<void> {
    if (this.opened && this.splitCheckedAt !== null && statKeyOf(this.options.indexPath) !== this.splitCheckedAt) {
      // sessions.json changed since this store last looked: an older version (a window, a hook) may have put sessions
      // back into it. Split them again, so this running store (and its index) sees them too.
      const again = this.opened.then(() => this.migrate());
      this.opened = again;
    }
    this.opened ??= (async () => {
      await this.migrate();
      await removeDeadTempFiles(this.dir);
      await this.index.load();
    })();
    const opened = this.opened;
    opened.catch(() => (this.opened = null)); // a failed open is tried again next time
    return opened;
  }

  /**
   * The secondary indexes, up to date: the store opened first (an old single-file store split, so the index is built
   * from the split files), then this process's copy brought up to date. What claims, renames and retention read.
   */
  async readyIndex(): Promise<SessionIndex> {
    await this.open();
    await this.sessionIndex.ready();
    return this.sessionIndex;
  }

  /** The stat of sessions.json when this store last checked whether it holds sessions to split (null: never). */
  private splitCheckedAt: string | null = null;

  health(): StoreHealth {
    const h = this.index.health();
    return this.setAsideAtOpen && h.state === 'missing' ? { ...h, state: 'set-aside', schemaVersion: null } : h;
  }

  // ---- migration ----------------------------------------------------------------------------------------

  /** Moves sessions kept in `sessions.json` into their own files (`sessionSplit.ts`). */
  private async migrate(): Promise<void> {
    const out = await splitSessionsFile({
      indexPath: this.options.indexPath,
      files: this.files,
      record: (change) => this.sessionIndex.record(change),
      ...(this.options.onProblem ? { onProblem: this.options.onProblem } : {}),
      ...(this.options.onMigrateProgress ? { onMigrateProgress: this.options.onMigrateProgress } : {}),
    });
    if (out.setAside) this.setAsideAtOpen = true;
    this.splitCheckedAt = out.checkedAt;
  }

  // ---- one session --------------------------------------------------------------------------------------

  /** One session, read from its file now; undefined when there is none (or it was malformed and set aside). */
  async get(key: string): Promise<SessionMeta | undefined> {
    await this.open();
    return this.files.read(this.pathOf(key), key);
  }

  /**
   * Read-modify-write of one session under its file's lock. `fn` receives the session as on disk now (undefined
   * when there is none) and answers the session to write, undefined to write nothing, or 'delete'. A write moves
   * `lastActivityAt` unless it says it is not activity.
   */
  async update(key: string, fn: SessionUpdate, options: SessionUpdateOptions = {}): Promise<SessionMeta | undefined> {
    await this.open();
    const path = this.pathOf(key);
    const run = () =>
      withFileLock(
        path,
        async () => {
          const current = await this.files.read(path, key);
          const next = fn(current);
          if (next === undefined) return current === undefined ? undefined : current;
          const name = basename(path);
          if (next === 'delete') {
            await fs.rm(path, { force: true });
            this.files.wrote(name, null, undefined);
            this.sessionIndex.record({ del: key, file: name });
            return undefined;
          }
          const written: SessionMeta = options.activity === false ? { ...next, key } : { ...next, key, lastActivityAt: new Date().toISOString() };
          await writeSmallFileAtomic(path, serializeSession(written));
          const stat = statKeyOf(path);
          this.files.wrote(name, stat, written);
          this.sessionIndex.record({ put: entryOf(written, name, stat, lastActivity(written)) });
          return written;
        },
        { sweepTemps: false, link: true },
      );
    return this.enqueue(path, run);
  }

  /** This process's writes of one file, in order (the file lock orders processes). */
  private enqueue<T>(path: string, run: () => Promise<T>): Promise<T> {
    const queued = (this.queues.get(path) ?? Promise.resolve()).then(run, run);
    const tail = queued.catch(() => undefined);
    this.queues.set(path, tail);
    void tail.then(() => {
      if (this.queues.get(path) === tail) this.queues.delete(path);
    });
    return queued;
  }

  /** Indexes one session file again from what is on disk now, under its lock (the index found it changed behind its back). */
  private reindex(file: string, key: string | undefined): Promise<void> {
    const path = join(this.dir, file);
    return this.enqueue(path, () =>
      withFileLock(
        path,
        async () => {
          const session = await this.files.read(path, undefined);
          if (session && sessionFileName(session.key) === file) {
            this.sessionIndex.record({ put: entryOf(session, file, this.files.statOf(file), lastActivity(session)) });
          } else if (key !== undefined) {
            this.sessionIndex.record({ del: key, file });
          }
        },
        { sweepTemps: false, link: true },
      ),
    );
  }

  // ---- pages ----------------------------------------------------------------------------------------------

  /**
   * Sessions newest first (createdAt, then key), `limit` at a time. `cursor`: the `next` of the page before; a
   * session created between two pages never shifts the next one (it sorts before the cursor). Reads only the
   * page's files.
   */
  async page(limit: number, cursor?: string): Promise<{ sessions: SessionMeta[]; total: number; next: string | null }> {
    await this.open();
    await this.sessionIndex.ready({ checkInBackground: true });
    let after: PageCursor | undefined = cursor ? (decodeCursor(cursor) ?? undefined) : undefined;
    const out: SessionMeta[] = [];
    let gone = 0;
    while (out.length < limit) {
      // Where each key sits, taken now: the index may move on while the files are read.
      const at = this.sessionIndex.newest(limit - out.length, after).map((k) => ({ createdAt: this.sessionIndex.entry(k)!.createdAt, key: k }));
      if (at.length === 0) break;
      const read = await Promise.all(at.map((c) => this.files.read(this.pathOf(c.key), c.key)));
      at.forEach((c, i) => {
        const s = read[i];
        if (s) out.push(s);
        else gone += 1;
        after = c;
      });
    }
    // A session the index names but whose file is gone (removed behind its back): indexed again, off this page.
    if (gone > 0) void this.sessionIndex.verifyNow().catch(() => undefined);
    const more = after !== undefined && this.sessionIndex.newest(1, after).length > 0;
    return { sessions: out, total: this.sessionIndex.size - gone, next: more && after ? encodeCursor(after) : null };
  }

  // ---- every session ------------------------------------------------------------------------------------

  /**
   * Every session. Re-reads only the files whose stat changed since this process last read them; when the
   * folder itself is unchanged (no file written, added or removed: every write renames into it), answers at once.
   */
  async list(): Promise<SessionMeta[]> {
    await this.open();
    const dirStat = statKeyOf(this.dir);
    if (dirStat === null) return [];
    if (this.listed && this.listed.dirStat === dirStat) return this.listed.sessions;
    const names = (await fs.readdir(this.dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    const present = new Set(names);
    this.files.keepOnly(present);
    const out: SessionMeta[] = [];
    for (let i = 0; i < names.length; i += 64) {
      const chunk = await Promise.all(names.slice(i, i + 64).map((name) => this.files.read(join(this.dir, name), undefined)));
      for (const s of chunk) if (s) out.push(s);
    }
    this.listed = { dirStat, sessions: out };
    return out;
  }

  /** How many sessions there are (one readdir; no file is read). */
  async count(): Promise<number> {
    await this.open();
    try {
      return (await fs.readdir(this.dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.')).length;
    } catch {
      return 0;
    }
  }

  /** Draft pins and other index fields: a read-modify-write of the small index under its lock. */
  async updateIndex(fn: (doc: SessionsIndex) => SessionsIndex | void): Promise<SessionsIndex> {
    await this.open();
    return this.index.update(fn);
  }

  async loadIndex(): Promise<SessionsIndex> {
    await this.open();
    return this.index.load();
  }

  /** Runs `fn` holding the index's lock: a find-or-create across sessions that only one window may do at a time. */
  async withIndexLock<T>(fn: () => Promise<T>): Promise<T> {
    await this.open();
    return withFileLock(this.options.indexPath, fn);
  }
}
