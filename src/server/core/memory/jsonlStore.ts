/**
 * One memory scope on disk: a JSON-lines file, one entry per line, in the order its lines were written.
 *
 * Guarantees (tested against real files in test/unit/memoryStore.test.ts and memoryFile.test.ts):
 * - Every write happens under `withFileLock`, after re-reading the file, so two processes (two VS Code
 *   windows, a CLI) writing at once lose nothing. The re-read is skipped only when the file is provably the
 *   one this process last read or wrote: same device, inode, size, mtime and ctime (nanoseconds) AND the
 *   same last 64 KiB. Any append changes the size; any rewrite by rename changes the inode or the tail.
 * - A write changes only what changed. New entries are appended (and fsynced); a crash mid-append can only
 *   leave a torn LAST line holding the unacknowledged entry — loaded as a malformed line (reported, kept),
 *   and the next append starts on a line of its own. A changed or forgotten entry is an atomic rewrite
 *   (temp + fsync + rename) in which that entry's line is replaced in place or removed and every other line —
 *   malformed and blank ones included — stays as it was, where it was; the file keeps its mode.
 * - The file is written so teammates' additions merge in git (`merge=union`): new entries go at the end.
 *   The loader tolerates what a union merge produces — one id twice (the newest `updatedAt` wins), lines
 *   out of order, blank lines.
 * - A malformed line is never dropped: it stays in the file, the good lines load, and each load that finds
 *   a new set of malformed lines reports one problem listing every one (line number and reason). A clean
 *   load reports that the file's earlier problems are resolved.
 * - A file that cannot be read at all throws `ScopeUnreadableError`: the scope is "not loaded", never empty.
 * - With a `snapshotPath` (per-user state, never the repository), the first read may take the entries from a snapshot
 *   of them (scopeSnapshot.ts) instead of parsing the file — only for the very content the snapshot was made from:
 *   the same stat (device, inode, size, mtime and ctime in ns) and the same first and last 64 KiB; when that stat was
 *   taken within RACY_MS of the file's last change (an edit in the same timestamp tick would leave the stat as it
 *   was), the same sha256 of the whole file. A file that only grew reuses it when the sha256 of the snapshot's bytes
 *   matches the file's first bytes, and parses only what was appended. The lines' texts are read (and hashed again)
 *   only when a write needs them. Anything else is the full parse. Snapshots are written in the background, a moment
 *   after the content last changed (`flushSnapshot` writes one now).
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, promises as fs, openSync, readSync, statSync } from 'node:fs';
import { withFileLock } from '../store/atomicFile';
import { assertConfined } from '../store/confinedPath';
import type { StoreProblem } from '../../../shared/schemas';
import type { MemoryScope } from '../../../shared/memorySchemas';
import { appendDurably, badLinesOf, joinLines, newLines, rewriteLines, splitLines, writeKeepingMode, type BadLine, type RawLine } from './lineFile';
import { compareEntries, isUndated, newer, parseStoredEntry, serializeEntry, type StoredEntry } from './memoryEntry';
import { HEAD_BYTES, sha256, type SnapshotKey } from './scopeSnapshot';
import { decodeSnapshot, type LoadedSnapshot } from './scopeSnapshotDecode';
import { encodeSnapshot, writeSnapshotFile } from './scopeSnapshotEncode';

export type { BadLine } from './lineFile';

export class ScopeUnreadableError extends Error {
  readonly reason = 'scope-unreadable' as const;
  constructor(
    readonly path: string,
    cause: string,
  ) {
    super(`${path} cannot be read (${cause}); this memory scope is left out until it can.`);
  }
  static is(err: unknown): err is ScopeUnreadableError {
    return err instanceof Error && (err as ScopeUnreadableError).reason === 'scope-unreadable';
  }
}

export interface ScopeSnapshot {
  /** Sorted by createdAt, then id; one per id. Entries are immutable: replace, never mutate. */
  entries: readonly StoredEntry[];
  badLines: readonly BadLine[];
  /** Whether the content differs from the previous snapshot this object produced. */
  changed: boolean;
}

export interface MutationPlan<R> {
  result: R;
  /** New or replaced entries (matched by id). */
  upserts?: readonly StoredEntry[];
  deletes?: Iterable<string>;
}

