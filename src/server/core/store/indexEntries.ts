/**
 * The sessions index in one process's memory: every session's entry, by key and by file, and the orders and maps its
 * questions walk (scheduled sessions by name, sessions by pin, last activity, newest first). Filled from the snapshot
 * and the journal's lines (`sessionIndex.ts` keeps it in step with the files on disk).
 */
import { SESSION_INDEX_FORMAT, fromRow, parseLine, type IndexEntry, type PageCursor } from './sessionIndexRows';
import { OrderedKeys, cmpPair } from './orderedKeys';

export class CorruptIndexError extends Error {}

export class IndexEntries {
  private readonly entries = new Map<string, IndexEntry>();
  private readonly byFile = new Map<string, string>();
  private readonly byName = new Map<string, Set<string>>();
  private readonly byPin = new Map<string, Set<string>>();
  private readonly byActivity = new OrderedKeys(this.entries, (e) => e.activity);
  private readonly byCreated = new OrderedKeys(this.entries, (e) => e.createdAt);
  /** Journal lines applied since the snapshot (a fold is due past a threshold). */
  journalLines = 0;

  clear(): void {
    this.entries.clear();
    this.byFile.clear();
    this.byName.clear();
    this.byPin.clear();
    this.journalLines = 0;
  }

  applySnapshot(text: string): void {
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
  applyLines(text: string, all: boolean): number {
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

  put(e: IndexEntry, touch: boolean): void {
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

  remove(key: string, touch: boolean): void {
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

  /** The snapshot was just written from these entries: the journal starts again, the orders are sorted afresh. */
  snapshotWritten(): void {
    this.journalLines = 0;
    this.byActivity.reset();
    this.byCreated.reset();
  }

  all(): IterableIterator<IndexEntry> {
    return this.entries.values();
  }

  keyOfFile(file: string): string | undefined {
    return this.byFile.get(file);
  }

  files(): IterableIterator<string> {
    return this.byFile.keys();
  }

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
