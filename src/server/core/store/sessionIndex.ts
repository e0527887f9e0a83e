/**
 * The sessions' secondary indexes, so that no hot path lists every session: scheduled sessions by name (claims),
 * sessions by pin (renames), by last activity (pruning) and newest first (the panel's pages). Part of the sessions
 * index, beside `sessions.json`:
 *
 *   sessions-index.json      the snapshot: `{ format, entries: [[key, file, createdAt, activity, origin, label, pins, stat], …] }`
 *   sessions-index.log       the journal: one JSON line per session write or removal since the snapshot
 *   sessions-index.log.old   the journal being folded into the snapshot (a crash leaves it; loads read it)
 *
 * Writing: each session write appends one journal line under that session's lock (`sessionJournal.ts`). The rows'
 * format is `sessionIndexRows.ts`; the orders pruning and the pages walk are `orderedKeys.ts`.
 *
 * Reading: the snapshot, then the old journal, then the journal, applied in that order (each line replaces the
 * session's entry); afterwards only the journal's new bytes are read. Folding the journal into the snapshot and
 * rebuilding take `sessions-index.json.lock`.
 *
 * What is trusted and when it is rebuilt (tests: test/unit/sessionIndex.test.ts):
 * - missing snapshot (a new store, or one written by a version before the index), another format, a snapshot that
 *   does not parse, or a complete journal line that does not parse: rebuilt from the session files;
 * - at each process's first use, every session file's stat (inode, size, mtime) is compared with the one its entry
 *   recorded, and files added or removed are found: a session written by an older version, edited or removed by
 *   hand, or written by a process killed between its rename and its journal line, is indexed again from its file;
 * - the callers re-read each session the index names under its lock before acting on it (a claim, a rename, a prune),
 *   and a claim that finds no session by its name checks every file again before it creates one.
 */
