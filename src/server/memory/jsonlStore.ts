/**
 * One memory scope on disk: a JSON-lines file, one entry per line, in a stable order (createdAt, then id).
 *
 * Guarantees (tested against real files in test/unit/memoryStore.test.ts):
 * - Every write happens under `withFileLock`, after re-reading the file, so two processes (two VS Code
 *   windows, a CLI) writing at once lose nothing. The re-read is skipped only when the file is provably the
 *   one this process last read or wrote: same device, inode, size, mtime and ctime (nanoseconds) AND the
 *   same last 64 KiB. Any append changes the size; any rewrite by rename changes the inode or the tail.
 * - A write is an atomic rewrite (temp + fsync + rename, `writeFileAtomic`). The one exception is the
 *   common case of adding entries that sort after every existing line: those are appended and fsynced,
 *   which yields byte-for-byte the file a rewrite would have written. A crash mid-append can only leave a
 *   torn LAST line holding the unacknowledged entry — loaded as a malformed line (reported, preserved).
 * - The file is written so teammates' additions merge in git (`merge=union`): new entries go at the end.
 *   The loader tolerates what a union merge produces — one id twice (the newest `updatedAt` wins), lines
 *   out of order, blank lines.
 * - A malformed line is never dropped silently: the good lines load, a problem names the path and line
 *   number, and before any rewrite the whole file is copied aside with a timestamp (nothing is lost).
 * - A file that cannot be read at all throws `ScopeUnreadableError`: the scope is "not loaded", never empty.
 */
