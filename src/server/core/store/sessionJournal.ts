/**
 * The sessions index's journal, written by any process without loading the index (`sessionIndex.ts` reads it): each
 * session write appends its line under that session's file lock, after the session file's rename (`O_APPEND`, one
 * `write`, no fsync: the index is derived data, checked against the files at each process's first use). A writer then
 * checks that the journal it wrote to is still the journal (a fold may have moved it meanwhile) and appends again if
 * not; a line applied twice is harmless, and lines of one session stay in its lock's order.
 */
import { closeSync, fstatSync, openSync, promises as fs, statSync, writeSync } from 'node:fs';
import { withFileLock } from './atomicFile';
import { toRow, type Change } from './sessionIndexRows';

/** A journal no reader folded (only agents' hooks write here) is dropped past this size; the next reader rebuilds. */
export const MAX_JOURNAL_BYTES = 16 * 1024 * 1024;

export function inoOf(path: string): number | null {
  try {
    return statSync(path).ino;
  } catch {
    return null;
  }
}

export async function readOrNull(path: string): Promise<string | null> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export class SessionJournal {
  /** This process's journal descriptor, and the inode it points at. */
  private fd: { fd: number; ino: number } | null = null;

  constructor(
    readonly journalPath: string,
    private readonly snapshotPath: string,
    private readonly oldJournalPath: string,
    private readonly maxJournalBytes = MAX_JOURNAL_BYTES,
  ) {}

  /** Appends one change; called under the session's file lock, after its file was written or removed. */
  append(change: Change): void {
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
        if (now.size > (this.maxJournalBytes)) void this.dropWhenLarge().catch(() => undefined);
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
        if (statSync(this.journalPath).size <= (this.maxJournalBytes)) return;
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
}
