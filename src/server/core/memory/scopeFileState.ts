/**
 * What this process knows of one memory scope file — its content as last read or written (entries, lines, the stat,
 * head and tail, the content hash), the malformed lines reported — and that knowledge's snapshot: a first read taken
 * from one when it describes this very content (the rules: jsonlStore.ts's opening comment), lines materialised when a write needs them, and the snapshot
 * written in the background a moment after the content changed. Reading and writing the file itself are jsonlStore.ts's.
 */
import { createHash, type Hash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { badLinesOf, splitLines, type BadLine, type RawLine } from './lineFile';
import { compareEntries, isUndated, type StoredEntry } from './memoryEntry';
import { HEAD_BYTES, type SnapshotKey } from './scopeSnapshot';
import { sha256Hex as sha256 } from '../sha256Hex';
import { decodeSnapshot, type LoadedSnapshot } from './scopeSnapshotDecode';
import { encodeSnapshot, writeSnapshotFile } from './scopeSnapshotEncode';
import {
  headOf,
  mergeSorted,
  parseLine,
  RACY_MS,
  readAt,
  REASON_MAX,
  SNAPSHOT_DELAY_MS,
  statFile,
  TAIL_BYTES,
  tailOf,
  type FileStat,
  type JsonlScopeSpec,
  type KnownState,
  type LoadKind,
  type ScopeSnapshot,
} from './scopeFileBasics';

export abstract class ScopeFileState {
  /** What this process last read or wrote (null: never read, or unreadable). */
  protected known: KnownState | null = null;
  protected snapshot: { entries: readonly StoredEntry[]; badLines: readonly BadLine[] } = { entries: [], badLines: [] };
  /** The file's lines as last read or written, in file order. */
  protected rawLines: RawLine[] = [];
  /** Whether the last line is terminated by `\n` (a torn last line is not). */
  protected endsWithNewline = true;
  /** Raw line (without `\r`) → parsed entry, so a reread after another process's append parses only the new lines. */
  protected lineCache = new Map<string, StoredEntry>();
  /** The malformed lines last reported (line numbers and text), so an unchanged set is not reported again. */
  protected reportedBad = '';
  /** The ids of one snapshot's entries, kept in step by appends (a write does not rebuild a 10k-id set). */
  protected ids: { entries: readonly StoredEntry[]; ids: Set<string> } | null = null;
  /**
   * sha256 of the content as known (null while the lines are still `lazy`), with the bytes not yet fed to it: they are
   * hashed when a snapshot is written, in the background, not on a write's or a load's path.
   */
  protected contentHash: Hash | null = null;
  protected contentPending: Buffer[] = [];
  /** When the pending snapshot write is due (ms since the epoch). */
  private snapshotDueAt = 0;
  /** The first HEAD_BYTES of the content as known. */
  protected head: Buffer = Buffer.alloc(0);
  /** Loaded from a snapshot of unchanged content: `rawLines` are read from the file when first needed. */
  protected lazy: LoadedSnapshot | null = null;
  private snapshotTimer: NodeJS.Timeout | null = null;
  /** The content changed since its snapshot was last written (or confirmed). */
  private snapshotDirty = false;
  private snapshotWriting: Promise<void> = Promise.resolve();
  protected loadKind: LoadKind | null = null;

  /** How the last read got its entries (null: none yet). */
  get lastLoad(): LoadKind | null {
    return this.loadKind;
  }

  private get racyMs(): number {
    return this.spec.racyMs ?? RACY_MS;
  }

  constructor(readonly spec: JsonlScopeSpec) {}

  protected idsOf(entries: readonly StoredEntry[]): Set<string> {
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
   * The first read, from the snapshot when it describes this content (see the file's opening comment); null: parse.
   * The stat was taken before anything is read, so a change made meanwhile shows as a new key on the next read.
   */
  protected async fromSnapshot(snapshotPath: string, stat: FileStat, takenAt: number): Promise<ScopeSnapshot | null> {
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
  protected async materialize(): Promise<boolean> {
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
   * Appended lines (`text` ends with a line break), parsed as a full parse would. Null when one holds an id already
   * known (`ids`, which gains the new ones): a second line for an id is for the whole-file rules to decide.
   */
  protected parseAppended(text: string, ids: Set<string>, fileDate: string | undefined): { lines: RawLine[]; added: StoredEntry[]; parsedLines: [string, StoredEntry][]; ids: Set<string> } | null {
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
  protected growHead(appended: Buffer): void {
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, appended.subarray(0, HEAD_BYTES - this.head.length)]);
  }

  /** One problem per load listing every malformed line, when that set changed; a clean load resolves. */
  protected reportLoad(): void {
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

  /** The content changed: its snapshot is written a moment later (in the background; never on a write's path). */
  protected scheduleSnapshot(delay = SNAPSHOT_DELAY_MS): void {
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

}