export interface JsonlScopeSpec {
  source: string;
  path: string;
  scope: MemoryScope;
  /**
   * The workspace folder of a repository file (project memory): writes refuse a link at the file or above it, or a
   * path leaving the folder (`LinkedPathError`, see `confinedPath.ts`), before they lock, append or rewrite.
   */
  confineTo?: string;
  /** Mode of a file this creates (the umask applies); an existing file keeps its own. Default 0600. */
  newFileMode?: number;
  onProblem?: (problem: StoreProblem) => void;
  /** A load found the file clean: the problems reported for it earlier no longer hold. */
  onResolved?: () => void;
  /** Where this file's snapshot is kept (see scopeSnapshot.ts); none: every start parses the file. */
  snapshotPath?: string;
  /** RACY_MS, for tests that need a snapshot trusted by its stat at once. */
  racyMs?: number;
}

/** How the last read got its entries: parsed whole, from a snapshot, from a snapshot plus the appended lines, or only those. */
export type LoadKind = 'parse' | 'snapshot' | 'snapshot+tail' | 'tail' | 'unchanged';

const TAIL_BYTES = 64 * 1024;
/**
 * A stat taken less than this after the file's last change (mtime or ctime) may miss an edit made in the same
 * timestamp tick (coarse clocks, 2 s on FAT): such a snapshot is used only when the whole file hashes to it.
 */
const RACY_MS = 2000;
/** How long after the content last changed its snapshot is written (writes in a burst make one snapshot). */
const SNAPSHOT_DELAY_MS = 1000;
/**
 * After appends only, a snapshot waits longer: a start reuses the older one and parses only the appended lines, so
 * rewriting the whole snapshot after every `remember` would cost more than it saves.
 */
const APPENDED_SNAPSHOT_DELAY_MS = 30_000;
/** A reason longer than this is cut in a problem's message (JSON.parse quotes the line). */
const REASON_MAX = 160;

interface KnownState {
  /** dev:ino:size:mtimeNs:ctimeNs, or missing:<code>. */
  key: string;
  size: number;
  /** The last TAIL_BYTES of the content (a copy). */
  tail: Buffer;
  /** Date.now() before the stat of `key`, and the later of that stat's mtime and ctime (ms): see RACY_MS. */
  takenAt: number;
  changedAt: number;
  /** The date a line without one takes (the file's mtime in that stat, see parseStoredEntry). */
  fileDate?: string | undefined;
}

interface FileStat {
  key: string;
  mtime?: string;
  size?: number;
  changedAt?: number;
}

