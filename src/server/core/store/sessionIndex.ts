/**
 * The sessions' secondary indexes, so that no hot path lists every session: scheduled sessions by name (claims),
 * sessions by pin (renames), by last activity (pruning) and newest first (the panel's pages). Part of the sessions
 * index, beside `sessions.json`:
 *
 *   sessions-index.json      the snapshot: `{ format, entries: [[key, file, createdAt, activity, origin, label, pins, stat], …] }`
 *   sessions-index.log       the journal: one JSON line per session write or removal since the snapshot
 *   sessions-index.log.old   the journal being folded into the snapshot (a crash leaves it; loads read it)
 *
 * Writing: each session write appends its line under that session's file lock, after the session file's rename
 * (`O_APPEND`, one `write`, no fsync: the index is derived data, checked against the files at each process's first
 * use). A writer then checks that the journal it wrote to is still the journal (a fold may have moved it meanwhile)
 * and appends again if not; a line applied twice is harmless, and lines of one session stay in its lock's order.
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
import { closeSync, fstatSync, openSync, promises as fs, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { withFileLock, writeFileAtomic } from './atomicFile';
import type { SessionMeta } from './storeSchemas';

export const SESSION_INDEX_FORMAT = 1;
/** A journal no reader folded (only agents' hooks write here) is dropped past this size; the next reader rebuilds. */
export const MAX_JOURNAL_BYTES = 16 * 1024 * 1024;

export interface IndexEntry {
  key: string;
  /** The session's file name in `sessions/`. */
  file: string;
  createdAt: string;
  /** `lastActivity` of the session (ms; -Infinity when it has no date). */
  activity: number;
  origin: SessionMeta['origin'];
  label: string | null;
  pins: string[];
  /** The file's stat (`ino:size:mtimeNs`) as written; '' when unknown. */
  stat: string;
}

type Row = [string, string, string, number | null, string, string | null, string[], string];
const ORIGINS = new Set(['chat', 'api', 'dispatch', 'schedule']);

function toRow(e: IndexEntry): Row {
  return [e.key, e.file, e.createdAt, Number.isFinite(e.activity) ? e.activity : null, e.origin, e.label, e.pins, e.stat];
}

function fromRow(raw: unknown): IndexEntry | null {
  if (!Array.isArray(raw) || raw.length !== 8) return null;
  const [key, file, createdAt, activity, origin, label, pins, stat] = raw as unknown[];
  if (typeof key !== 'string' || typeof file !== 'string' || typeof createdAt !== 'string' || typeof stat !== 'string') return null;
  if (activity !== null && typeof activity !== 'number') return null;
  if (typeof origin !== 'string' || !ORIGINS.has(origin)) return null;
  if (label !== null && typeof label !== 'string') return null;
  if (!Array.isArray(pins) || !pins.every((p) => typeof p === 'string')) return null;
  return { key, file, createdAt, activity: activity ?? Number.NEGATIVE_INFINITY, origin: origin as IndexEntry['origin'], label, pins: pins as string[], stat };
}

/** One journal line: an entry written, or a session removed. */
type Change = { put: IndexEntry } | { del: string; file: string };

function parseLine(line: string): Change | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const o = raw as { u?: unknown; d?: unknown };
  if (o.u !== undefined) {
    const put = fromRow(o.u);
    return put ? { put } : null;
  }
  if (Array.isArray(o.d) && o.d.length === 2 && typeof o.d[0] === 'string' && typeof o.d[1] === 'string') return { del: o.d[0], file: o.d[1] };
  return null;
}

/** The entry of `session`, written to `file` with `stat`. */
export function entryOf(session: SessionMeta, file: string, stat: string | null, activity: number): IndexEntry {
  return {
    key: session.key,
    file,
    createdAt: session.createdAt,
    activity,
    origin: session.origin,
    label: session.label ?? null,
    pins: [...session.project_context_pins],
    stat: stat ?? '',
  };
}

/** The newest-first order of the panel: createdAt descending, then key descending. */
export interface PageCursor {
  createdAt: string;
  key: string;
}

export function encodeCursor(c: PageCursor): string {
  return Buffer.from(JSON.stringify([c.createdAt, c.key]), 'utf8').toString('base64url');
}

export function decodeCursor(text: string): PageCursor | null {
  try {
    const raw = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(raw) && raw.length === 2 && typeof raw[0] === 'string' && typeof raw[1] === 'string') return { createdAt: raw[0], key: raw[1] };
  } catch {
    /* not ours */
  }
  return null;
}