import { promises as fs, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { withFileLock, writeFileAtomic } from '../store/atomicFile';
import type { StoreProblem } from '../../shared/schemas';
import type { MemoryScope } from '../../shared/memorySchemas';
import { compareEntries, newer, parseStoredEntry, serializeEntry, type StoredEntry } from './memoryEntry';

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

export interface BadLine {
  /** 1-based line number in the file as read. */
  line: number;
  reason: string;
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
  onProblem?: (problem: StoreProblem) => void;
}

function timestampForFileName(date = new Date()): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

const EMPTY = Buffer.alloc(0);

const TAIL_BYTES = 64 * 1024;

interface KnownState {
  /** dev:ino:size:mtimeNs:ctimeNs, or missing:<code>. */
  key: string;
  size: number;
  /** The last TAIL_BYTES of the content (a copy). */
  tail: Buffer;
}

/** Synchronous on purpose: a stat is microseconds, and awaiting the thread pool for it costs more than it saves. */
function statKey(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.isFile() ? 'f' : 'x'}`;
  } catch (err) {
    return `missing:${(err as NodeJS.ErrnoException).code ?? ''}`;
  }
}

function tailOf(buf: Buffer): Buffer {
  return Buffer.from(buf.subarray(Math.max(0, buf.length - TAIL_BYTES)));
}

export class JsonlScopeFile {
  /** What this process last read or wrote (null: never read, or unreadable). */
  private known: KnownState | null = null;
  private snapshot: { entries: readonly StoredEntry[]; badLines: readonly BadLine[] } = { entries: [], badLines: [] };
  /** Raw line → parsed entry, so a reread after another process's append parses only the new lines. */
  private lineCache = new Map<string, StoredEntry>();
  /** Entry object → its serialised line (entries are immutable, so this never goes stale). */
  private readonly lines = new WeakMap<StoredEntry, string>();
  /** Whether the file as last read is exactly what a rewrite would write (sorted, unique, normalised lines). */
  private canonical = true;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly spec: JsonlScopeSpec) {}

  get path(): string {
    return this.spec.path;
  }

  /** The last snapshot, without touching the disk. */
  get current(): { entries: readonly StoredEntry[]; badLines: readonly BadLine[] } {
    return this.snapshot;
  }

  /**
   * Reads the file when it may have changed (a stat decides; `force` always reads). Missing file: no
   * entries. Unreadable: throws ScopeUnreadableError. Malformed lines are reported each time they are read.
   */
  async read(force = false): Promise<ScopeSnapshot> {
    return this.readFresh(force, false);
  }

  private async readFresh(force: boolean, verifyTail: boolean): Promise<ScopeSnapshot> {
    const key = statKey(this.spec.path);
    if (!force && this.known && key === this.known.key && (!verifyTail || (await this.tailMatches(this.known)))) {
      return { ...this.snapshot, changed: false };
    }
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(this.spec.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        bytes = EMPTY;
      } else {
        this.known = null;
        throw new ScopeUnreadableError(this.spec.path, code ?? (err as Error).message);
      }
    }
    this.parse(bytes, true);
    // The stat taken before the read: if the file changed in between, the next read sees a new key.
    this.known = { key, size: bytes.length, tail: tailOf(bytes) };
    return { ...this.snapshot, changed: true };
  }

  private async tailMatches(known: KnownState): Promise<boolean> {
    if (known.size === 0) return true;
    try {
      const handle = await fs.open(this.spec.path, 'r');
      try {
        const buf = Buffer.allocUnsafe(known.tail.length);
        const { bytesRead } = await handle.read(buf, 0, buf.length, known.size - known.tail.length);
        return bytesRead === buf.length && buf.equals(known.tail);
      } finally {
        await handle.close();
      }
    } catch {
      return false;
    }
  }

  private parse(bytes: Buffer, report: boolean): void {
    const text = bytes.toString('utf8');
    const rawLines = text.split('\n');
    const nextCache = new Map<string, StoredEntry>();
    const byId = new Map<string, StoredEntry>();
    const badLines: BadLine[] = [];
    let sorted = true;
    let canonical = text.length === 0 || text.endsWith('\n');
    let prev: StoredEntry | undefined;
    for (let i = 0; i < rawLines.length; i++) {
      const line = rawLines[i]!.endsWith('\r') ? rawLines[i]!.slice(0, -1) : rawLines[i]!;
      if (line.trim() === '') {
        // A blank line (a union merge leaves them) is not an entry.
        if (i < rawLines.length - 1) canonical = false;
        continue;
      }
      let entry = this.lineCache.get(line) ?? nextCache.get(line);
      if (!entry) {
        let raw: unknown;
        try {
          raw = JSON.parse(line);
        } catch (err) {
          badLines.push({ line: i + 1, reason: `not valid JSON (${(err as Error).message})` });
          continue;
        }
        const parsed = parseStoredEntry(raw, this.spec.scope, line);
        if (!parsed.ok) {
          badLines.push({ line: i + 1, reason: parsed.reason });
          continue;
        }
        entry = parsed.entry;
        this.lines.set(entry, serializeEntry(entry));
      }
      nextCache.set(line, entry);
      if (canonical && (line !== this.lines.get(entry) || rawLines[i]!.endsWith('\r'))) canonical = false;
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
    const entries = [...byId.values()];
    if (!sorted) entries.sort(compareEntries);
    this.canonical = canonical && sorted && badLines.length === 0;
    this.snapshot = { entries, badLines };
    if (report && badLines.length > 0) {
      const first = badLines.slice(0, 5).map((b) => `line ${b.line} (${b.reason})`).join('; ');
      const more = badLines.length > 5 ? ` and ${badLines.length - 5} more` : '';
      this.spec.onProblem?.({
        source: this.spec.source,
        path: this.spec.path,
        message: `${this.spec.path} has ${badLines.length} malformed line${badLines.length === 1 ? '' : 's'}: ${first}${more}. The other lines were loaded; the bad lines are kept in the file until the next change, which first copies the whole file aside.`,
        at: new Date().toISOString(),
      });
    }
  }

  private serialize(e: StoredEntry): string {
    let line = this.lines.get(e);
    if (line === undefined) {
      line = serializeEntry(e);
      this.lines.set(e, line);
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
        const fresh = await this.readFresh(false, true);
        const { result, upserts = [], deletes = [] } = plan(fresh.entries);
        const deleteSet = new Set(deletes);
        if (upserts.length === 0 && deleteSet.size === 0) return { result, entries: fresh.entries };

        const byId = new Map(upserts.map((u) => [u.id, u]));
        const replaced = new Map<string, StoredEntry>();
        for (const e of fresh.entries) {
          const u = byId.get(e.id);
          if (u) replaced.set(e.id, u);
        }
        const added = [...byId.values()].filter((u) => !replaced.has(u.id)).sort(compareEntries);
        let kept: StoredEntry[] = fresh.entries.filter((e) => !deleteSet.has(e.id)).map((e) => replaced.get(e.id) ?? e);
        // createdAt never changes, so replaced entries keep their place; merge the new ones in.
        const last = kept[kept.length - 1];
        const appendOnly = replaced.size === 0 && deleteSet.size === 0 && fresh.badLines.length === 0 && (!last || compareEntries(last, added[0]!) < 0) && this.canonical;
        kept = appendOnly ? kept.concat(added) : mergeSorted(kept, added);

        if (appendOnly) {
          const chunk = Buffer.from(added.map((e) => `${this.serialize(e)}\n`).join(''), 'utf8');
          await fs.mkdir(dirname(this.spec.path), { recursive: true });
          const handle = await fs.open(this.spec.path, 'a', 0o600);
          try {
            await handle.writeFile(chunk);
            await handle.sync();
          } finally {
            await handle.close();
          }
          const size = this.known!.size + chunk.length;
          this.known = { key: statKey(this.spec.path), size, tail: tailOf(Buffer.concat([this.known!.tail, chunk])) };
        } else {
          if (fresh.badLines.length > 0) await this.setAside(fresh.badLines);
          const text = kept.length > 0 ? `${kept.map((e) => this.serialize(e)).join('\n')}\n` : '';
          await writeFileAtomic(this.spec.path, text);
          const buf = Buffer.from(text, 'utf8');
          this.known = { key: statKey(this.spec.path), size: buf.length, tail: tailOf(buf) };
        }
        this.canonical = true;
        this.snapshot = { entries: kept, badLines: [] };
        // Keep the line cache in step with what is on disk now.
        for (const e of fresh.entries) if (deleteSet.has(e.id) || replaced.has(e.id)) this.lineCache.delete(this.serialize(e));
        for (const e of [...replaced.values(), ...added]) this.lineCache.set(this.serialize(e), e);
        return { result, entries: kept };
      });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async setAside(badLines: readonly BadLine[]): Promise<void> {
    const path = this.spec.path;
    const aside = join(dirname(path), `${basename(path)}.malformed-${timestampForFileName()}`);
    await fs.copyFile(path, aside);
    this.spec.onProblem?.({
      source: this.spec.source,
      path,
      message: `${path} had ${badLines.length} malformed line${badLines.length === 1 ? '' : 's'} (${badLines.map((b) => `line ${b.line}`).join(', ')}). Before rewriting it, the whole file was copied to ${aside}; nothing was deleted. Fix the lines there and add them back if they matter.`,
      setAsidePath: aside,
      at: new Date().toISOString(),
    });
  }
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