import { promises as fs, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { withFileLock, writeFileAtomic } from './atomicFile';
import type { SessionMeta } from './storeSchemas';
import { SESSION_INDEX_FORMAT, entryOf, toRow, type Change, type IndexEntry, type PageCursor } from './sessionIndexRows';
import { CorruptIndexError, IndexEntries } from './indexEntries';
import { SessionJournal, inoOf, readOrNull } from './sessionJournal';
import { statKeyOf } from './sessionFiles';

export { MAX_JOURNAL_BYTES } from './sessionJournal';
export { CorruptIndexError } from './indexEntries';
export { SESSION_INDEX_FORMAT, decodeCursor, encodeCursor, entryOf, type IndexEntry, type PageCursor } from './sessionIndexRows';

interface Tail {
  /** The inode of the journal read so far (null: there was none). */
  ino: number | null;
  /** Bytes of it applied (always at a line's end). */
  offset: number;
  /** The snapshot's stat when it was read. */
  snapshot: string | null;
}

export interface SessionIndexDeps {
  /** `sessions.json`: the index files sit beside it. */
  indexPath: string;
  /** The folder of session files. */
  dir: string;
  /** Indexes one session file again from what is on disk, under its lock (appends its line, or its removal of `key`). */
  reindex: (file: string, key: string | undefined) => Promise<void>;
  /** Reads one session file by name (a malformed one is set aside and reads as undefined). */
  read: (file: string) => Promise<{ session: SessionMeta; stat: string | null } | undefined>;
  activityOf: (s: SessionMeta) => number;
  /** Fold the journal into the snapshot past this many lines (default: 2,000 or a quarter of the sessions). */
  foldAfter?: number;
  /** Drop a journal nobody folds past this size (default `MAX_JOURNAL_BYTES`). */
  maxJournalBytes?: number;
}

export class SessionIndex {
  readonly snapshotPath: string;
  readonly journalPath: string;
  readonly oldJournalPath: string;
  /** The entries and their indexes, in this process (`indexEntries.ts`). */
  private readonly state = new IndexEntries();
  private tail: Tail | null = null;
  private verified = false;
  private readonly journal: SessionJournal;
  private queue: Promise<unknown> = Promise.resolve();
  /** Tests and the bench: what the last `ready` did. */
  lastReady: 'loaded' | 'rebuilt' | 'tail' = 'tail';
  rebuilds = 0;
  folds = 0;
  /** Sessions indexed again because their file differed from their entry (added, changed or removed behind its back). */
  reindexed = 0;

  constructor(private readonly deps: SessionIndexDeps) {
    const base = dirname(deps.indexPath);
    this.snapshotPath = join(base, 'sessions-index.json');
    this.journalPath = join(base, 'sessions-index.log');
    this.oldJournalPath = `${this.journalPath}.old`;
    this.journal = new SessionJournal(this.journalPath, this.snapshotPath, this.oldJournalPath, deps.maxJournalBytes);
  }

  // ---- writing (any process; no load needed: `sessionJournal.ts`) ------------------------------------------

  /** Appends one change; called under the session's file lock, after its file was written or removed. */
  record(change: Change): void {
    this.journal.append(change);
  }

  close(): void {
    this.journal.close();
  }


  // ---- reading --------------------------------------------------------------------------------------------

  /**
   * Brings this process's copy up to date: the first time, loads (or rebuilds) and checks every file; afterwards
   * reads the journal's new lines. In-process calls are serialised.
   */
  ready(options: { checkInBackground?: boolean } = {}): Promise<void> {
    return this.enqueue(() => this.readyNow(options.checkInBackground === true));
  }

  private enqueue(run: () => Promise<void>): Promise<void> {
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  /** Checks every session file against its entry again (a claim that found nothing does, before it creates). */
  verifyNow(): Promise<void> {
    return this.enqueue(async () => {
      await this.readyNow(false);
      await this.verify();
    });
  }

  private checkQueued = false;

  /**
   * `checkInBackground`: the first use of a process answers from the index as loaded and checks the files after it
   * (the panel's first page: it reads its sessions' files anyway). Claims, renames and pruning wait for the check.
   */
  private async readyNow(checkInBackground: boolean): Promise<void> {
    try {
      if (this.tail === null) {
        await this.load();
        this.lastReady = 'loaded';
      } else {
        await this.syncTail();
        this.lastReady = 'tail';
      }
    } catch (err) {
      if (!(err instanceof CorruptIndexError)) throw err;
      await this.rebuild();
      this.lastReady = 'rebuilt';
    }
    if (!this.verified) {
      if (!checkInBackground) {
        await this.verify();
        this.verified = true;
      } else if (!this.checkQueued) {
        this.checkQueued = true;
        void this.enqueue(async () => {
          if (this.verified) return;
          await this.verify();
          this.verified = true;
        }).finally(() => (this.checkQueued = false));
      }
    }
    if (this.state.journalLines > (this.deps.foldAfter ?? Math.max(2000, this.state.size / 4))) await this.fold();
  }

  /** Reads the snapshot and both journals consistently (retried while a fold moves them). */
  private async load(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const j0 = inoOf(this.journalPath);
      const s0 = statKeyOf(this.snapshotPath);
      const snapshot = await readOrNull(this.snapshotPath);
      const old = await readOrNull(this.oldJournalPath);
      const journal = await readOrNull(this.journalPath);
      const j1 = inoOf(this.journalPath);
      const s1 = statKeyOf(this.snapshotPath);
      if ((j0 !== j1 || s0 !== s1) && attempt < 20) continue;
      if (snapshot === null) throw new CorruptIndexError('no snapshot');
      this.state.clear();
      this.state.applySnapshot(snapshot);
      if (old !== null) this.state.applyLines(old, true);
      const used = journal === null ? 0 : this.state.applyLines(journal, false);
      this.tail = { ino: j1, offset: Buffer.byteLength(journal?.slice(0, used) ?? '', 'utf8'), snapshot: s1 };
      return;
    }
  }

  private async syncTail(): Promise<void> {
    const tail = this.tail!;
    let st: { ino: number; size: number } | null = null;
    try {
      st = statSync(this.journalPath);
    } catch {
      st = null;
    }
    const ino = st?.ino ?? null;
    // Every fold, rebuild or drop changes the snapshot, and frees the old journal's inode only after that: checked
    // after the journal's stat, a changed snapshot catches a new journal that reuses the old one's inode number.
    if (statKeyOf(this.snapshotPath) !== tail.snapshot) return this.load();
    if (ino !== tail.ino) {
      // A journal created since (none at load, the snapshot unchanged, no fold under way): read it from its start.
      const fresh = tail.ino === null && inoOf(this.oldJournalPath) === null;
      if (!fresh) return this.load();
      tail.ino = ino;
      tail.offset = 0;
    }
    if (!st || st.size === tail.offset) return;
    if (st.size < tail.offset) return this.load();
    const handle = await fs.open(this.journalPath, 'r');
    try {
      if ((await handle.stat()).ino !== tail.ino) return this.load();
      const buf = Buffer.alloc(st.size - tail.offset);
      const { bytesRead } = await handle.read(buf, 0, buf.length, tail.offset);
      const bytes = buf.subarray(0, bytesRead);
      const end = bytes.lastIndexOf(0x0a);
      if (end < 0) return;
      this.state.applyLines(bytes.subarray(0, end + 1).toString('utf8'), true);
      tail.offset += end + 1;
    } finally {
      await handle.close();
    }
  }

  /**
   * Compares every session file with its entry (stat; files added or gone) and indexes the differing ones again,
   * each under its lock. Every later change comes through the journal.
   */
  private async verify(): Promise<void> {
    let names: string[];
    try {
      names = (await fs.readdir(this.deps.dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    } catch {
      names = [];
    }
    const present = new Set(names);
    const stale: string[] = [];
    for (const [i, name] of names.entries()) {
      // Yields now and then: the check may run beside the panel's first page, whose reads must not wait for it.
      if (i % 256 === 255) await new Promise<void>((r) => setImmediate(r));
      const key = this.state.keyOfFile(name);
      const e = key === undefined ? undefined : this.state.entry(key);
      if (!e || e.stat === '' || statKeyOf(join(this.deps.dir, name)) !== e.stat) stale.push(name);
    }
    for (const file of this.state.files()) if (!present.has(file)) stale.push(file);
    if (stale.length === 0) return;
    // Many: an older version wrote here for a long while; reading every file at once is cheaper than one lock each.
    if (stale.length > Math.max(1000, names.length / 10)) return this.rebuild(true);
    this.reindexed += stale.length;
    for (let i = 0; i < stale.length; i += 32) await Promise.all(stale.slice(i, i + 32).map((f) => this.deps.reindex(f, this.state.keyOfFile(f))));
    await this.syncTail();
  }

  /** Builds the snapshot from every session file (the index was missing, of another format, or corrupt). */
  private async rebuild(force = false): Promise<void> {
    const built = await withFileLock(this.snapshotPath, async () => {
      // Another process may have just rebuilt it (both found it missing): then its work is read, not repeated.
      if (!force) {
        try {
          await this.load();
          return false;
        } catch (err) {
          if (!(err instanceof CorruptIndexError)) throw err;
        }
      }
      this.rebuilds += 1;
      // Lines written from now on go to a new journal, applied over the snapshot built below.
      await fs.rename(this.journalPath, this.oldJournalPath).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      this.state.clear();
      let names: string[];
      try {
        names = (await fs.readdir(this.deps.dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
      } catch {
        names = [];
      }
      for (let i = 0; i < names.length; i += 64) {
        const chunk = await Promise.all(names.slice(i, i + 64).map(async (file) => ({ file, got: await this.deps.read(file) })));
        for (const { file, got } of chunk) if (got) this.state.put(entryOf(got.session, file, got.stat, this.deps.activityOf(got.session)), false);
      }
      await this.writeSnapshot();
      await fs.rm(this.oldJournalPath, { force: true });
      return true;
    }, { sweepTemps: false });
    if (built) this.verified = true; // every file was just read
    await this.syncTail();
  }

  /** Folds the journal into the snapshot (this process's copy is current up to the journal's end). */
  private async fold(): Promise<void> {
    await withFileLock(this.snapshotPath, async () => {
      await this.syncTail();
      if (!this.tail || this.tail.ino === null) return;
      const before = this.tail;
      this.folds += 1;
      try {
        await fs.rename(this.journalPath, this.oldJournalPath);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      // The rest of the old journal (lines written since the last read).
      const old = await fs.readFile(this.oldJournalPath);
      if (inoOf(this.oldJournalPath) !== before.ino) throw new CorruptIndexError('the journal moved during a fold');
      this.state.applyLines(old.subarray(before.offset).toString('utf8'), true);
      await this.writeSnapshot();
      await fs.rm(this.oldJournalPath, { force: true });
    }, { sweepTemps: false });
    await this.syncTail();
  }

  private async writeSnapshot(): Promise<void> {
    const rows = [...this.state.all()].map((e) => JSON.stringify(toRow(e)));
    await writeFileAtomic(this.snapshotPath, `{"format":${SESSION_INDEX_FORMAT},"entries":[\n${rows.join(',\n')}\n]}\n`);
    this.state.snapshotWritten();
    this.tail = { ino: null, offset: 0, snapshot: statKeyOf(this.snapshotPath) };
  }

  // ---- queries (after `ready`): `indexEntries.ts` --------------------------------------------------------

  get size(): number {
    return this.state.size;
  }

  entry(key: string): IndexEntry | undefined {
    return this.state.entry(key);
  }

  /** Keys of scheduled sessions named `name`, oldest first. */
  scheduled(name: string): string[] {
    return this.state.scheduled(name);
  }

  /** Keys of sessions pinning `id` or anything under it (`id/…`). */
  pinning(id: string): string[] {
    return this.state.pinning(id);
  }

  /** Keys of sessions whose last activity is before `cutoff` (ms). */
  idleBefore(cutoff: number): string[] {
    return this.state.idleBefore(cutoff);
  }

  /** Up to `limit` keys, newest first (createdAt, then key), after `cursor`. */
  newest(limit: number, cursor?: PageCursor): string[] {
    return this.state.newest(limit, cursor);
  }
}
