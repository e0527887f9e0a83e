/**
 * The parts of one memory scope file every layer of jsonlStore.ts uses: the spec a file is opened with and what a read
 * or a write answers, the error of an unreadable file, the timings (RACY_MS and the snapshot delays), the stat key
 * and the head and tail that say "the same content", a read at an offset, one line parsed, and sorted merges.
 */
import { promises as fs, statSync } from 'node:fs';
import type { StoreProblem } from '../../../shared/schemas';
import type { MemoryScope } from '../../../shared/memorySchemas';
import type { BadLine } from './lineFile';
import { compareEntries, parseStoredEntry, type StoredEntry } from './memoryEntry';
import { HEAD_BYTES } from './scopeSnapshot';

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

export const TAIL_BYTES = 64 * 1024;
/**
 * A stat taken less than this after the file's last change (mtime or ctime) may miss an edit made in the same
 * timestamp tick (coarse clocks, 2 s on FAT): such a snapshot is used only when the whole file hashes to it.
 */
export const RACY_MS = 2000;
/** How long after the content last changed its snapshot is written (writes in a burst make one snapshot). */
export const SNAPSHOT_DELAY_MS = 1000;
/**
 * After appends only, a snapshot waits longer: a start reuses the older one and parses only the appended lines, so
 * rewriting the whole snapshot after every `remember` would cost more than it saves.
 */
export const APPENDED_SNAPSHOT_DELAY_MS = 30_000;
/** A reason longer than this is cut in a problem's message (JSON.parse quotes the line). */
export const REASON_MAX = 160;

export interface KnownState {
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

export interface FileStat {
  key: string;
  mtime?: string;
  size?: number;
  changedAt?: number;
}

/** Synchronous on purpose: a stat is microseconds, and awaiting the thread pool for it costs more than it saves. */
export function statFile(path: string): FileStat {
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

export function tailOf(buf: Buffer): Buffer {
  return Buffer.from(buf.subarray(Math.max(0, buf.length - TAIL_BYTES)));
}

export function headOf(buf: Buffer): Buffer {
  return Buffer.from(buf.subarray(0, Math.min(buf.length, HEAD_BYTES)));
}

/** Up to `length` bytes of `path` from `position`. */
export async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await fs.open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export function parseLine(line: string, scope: MemoryScope, fileDate: string | undefined): { ok: true; entry: StoredEntry } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return { ok: false, reason: `not valid JSON (${(err as Error).message})` };
  }
  return parseStoredEntry(raw, scope, line, fileDate);
}

export function mergeSorted(a: readonly StoredEntry[], b: readonly StoredEntry[]): StoredEntry[] {
  if (b.length === 0) return [...a];
  const out: StoredEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(compareEntries(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