type Rank = number | string;
const cmp = (a: Rank, b: Rank): number => (a < b ? -1 : a > b ? 1 : 0);
const cmpPair = (ar: Rank, ak: string, br: Rank, bk: string): number => cmp(ar, br) || cmp(ak, bk);

/**
 * Keys ordered ascending by (rank, key): a sorted array, plus the keys changed since it was sorted (checked one by
 * one); re-sorted when those grow past an eighth of it. A sorted element whose key changed since is skipped.
 */
class Ordered {
  private sorted: { r: Rank; k: string }[] = [];
  private readonly changed = new Set<string>();

  constructor(
    private readonly entries: Map<string, IndexEntry>,
    private readonly rankOf: (e: IndexEntry) => Rank,
  ) {}

  reset(): void {
    this.sorted = [...this.entries.values()].map((e) => ({ r: this.rankOf(e), k: e.key }));
    this.sorted.sort((a, b) => cmpPair(a.r, a.k, b.r, b.k));
    this.changed.clear();
  }

  touch(key: string): void {
    this.changed.add(key);
    if (this.changed.size > Math.max(1024, this.sorted.length / 8)) this.reset();
  }

  private valid(x: { r: Rank; k: string }): boolean {
    if (this.changed.has(x.k)) return false;
    const e = this.entries.get(x.k);
    return e !== undefined && this.rankOf(e) === x.r;
  }

  private changedEntries(): { r: Rank; k: string }[] {
    const out: { r: Rank; k: string }[] = [];
    for (const k of this.changed) {
      const e = this.entries.get(k);
      if (e) out.push({ r: this.rankOf(e), k });
    }
    return out;
  }

  /** Every key whose rank is below `limit`. */
  below(limit: Rank): string[] {
    const out: string[] = [];
    for (const x of this.sorted) {
      if (!(x.r < limit)) break;
      if (this.valid(x)) out.push(x.k);
    }
    for (const x of this.changedEntries()) if (x.r < limit) out.push(x.k);
    return out;
  }

  /** Up to `limit` keys in descending order, strictly after `after` (in that order) when given. */
  descending(limit: number, after?: { r: Rank; k: string }): string[] {
    // The first sorted position at or past `after` (ascending): everything before it comes after `after` descending.
    let hi = this.sorted.length;
    if (after) {
      let lo = 0;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const m = this.sorted[mid]!;
        if (cmpPair(m.r, m.k, after.r, after.k) < 0) lo = mid + 1;
        else hi = mid;
      }
    }
    const extra = this.changedEntries()
      .filter((x) => !after || cmpPair(x.r, x.k, after.r, after.k) < 0)
      .sort((a, b) => cmpPair(b.r, b.k, a.r, a.k));
    const out: string[] = [];
    let i = hi - 1;
    let j = 0;
    while (out.length < limit && (i >= 0 || j < extra.length)) {
      const s = i >= 0 ? this.sorted[i]! : undefined;
      const x = extra[j];
      if (s && (!x || cmpPair(s.r, s.k, x.r, x.k) > 0)) {
        i -= 1;
        if (this.valid(s)) out.push(s.k);
      } else if (x) {
        j += 1;
        out.push(x.k);
      }
    }
    return out;
  }
}

export class CorruptIndexError extends Error {}

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

function statKeyOf(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return null;
  }
}