/** Synchronous on purpose: a stat is microseconds, and awaiting the thread pool for it costs more than it saves. */
function statFile(path: string): FileStat {
  try {
    // No exception for a missing file: building one (its stack) costs more than the stat.
    const s = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (!s) return { key: 'missing:ENOENT' };
    const mtimeMs = Number(s.mtimeMs);
    return { key: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.isFile() ? 'f' : 'x'}`, mtime: new Date(mtimeMs).toISOString(), size: Number(s.size), changedAt: Math.max(mtimeMs, Number(s.ctimeMs)) };
  } catch (err) {
    return { key: `missing:${(err as NodeJS.ErrnoException).code ?? ''}` };
  }
}

function tailOf(buf: Buffer): Buffer {
  return Buffer.from(buf.subarray(Math.max(0, buf.length - TAIL_BYTES)));
}

function headOf(buf: Buffer): Buffer {
  return Buffer.from(buf.subarray(0, Math.min(buf.length, HEAD_BYTES)));
}

/** Up to `length` bytes of `path` from `position`. */
async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await fs.open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export class JsonlScopeFile {
  /** What this process last read or wrote (null: never read, or unreadable). */
  private known: KnownState | null = null;
  private snapshot: { entries: readonly StoredEntry[]; badLines: readonly BadLine[] } = { entries: [], badLines: [] };
  /** The file's lines as last read or written, in file order. */
  private rawLines: RawLine[] = [];
  /** Whether the last line is terminated by `\n` (a torn last line is not). */
  private endsWithNewline = true;
  /** Raw line (without `\r`) → parsed entry, so a reread after another process's append parses only the new lines. */
  private lineCache = new Map<string, StoredEntry>();
  /** Entry object → its serialised line (entries are immutable, so this never goes stale). */
  private readonly serialized = new WeakMap<StoredEntry, string>();
  /** The malformed lines last reported (line numbers and text), so an unchanged set is not reported again. */
  private reportedBad = '';
  private queue: Promise<unknown> = Promise.resolve();
  /** The ids of one snapshot's entries, kept in step by appends (a write does not rebuild a 10k-id set). */
  private ids: { entries: readonly StoredEntry[]; ids: Set<string> } | null = null;
  /**
   * sha256 of the content as known (null while the lines are still `lazy`), with the bytes not yet fed to it: they are
   * hashed when a snapshot is written, in the background, not on a write's or a load's path.
   */
  private contentHash: Hash | null = null;
  private contentPending: Buffer[] = [];
  /** When the pending snapshot write is due (ms since the epoch). */
  private snapshotDueAt = 0;
  /** The first HEAD_BYTES of the content as known. */
  private head: Buffer = Buffer.alloc(0);
  /** Loaded from a snapshot of unchanged content: `rawLines` are read from the file when first needed. */
  private lazy: LoadedSnapshot | null = null;
  private snapshotTimer: NodeJS.Timeout | null = null;
  /** The content changed since its snapshot was last written (or confirmed). */
  private snapshotDirty = false;
  private snapshotWriting: Promise<void> = Promise.resolve();
  private loadKind: LoadKind | null = null;

  /** How the last read got its entries (null: none yet). */
  get lastLoad(): LoadKind | null {
    return this.loadKind;
  }

  private get racyMs(): number {
    return this.spec.racyMs ?? RACY_MS;
  }

  constructor(readonly spec: JsonlScopeSpec) {}

  private idsOf(entries: readonly StoredEntry[]): Set<string> {
    if (this.ids?.entries !== entries) this.ids = { entries, ids: new Set(entries.map((e) => e.id)) };
    return this.ids.ids;
  }

  get path(): string {
    return this.spec.path;
  }

  /** The last snapshot, without touching the disk. */
  get current(): { entries: readonly StoredEntry[]; badLines: readonly BadLine[] } {
    return this.snapshot;
  }

  /**
   * Reads the file when it may have changed (a stat decides; `force` always reads). Missing file: no
   * entries. Unreadable: throws ScopeUnreadableError. Malformed lines are reported when their set changes.
   */
  async read(force = false): Promise<ScopeSnapshot> {
    return this.readFresh(force, false);
  }

  private async readFresh(force: boolean, verifyTail: boolean): Promise<ScopeSnapshot> {
    const takenAt = Date.now();
    const stat = statFile(this.spec.path);
    if (!force && this.known && stat.key === this.known.key && (!verifyTail || this.tailMatches(this.known))) {
      this.loadKind = 'unchanged';
      return { ...this.snapshot, changed: false };
    }
    if (!force && this.known) {
      const caught = await this.catchUp(this.known, stat, takenAt);
      if (caught) return caught;
    }
    if (!force && !this.known && this.spec.snapshotPath !== undefined && stat.size !== undefined) {
      const restored = await this.fromSnapshot(this.spec.snapshotPath, stat, takenAt);
      if (restored) return restored;
    }
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(this.spec.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') {
        this.known = null;
        this.reportedBad = '';
        throw new ScopeUnreadableError(this.spec.path, code ?? (err as Error).message);
      }
      bytes = Buffer.alloc(0);
    }
    this.parse(bytes.toString('utf8'), stat.mtime);
    this.loadKind = 'parse';
    // The stat taken before the read: if the file changed in between, the next read sees a new key.
    this.known = { key: stat.key, size: bytes.length, tail: tailOf(bytes), takenAt, changedAt: stat.changedAt ?? 0, fileDate: stat.mtime };
    this.lazy = null;
    this.contentHash = createHash('sha256');
    this.contentPending = [bytes];
    this.head = headOf(bytes);
    if (stat.size !== undefined) this.scheduleSnapshot();
    return { ...this.snapshot, changed: true };
  }

  /**
   * The first read, from the snapshot when it describes this content (see the file's opening comment); null: parse.
   * The stat was taken before anything is read, so a change made meanwhile shows as a new key on the next read.
   */
  private async fromSnapshot(snapshotPath: string, stat: FileStat, takenAt: number): Promise<ScopeSnapshot | null> {
    try {
      let snap: LoadedSnapshot | null;
      try {
        snap = decodeSnapshot(await fs.readFile(snapshotPath), { path: this.spec.path, scope: this.spec.scope });
      } catch {
        return null; // none yet, or unreadable: it is a cache
      }
      if (!snap) return null;
      const k = snap.key;
      const size = stat.size!;
      if (stat.key === k.stat && size === k.size) {
        if (k.changedAt + this.racyMs <= k.takenAt) {
          const head = await readAt(this.spec.path, 0, Math.min(size, HEAD_BYTES));
          const tail = await readAt(this.spec.path, Math.max(0, size - TAIL_BYTES), Math.min(size, TAIL_BYTES));
          if (sha256(head) !== k.head || sha256(tail) !== k.tail) return null;
          this.adopt(snap, snap.entries, snap.badLines, null, snap.endsWithNewline, { key: stat.key, size, tail: Buffer.from(tail), takenAt: k.takenAt, changedAt: k.changedAt, fileDate: stat.mtime }, Buffer.from(head), null);
          this.loadKind = 'snapshot';
          return { ...this.snapshot, changed: true };
        }
        // Racily clean: only the whole content vouches for it.
        const bytes = await fs.readFile(this.spec.path);
        const hash = createHash('sha256').update(bytes);
        if (bytes.length !== size || hash.copy().digest('hex') !== k.full) return null;
        const lines = snap.linesOf(bytes.toString('utf8'));
        if (!lines) return null;
        this.adopt(null, snap.entries, snap.badLines, lines, snap.endsWithNewline, { key: stat.key, size, tail: tailOf(bytes), takenAt, changedAt: stat.changedAt ?? 0, fileDate: stat.mtime }, headOf(bytes), hash);
        this.scheduleSnapshot(); // confirmed now: the next start may trust the stat
        this.loadKind = 'snapshot';
        return { ...this.snapshot, changed: true };
      }
      // Grown: the snapshot's content must be exactly the file's first bytes, ending a line; what follows is parsed.
      // An entry dated by the file's mtime would be dated anew by a full parse: that one is parsed whole.
      if (!(size > k.size) || !snap.endsWithNewline || snap.fileDated) return null;
      const bytes = await fs.readFile(this.spec.path);
      if (bytes.length !== size) return null;
      const hash = createHash('sha256').update(bytes.subarray(0, k.size));
      if (hash.copy().digest('hex') !== k.full) return null;
      const lines = snap.linesOf(bytes.toString('utf8', 0, k.size));
      if (!lines) return null;
      const appended = bytes.subarray(k.size);
      const text = appended.toString('utf8');
      if (!text.endsWith('\n')) return null; // an append in progress: parse it all
      const tail = this.parseAppended(text, new Set(snap.entries.map((e) => e.id)), stat.mtime);
      if (!tail) return null;
      hash.update(appended);
      const entries = mergeSorted(snap.entries, [...tail.added].sort(compareEntries));
      const badLines = [...snap.badLines, ...badLinesOf(tail.lines).map((b) => ({ ...b, line: b.line + lines.length }))];
      for (const [line, entry] of tail.parsedLines) this.lineCache.set(line, entry);
      this.adopt(null, entries, badLines, lines.concat(tail.lines), true, { key: stat.key, size, tail: tailOf(bytes), takenAt, changedAt: stat.changedAt ?? 0, fileDate: stat.mtime }, headOf(bytes), hash);
      this.ids = { entries, ids: tail.ids };
      this.scheduleSnapshot();
      this.loadKind = 'snapshot+tail';
      return { ...this.snapshot, changed: true };
    } catch {
      return null;
    }
  }

  /** Takes a snapshot's content as what this process last read (`lazy`: lines not read yet; else `lines`). */
  private adopt(lazy: LoadedSnapshot | null, entries: readonly StoredEntry[], badLines: readonly BadLine[], lines: RawLine[] | null, endsWithNewline: boolean, known: KnownState, head: Buffer, hash: Hash | null): void {
    this.lazy = lazy;
    this.rawLines = lines ?? [];
    this.endsWithNewline = endsWithNewline;
    this.snapshot = { entries, badLines };
    this.known = known;
    this.head = head;
    this.contentHash = hash;
    this.contentPending = [];
    this.reportLoad();
  }

  /**
   * The lines of a snapshot-loaded file, read now that a write (or a catch-up) needs them: only when the bytes the
   * snapshot was made from hash to its content hash still. False: they do not (then the caller parses the file).
   */
  private async materialize(): Promise<boolean> {
    const lazy = this.lazy;
    if (!lazy) return true;
    try {
      const bytes = await readAt(this.spec.path, 0, lazy.key.size);
      const hash = createHash('sha256').update(bytes);
      if (bytes.length !== lazy.key.size || hash.copy().digest('hex') !== lazy.key.full) return false;
      const lines = lazy.linesOf(bytes.toString('utf8'));
      if (!lines) return false;
      this.rawLines = lines;
      this.contentHash = hash;
      this.contentPending = [];
      this.lazy = null;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Another process appended (same file, longer, and the bytes this process knew still end where they ended):
   * reads and parses only the appended tail. Answers null when that is not provably the case (a rewrite, a torn
   * line, an id seen before — a union merge's duplicate): the caller reads the whole file.
   */
  private async catchUp(known: KnownState, stat: FileStat, takenAt: number): Promise<ScopeSnapshot | null> {
    const before = known.key.split(':');
    const now = stat.key.split(':');
    if (before[0] === 'missing' || now[0] !== before[0] || now[1] !== before[1] || !this.endsWithNewline) return null;
    const size = Number(now[2]);
    if (!(size > known.size) || size - known.size > 8 * 1024 * 1024) return null;
    if (!(await this.materialize())) return null;
    let appended: Buffer;
    try {
      const handle = await fs.open(this.spec.path, 'r');
      try {
        const from = known.size - known.tail.length;
        const buf = Buffer.allocUnsafe(size - from);
        const { bytesRead } = await handle.read(buf, 0, buf.length, from);
        if (bytesRead !== buf.length || !buf.subarray(0, known.tail.length).equals(known.tail)) return null;
        appended = buf.subarray(known.tail.length);
      } finally {
        await handle.close();
      }
    } catch {
      return null;
    }
    const text = appended.toString('utf8');
    if (!text.endsWith('\n')) return null; // an append in progress: read it whole once it is done
    const parsed = this.parseAppended(text, new Set(this.idsOf(this.snapshot.entries)), stat.mtime);
    if (!parsed) return null;
    const { lines, added, parsedLines, ids } = parsed;
    for (const [line, entry] of parsedLines) this.lineCache.set(line, entry);
    const offset = this.rawLines.length;
    this.rawLines.push(...lines);
    this.endsWithNewline = true;
    const entries = mergeSorted(this.snapshot.entries, [...added].sort(compareEntries));
    this.ids = { entries, ids };
    this.snapshot = { entries, badLines: [...this.snapshot.badLines, ...badLinesOf(lines).map((b) => ({ ...b, line: b.line + offset }))] };
    this.known = { key: stat.key, size, tail: tailOf(Buffer.concat([known.tail, appended])), takenAt, changedAt: stat.changedAt ?? 0, fileDate: stat.mtime };
    this.contentPending.push(appended);
    this.growHead(appended);
    this.reportLoad();
    this.scheduleSnapshot(APPENDED_SNAPSHOT_DELAY_MS);
    this.loadKind = 'tail';
    return { ...this.snapshot, changed: true };
  }

  /**
   * Appended lines (`text` ends with a line break), parsed as a full parse would. Null when one holds an id already
   * known (`ids`, which gains the new ones): a second line for an id is for the whole-file rules to decide.
   */
  private parseAppended(text: string, ids: Set<string>, fileDate: string | undefined): { lines: RawLine[]; added: StoredEntry[]; parsedLines: [string, StoredEntry][]; ids: Set<string> } | null {
    const lines: RawLine[] = [];
    const added: StoredEntry[] = [];
    const parsedLines: [string, StoredEntry][] = [];
    for (const raw of splitLines(text).texts) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') {
        lines.push({ text: raw });
        continue;
      }
      const parsed = parseLine(line, this.spec.scope, fileDate);
      if (!parsed.ok) {
        lines.push({ text: raw, bad: parsed.reason });
        continue;
      }
      if (ids.has(parsed.entry.id)) return null;
      ids.add(parsed.entry.id);
      lines.push({ text: raw, id: parsed.entry.id });
      added.push(parsed.entry);
      parsedLines.push([line, parsed.entry]);
    }
    return { lines, added, parsedLines, ids };
  }

  /** Keeps `head` the content's first HEAD_BYTES after `appended` was added at the end. */
  private growHead(appended: Buffer): void {
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, appended.subarray(0, HEAD_BYTES - this.head.length)]);
  }

  /** Synchronous, like the stat: 64 KiB from the page cache take microseconds, three trips through the thread pool more. */
  private tailMatches(known: KnownState): boolean {
    if (known.size === 0) return true;
    try {
      const fd = openSync(this.spec.path, 'r');
      try {
        const buf = Buffer.allocUnsafe(known.tail.length);
        const bytesRead = readSync(fd, buf, 0, buf.length, known.size - known.tail.length);
        return bytesRead === buf.length && buf.equals(known.tail);
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
  }

  /** `fileDate`: the file's mtime, the date of a line that carries none (see parseStoredEntry). */
  private parse(text: string, fileDate: string | undefined): void {
    const { texts, newline } = splitLines(text);
    const nextCache = new Map<string, StoredEntry>();
    const byId = new Map<string, StoredEntry>();
    const rawLines: RawLine[] = [];
    let sorted = true;
    let prev: StoredEntry | undefined;
    for (const raw of texts) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') {
        rawLines.push({ text: raw }); // a blank line (a union merge leaves them) is not an entry
        continue;
      }
      let entry = this.lineCache.get(line) ?? nextCache.get(line);
      if (!entry) {
        const parsed = parseLine(line, this.spec.scope, fileDate);
        if (!parsed.ok) {
          rawLines.push({ text: raw, bad: parsed.reason });
          continue;
        }
        entry = parsed.entry;
      }
      nextCache.set(line, entry);
      rawLines.push({ text: raw, id: entry.id });
      const existing = byId.get(entry.id);
      if (existing) {
        byId.set(entry.id, newer(existing, entry));
        sorted = false;
        continue;
      }
      byId.set(entry.id, entry);
      if (prev && compareEntries(prev, entry) > 0) sorted = false;
      prev = entry;
    }
    this.lineCache = nextCache;
    this.rawLines = rawLines;
    this.endsWithNewline = newline;
    const entries = [...byId.values()];
    if (!sorted) entries.sort(compareEntries);
    this.snapshot = { entries, badLines: badLinesOf(rawLines) };
    this.reportLoad();
  }

  /** One problem per load listing every malformed line, when that set changed; a clean load resolves. */
  private reportLoad(): void {
    const bad = this.snapshot.badLines;
    if (bad.length === 0) {
      this.reportedBad = '';
      this.spec.onResolved?.();
      return;
    }
    const key = bad.map((b) => `${b.line}\u0000${this.lazy ? this.lazy.badText(b.line) : this.rawLines[b.line - 1]!.text}`).join('\n');
    if (key === this.reportedBad) return;
    this.reportedBad = key;
    this.spec.onResolved?.(); // the new report replaces the earlier ones
    const listed = bad.map((b) => `line ${b.line} (${b.reason.length > REASON_MAX ? `${b.reason.slice(0, REASON_MAX)}…` : b.reason})`).join('; ');
    this.spec.onProblem?.({
      source: this.spec.source,
      path: this.spec.path,
      message: `${this.spec.path} has ${bad.length} malformed line${bad.length === 1 ? '' : 's'}: ${listed}. The other lines were loaded; the malformed lines stay where they are in the file (writes leave them alone) until someone fixes or removes them.`,
      at: new Date().toISOString(),
    });
  }

  private serialize(e: StoredEntry): string {
    let line = this.serialized.get(e);
    if (line === undefined) {
      line = serializeEntry(e);
      this.serialized.set(e, line);
    }
    return line;
  }

  /**
   * Read-modify-write under the cross-process lock: `plan` sees the freshly read entries and answers what
   * to change (or throws, and nothing is written).
   */
  mutate<R>(plan: (entries: readonly StoredEntry[]) => MutationPlan<R>): Promise<{ result: R; entries: readonly StoredEntry[] }> {
    const run = () =>
      withFileLock(this.spec.path, async () => {
        if (this.spec.confineTo !== undefined) await assertConfined(this.spec.confineTo, this.spec.path);
        let fresh = await this.readFresh(false, true);
        // A write needs the file's lines: a snapshot-loaded file reads them now (and parses it all if they no longer match).
        if (!(await this.materialize())) fresh = await this.readFresh(true, false);
        const { result, upserts = [], deletes = [] } = plan(fresh.entries);
        const present = this.idsOf(fresh.entries);
        const deleteSet = new Set([...deletes].filter((id) => present.has(id)));
        const replaced = new Map<string, StoredEntry>();
        const addedById = new Map<string, StoredEntry>();
        for (const u of upserts) (present.has(u.id) ? replaced : addedById).set(u.id, u);
        for (const id of deleteSet) replaced.delete(id);
        const added = [...addedById.values()].sort(compareEntries);
        if (replaced.size === 0 && deleteSet.size === 0 && added.length === 0) return { result, entries: fresh.entries };

        if (replaced.size === 0 && deleteSet.size === 0) {
          // The common write (remember): one locked append; the snapshot grows without copying through a merge.
          await this.append(added);
          const last = fresh.entries[fresh.entries.length - 1];
          const kept = !last || compareEntries(last, added[0]!) <= 0 ? fresh.entries.concat(added) : mergeSorted(fresh.entries, added);
          const ids = this.idsOf(fresh.entries);
          for (const e of added) ids.add(e.id);
          this.ids = { entries: kept, ids };
          this.snapshot = { entries: kept, badLines: fresh.badLines }; // appended lines are never malformed
          return { result, entries: kept };
        }
        await this.rewrite(replaced, deleteSet, added);
        // createdAt never changes, so replaced entries keep their place in the sorted snapshot; merge the new ones in.
        const kept = mergeSorted(
          fresh.entries.filter((e) => !deleteSet.has(e.id)).map((e) => replaced.get(e.id) ?? e),
          added,
        );
        this.snapshot = { entries: kept, badLines: badLinesOf(this.rawLines) };
        return { result, entries: kept };
      }, this.spec.confineTo !== undefined ? { confineTo: this.spec.confineTo } : {});
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The content changed: its snapshot is written a moment later (in the background; never on a write's path). */
  private scheduleSnapshot(delay = SNAPSHOT_DELAY_MS): void {
    if (this.spec.snapshotPath === undefined) return;
    this.snapshotDirty = true;
    const due = Date.now() + delay;
    if (this.snapshotTimer) {
      if (this.snapshotDueAt <= due) return; // an earlier write is pending: it takes this change too
      clearTimeout(this.snapshotTimer);
    }
    this.snapshotDueAt = due;
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = null;
      void this.flushSnapshot();
    }, delay);
    this.snapshotTimer.unref();
  }

  /** Writes the snapshot now when the content changed since the last one. Never throws (it is a cache). */
  flushSnapshot(): Promise<void> {
    if (this.snapshotTimer) {
      clearTimeout(this.snapshotTimer);
      this.snapshotTimer = null;
    }
    const run = () => this.writeSnapshot().catch(() => undefined);
    this.snapshotWriting = this.snapshotWriting.then(run, run);
    return this.snapshotWriting;
  }

  private async writeSnapshot(): Promise<void> {
    const path = this.spec.snapshotPath;
    const known = this.known;
    if (path === undefined || !this.snapshotDirty || !known || this.lazy || !this.contentHash || known.key.startsWith('missing')) return;
    this.snapshotDirty = false;
    // Everything the snapshot says is taken now, before any await: a write meanwhile makes a later snapshot.
    // An undated line is dated by the file's mtime: one loaded before a write of ours holds a date a parse would not give.
    if (this.snapshot.entries.some((e) => isUndated(e) && e.createdAt !== known.fileDate)) return;
    for (const b of this.contentPending) this.contentHash.update(b);
    this.contentPending = [];
    const full = this.contentHash.copy().digest('hex');
    const input = { path: this.spec.path, scope: this.spec.scope, lines: [...this.rawLines], endsWithNewline: this.endsWithNewline, entries: this.snapshot.entries };
    let key: SnapshotKey = { stat: known.key, size: known.size, takenAt: known.takenAt, changedAt: known.changedAt, head: sha256(this.head), tail: sha256(known.tail), full };
    // What this process believes the file holds may have been learned by reading only an appended tail (a catch-up
    // checks the ends, not the middle): a snapshot is written only of content the file really holds now, confirmed
    // byte for byte, with its stat unchanged across the read. Otherwise a middle edit this process never saw (an
    // approval revoked in place) would be kept and trusted by every later start.
    const t0 = Date.now();
    const before = statFile(this.spec.path);
    if (before.key !== known.key) return;
    const bytes = await fs.readFile(this.spec.path);
    if (sha256(bytes) !== full || statFile(this.spec.path).key !== known.key) return;
    if (key.changedAt + this.racyMs > key.takenAt) {
      // Racily clean: when the file has been quiet long enough, the content confirmed above lets a start trust the stat.
      if ((before.changedAt ?? 0) + this.racyMs <= t0) key = { ...key, takenAt: t0 };
      // Not yet: written as it is (a start hashes the whole file), and confirmed once more a little later.
      if (key.changedAt + this.racyMs > key.takenAt && this.known === known && Number.isFinite(this.racyMs)) this.scheduleSnapshot(this.racyMs);
    }
    if (statFile(this.spec.path).key.startsWith('missing')) return; // the file went away (a removed folder)
    await writeSnapshotFile(path, encodeSnapshot({ ...input, key }));
  }

  private get newFileMode(): number {
    return this.spec.newFileMode ?? 0o600;
  }

  /** New entries as new lines at the end (after a line break, should the last line be torn). */
  private async append(added: readonly StoredEntry[]): Promise<void> {
    const lines = newLines(this.rawLines, added, (e) => this.serialize(e));
    const chunk = Buffer.from(`${this.endsWithNewline ? '' : '\n'}${joinLines(lines)}`, 'utf8');
    await appendDurably(this.spec.path, chunk, this.newFileMode);
    const known = this.known!;
    const takenAt = Date.now();
    const stat = statFile(this.spec.path);
    this.known = { key: stat.key, size: known.size + chunk.length, tail: tailOf(Buffer.concat([known.tail, chunk])), takenAt, changedAt: stat.changedAt ?? 0, fileDate: stat.mtime };
    this.contentPending.push(chunk);
    this.growHead(chunk);
    this.rawLines.push(...lines);
    this.endsWithNewline = true;
    for (const e of added) this.lineCache.set(this.serialize(e), e);
    this.scheduleSnapshot(APPENDED_SNAPSHOT_DELAY_MS);
  }

  /** An atomic rewrite in which only the lines of changed, deleted and new entries differ. */
  private async rewrite(replaced: ReadonlyMap<string, StoredEntry>, deletes: ReadonlySet<string>, added: readonly StoredEntry[]): Promise<void> {
    const next = rewriteLines(this.rawLines, replaced, deletes, added, (e) => this.serialize(e));
    const text = joinLines(next);
    await writeKeepingMode(this.spec.path, text, this.newFileMode);
    const buf = Buffer.from(text, 'utf8');
    const takenAt = Date.now();
    const stat = statFile(this.spec.path);
    this.known = { key: stat.key, size: buf.length, tail: tailOf(buf), takenAt, changedAt: stat.changedAt ?? 0, fileDate: stat.mtime };
    this.contentHash = createHash('sha256');
    this.contentPending = [buf];
    this.head = headOf(buf);
    this.scheduleSnapshot();
    this.rawLines = next;
    this.endsWithNewline = true;
    // Keep the line cache in step with what is on disk now.
    const cache = new Map<string, StoredEntry>();
    for (const e of [...replaced.values(), ...added]) cache.set(this.serialize(e), e);
    for (const l of next) {
      if (l.id === undefined) continue;
      const line = l.text.endsWith('\r') ? l.text.slice(0, -1) : l.text;
      const e = cache.get(line) ?? this.lineCache.get(line);
      if (e) cache.set(line, e);
    }
    this.lineCache = cache;
  }
}

function parseLine(line: string, scope: MemoryScope, fileDate: string | undefined): { ok: true; entry: StoredEntry } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return { ok: false, reason: `not valid JSON (${(err as Error).message})` };
  }
  return parseStoredEntry(raw, scope, line, fileDate);
}

function mergeSorted(a: readonly StoredEntry[], b: readonly StoredEntry[]): StoredEntry[] {
  if (b.length === 0) return [...a];
  const out: StoredEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(compareEntries(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
