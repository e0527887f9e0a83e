/**
 * The one reader of knowledge files in a running core: the note index, file judgement (diagnostics, the panel,
 * reviews, MCP) and the block all ask it, so a file changed on disk is read once and every one of them sees the
 * same bytes and the same revision. What a read is (the cap, the revision = sha256 of exactly the bytes judged and
 * sent) is `knowledgeFile.ts`; this adds the memory of the last read of each file, keyed by its stat.
 *
 * A remembered read is answered again only while the file's stat (device, inode, size, mtime, ctime) is the same,
 * and only when that read was not "racy": a file whose mtime was not clearly before the read began could have been
 * written again within the same timestamp tick, with the same size, and its stat would not show it (git's
 * racy-clean rule). Such a read is not trusted: the next asker reads the file again. Pure Node: no `vscode`.
 */
import { promises as fs, type BigIntStats } from 'node:fs';
import { readKnowledgeFile, type KnowledgeRead } from './knowledgeFile';

/** Bytes of remembered text (UTF-16 units × 2) past which the least recently used reads are forgotten. */
const MAX_REMEMBERED_BYTES = 32 * 1024 * 1024;

/**
 * How far before the start of a read a file's last change (the later of mtime and ctime) must be for the read to be
 * trusted again, in milliseconds: file times come from a clock that ticks every few milliseconds (Linux: a jiffy,
 * Windows: ~16 ms). Times with no sub-millisecond part may come from a coarse file system (FAT: 2 s, HFS+: 1 s),
 * which gets the wider margin. (Memory's snapshots, read across restarts, keep a flat 2 s: `jsonlStore.ts`.)
 */
const RACY_MARGIN_MS = { fine: 50, coarse: 2_500 } as const;

/** A read remembered with the stat it was read at; `racy`: written too close to the read to trust the stat alone. */
type Remembered = { key: string; read: KnowledgeRead; racy: boolean };

/** Whether a read begun at `startedAt` (ms) may have missed a write in the same timestamp tick as the file's last change. */
function racy(stat: BigIntStats, startedAt: number): boolean {
  const changedNs = stat.mtimeNs > stat.ctimeNs ? stat.mtimeNs : stat.ctimeNs;
  const coarse = stat.mtimeNs % 1_000_000n === 0n && stat.ctimeNs % 1_000_000n === 0n;
  return Number(changedNs / 1_000_000n) > startedAt - RACY_MARGIN_MS[coarse ? 'coarse' : 'fine'];
}

/** The identity of a file's content as its stat shows it. */
function statKey(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

export class RevisionReader {
  private readonly remembered = new Map<string, Remembered>();
  /** Reads under way: a second asker of the same file as the same stat shows it waits for that read. */
  private readonly inFlight = new Map<string, { key: string; read: Promise<KnowledgeRead> }>();
  private rememberedBytes = 0;
  /** Files read from disk so far (a remembered answer is not a read): what tests count. */
  reads = 0;

  /**
   * A knowledge file as it is now: up to the cap, with its revision (`knowledgeFile.ts`). `stat`: a bigint stat of
   * `path` the caller just made (else one is made). Throws the file system's error (ENOENT, EISDIR…).
   */
  async read(path: string, stat?: BigIntStats): Promise<KnowledgeRead> {
    const startedAt = Date.now();
    const now = stat ?? (await fs.stat(path, { bigint: true }));
    const key = statKey(now);
    const known = this.remembered.get(path);
    if (known && known.key === key && !known.racy) {
      // Most recently used last.
      this.remembered.delete(path);
      this.remembered.set(path, known);
      return known.read;
    }
    const pending = this.inFlight.get(path);
    if (pending?.key === key) return pending.read;
    this.reads++;
    const reading = readKnowledgeFile(path, Number(now.size));
    this.inFlight.set(path, { key, read: reading });
    try {
      const read = await reading;
      this.remember(path, { key, read, racy: racy(now, startedAt) });
      return read;
    } finally {
      if (this.inFlight.get(path)?.read === reading) this.inFlight.delete(path);
    }
  }

  /** Forgets what was read of `path` (it was deleted, or left the workspace). */
  forget(path: string): void {
    const known = this.remembered.get(path);
    if (!known) return;
    this.remembered.delete(path);
    this.rememberedBytes -= known.read.text.length * 2;
  }

  private remember(path: string, entry: Remembered): void {
    this.forget(path);
    const bytes = entry.read.text.length * 2;
    if (bytes > MAX_REMEMBERED_BYTES) return;
    this.remembered.set(path, entry);
    this.rememberedBytes += bytes;
    for (const [oldest, old] of this.remembered) {
      if (this.rememberedBytes <= MAX_REMEMBERED_BYTES) break;
      this.remembered.delete(oldest);
      this.rememberedBytes -= old.read.text.length * 2;
    }
  }
}