function inoOf(path: string): number | null {
  try {
    return statSync(path).ino;
  } catch {
    return null;
  }
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export class SessionIndex {
  readonly snapshotPath: string;
  readonly journalPath: string;
  readonly oldJournalPath: string;
  private readonly entries = new Map<string, IndexEntry>();
  private readonly byFile = new Map<string, string>();
  private readonly byName = new Map<string, Set<string>>();
  private readonly byPin = new Map<string, Set<string>>();
  private readonly byActivity = new Ordered(this.entries, (e) => e.activity);
  private readonly byCreated = new Ordered(this.entries, (e) => e.createdAt);
  private tail: Tail | null = null;
  private verified = false;
  /** Journal lines applied since the snapshot (a fold is due past a threshold). */
  private journalLines = 0;
  /** This process's journal descriptor, and the inode it points at. */
  private fd: { fd: number; ino: number } | null = null;
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
  }

  // ---- writing (any process; no load needed) --------------------------------------------------------------

  /** Appends one change; called under the session's file lock, after its file was written or removed. */
  record(change: { put: IndexEntry } | { del: string; file: string }): void {
    const line = `${JSON.stringify('put' in change ? { u: toRow(change.put) } : { d: [change.del, change.file] })}\n`;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (!this.fd) {
        const fd = openSync(this.journalPath, 'a', 0o600);
        this.fd = { fd, ino: fstatSync(fd).ino };
      }
      writeSync(this.fd.fd, line);
      // Still the journal? A fold renamed it meanwhile: this line may have missed it; append it to the new one.
      let now: { ino: number; size: number } | null = null;
      try {
        now = statSync(this.journalPath);
      } catch {
        now = null;
      }
      if (now?.ino === this.fd.ino) {
        if (now.size > (this.deps.maxJournalBytes ?? MAX_JOURNAL_BYTES)) void this.dropWhenLarge().catch(() => undefined);
        return;
      }
      this.closeJournal();
    }
  }

  /**
   * Writers that never read the index (Claude Code's hook, the MCP server, with no VS Code window to fold the
   * journal) would let it grow without end: past `MAX_JOURNAL_BYTES` the index is dropped, and the next reader
   * rebuilds it from the session files.
   */
  private async dropWhenLarge(): Promise<void> {
    await withFileLock(this.snapshotPath, async () => {
      try {
        if (statSync(this.journalPath).size <= (this.deps.maxJournalBytes ?? MAX_JOURNAL_BYTES)) return;
      } catch {
        return;
      }
      await fs.rm(this.snapshotPath, { force: true });
      await fs.rm(this.oldJournalPath, { force: true });
      await fs.rm(this.journalPath, { force: true });
    }, { sweepTemps: false });
  }

  private closeJournal(): void {
    if (!this.fd) return;
    try {
      closeSync(this.fd.fd);
    } catch {
      /* already closed */
    }
    this.fd = null;
  }

  close(): void {
    this.closeJournal();
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
    if (this.journalLines > (this.deps.foldAfter ?? Math.max(2000, this.entries.size / 4))) await this.fold();
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
      this.clear();
      this.applySnapshot(snapshot);
      if (old !== null) this.applyLines(old, true);
      const used = journal === null ? 0 : this.applyLines(journal, false);
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
      this.applyLines(bytes.subarray(0, end + 1).toString('utf8'), true);
      tail.offset += end + 1;
    } finally {
      await handle.close();
    }
  }

  private clear(): void {
    this.entries.clear();
    this.byFile.clear();
    this.byName.clear();
    this.byPin.clear();
    this.journalLines = 0;
  }

  private applySnapshot(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new CorruptIndexError('the snapshot does not parse');
    }
    const doc = raw as { format?: unknown; entries?: unknown };
    if (typeof doc !== 'object' || doc === null || doc.format !== SESSION_INDEX_FORMAT || !Array.isArray(doc.entries)) {
      throw new CorruptIndexError('the snapshot is of another format');
    }
    for (const row of doc.entries) {
      const e = fromRow(row);
      if (!e) throw new CorruptIndexError('a snapshot entry does not parse');
      this.put(e, false);
    }
    this.byActivity.reset();
    this.byCreated.reset();
  }

  /**
   * Applies the complete lines of `text`; answers how many characters were used (up to the last newline). A
   * complete line that does not parse makes the index corrupt.
   */
  private applyLines(text: string, all: boolean): number {
    const end = all ? text.length : text.lastIndexOf('\n') + 1;
    let start = 0;
    while (start < end) {
      let nl = text.indexOf('\n', start);
      if (nl < 0 || nl >= end) nl = end;
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.trim() === '') continue;
      const change = parseLine(line);
      if (!change) throw new CorruptIndexError('a journal line does not parse');
      if ('put' in change) this.put(change.put, true);
      else this.remove(change.del, true);
      this.journalLines += 1;
    }
    return end;
  }

  private put(e: IndexEntry, touch: boolean): void {
    const before = this.entries.get(e.key);
    if (before) this.unlink(before);
    this.entries.set(e.key, e);
    this.byFile.set(e.file, e.key);
    if (e.origin === 'schedule' && e.label !== null) add(this.byName, e.label, e.key);
    for (const p of e.pins) add(this.byPin, p, e.key);
    if (touch) {
      this.byActivity.touch(e.key);
      this.byCreated.touch(e.key);
    }
  }

  private remove(key: string, touch: boolean): void {
    const before = this.entries.get(key);
    if (!before) return;
    this.unlink(before);
    this.entries.delete(key);
    if (touch) {
      this.byActivity.touch(key);
      this.byCreated.touch(key);
    }
  }

  private unlink(e: IndexEntry): void {
    if (this.byFile.get(e.file) === e.key) this.byFile.delete(e.file);
    if (e.origin === 'schedule' && e.label !== null) drop(this.byName, e.label, e.key);
    for (const p of e.pins) drop(this.byPin, p, e.key);
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
      const key = this.byFile.get(name);
      const e = key === undefined ? undefined : this.entries.get(key);
      if (!e || e.stat === '' || statKeyOf(join(this.deps.dir, name)) !== e.stat) stale.push(name);
    }
    for (const file of this.byFile.keys()) if (!present.has(file)) stale.push(file);
    if (stale.length === 0) return;
    // Many: an older version wrote here for a long while; reading every file at once is cheaper than one lock each.
    if (stale.length > Math.max(1000, names.length / 10)) return this.rebuild(true);
    this.reindexed += stale.length;
    for (let i = 0; i < stale.length; i += 32) await Promise.all(stale.slice(i, i + 32).map((f) => this.deps.reindex(f, this.byFile.get(f))));
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
      this.clear();
      let names: string[];
      try {
        names = (await fs.readdir(this.deps.dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
      } catch {
        names = [];
      }
      for (let i = 0; i < names.length; i += 64) {
        const chunk = await Promise.all(names.slice(i, i + 64).map(async (file) => ({ file, got: await this.deps.read(file) })));
        for (const { file, got } of chunk) if (got) this.put(entryOf(got.session, file, got.stat, this.deps.activityOf(got.session)), false);
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
      this.applyLines(old.subarray(before.offset).toString('utf8'), true);
      await this.writeSnapshot();
      await fs.rm(this.oldJournalPath, { force: true });
    }, { sweepTemps: false });
    await this.syncTail();
  }

  private async writeSnapshot(): Promise<void> {
    const rows = [...this.entries.values()].map((e) => JSON.stringify(toRow(e)));
    await writeFileAtomic(this.snapshotPath, `{"format":${SESSION_INDEX_FORMAT},"entries":[\n${rows.join(',\n')}\n]}\n`);
    this.journalLines = 0;
    this.byActivity.reset();
    this.byCreated.reset();
    this.tail = { ino: null, offset: 0, snapshot: statKeyOf(this.snapshotPath) };
  }

  // ---- queries (after `ready`) --------------------------------------------------------------------------

  get size(): number {
    return this.entries.size;
  }

  entry(key: string): IndexEntry | undefined {
    return this.entries.get(key);
  }

  /** Keys of scheduled sessions named `name`, oldest first. */
  scheduled(name: string): string[] {
    const keys = [...(this.byName.get(name) ?? [])];
    return keys.sort((a, b) => cmpPair(this.entries.get(a)!.createdAt, a, this.entries.get(b)!.createdAt, b));
  }

  /** Keys of sessions pinning `id` or anything under it (`id/…`). */
  pinning(id: string): string[] {
    const out = new Set<string>();
    for (const k of this.byPin.get(id) ?? []) out.add(k);
    const prefix = `${id}/`;
    for (const [pin, keys] of this.byPin) if (pin.startsWith(prefix)) for (const k of keys) out.add(k);
    return [...out];
  }

  /** Keys of sessions whose last activity is before `cutoff` (ms). */
  idleBefore(cutoff: number): string[] {
    return this.byActivity.below(cutoff);
  }

  /** Up to `limit` keys, newest first (createdAt, then key), after `cursor`. */
  newest(limit: number, cursor?: PageCursor): string[] {
    return this.byCreated.descending(limit, cursor ? { r: cursor.createdAt, k: cursor.key } : undefined);
  }
}

function add(map: Map<string, Set<string>>, k: string, v: string): void {
  let set = map.get(k);
  if (!set) map.set(k, (set = new Set()));
  set.add(v);
}

function drop(map: Map<string, Set<string>>, k: string, v: string): void {
  const set = map.get(k);
  if (!set) return;
  set.delete(v);
  if (set.size === 0) map.delete(k);
}
