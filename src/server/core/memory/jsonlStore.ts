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
 *
 * This file reads (a stat, a catch-up on appended lines, a full parse) and writes (append, rewrite) the file;
 * scopeFileState.ts holds what this process knows of it and its snapshot; scopeFileBasics.ts the parts both use.
 */
import { createHash } from 'node:crypto';
import { closeSync, promises as fs, openSync, readSync } from 'node:fs';
import { withFileLock } from '../store/atomicFile';
import { assertConfined } from '../store/confinedPath';
import { appendDurably, badLinesOf, joinLines, newLines, rewriteLines, splitLines, writeKeepingMode, type RawLine } from './lineFile';
import { compareEntries, newer, serializeEntry, type StoredEntry } from './memoryEntry';
import {
  APPENDED_SNAPSHOT_DELAY_MS,
  headOf,
  mergeSorted,
  parseLine,
  ScopeUnreadableError,
  statFile,
  tailOf,
  type FileStat,
  type KnownState,
  type MutationPlan,
  type ScopeSnapshot,
} from './scopeFileBasics';
import { ScopeFileState } from './scopeFileState';

export type { BadLine } from './lineFile';
export { ScopeUnreadableError, type JsonlScopeSpec, type LoadKind, type MutationPlan, type ScopeSnapshot } from './scopeFileBasics';

export class JsonlScopeFile extends ScopeFileState {
  /** Entry object → its serialised line (entries are immutable, so this never goes stale). */
  private readonly serialized = new WeakMap<StoredEntry, string>();
  private queue: Promise<unknown> = Promise.resolve();

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
