/**
 * The memory audit log (`<globalStoragePath>/memory/audit.jsonl`): one line per delete, with ids and
 * counts — never titles or bodies, which would keep what was forgotten. Appended under the file's lock.
 */
import { promises as fs } from 'node:fs';
import { dirname } from 'node:path';
import { withFileLock } from '../store/atomicFile';
import type { MemoryScope } from '../../../shared/memorySchemas';

export interface AuditRecord {
  at: string;
  action: 'forget' | 'forget-flagged' | 'forget-scope' | 'merge' | 'forget-proposals';
  scope: MemoryScope;
  by: string;
  /** The entry the person asked to forget (forget and forget-flagged). */
  target?: string;
  sessionKey?: string;
  deleted: string[];
  restored: string[];
  counts: { deleted: number; restored: number };
}

export class AuditLog {
  constructor(readonly path: string) {}

  async append(record: AuditRecord): Promise<void> {
    // Only ids and counts: a guard against a future caller passing more.
    const line = JSON.stringify({
      at: record.at,
      action: record.action,
      scope: record.scope,
      by: record.by,
      ...(record.target ? { target: record.target } : {}),
      ...(record.sessionKey ? { sessionKey: record.sessionKey } : {}),
      deleted: record.deleted,
      restored: record.restored,
      counts: record.counts,
    });
    await fs.mkdir(dirname(this.path), { recursive: true });
    await withFileLock(this.path, async () => {
      const handle = await fs.open(this.path, 'a', 0o600);
      try {
        await handle.writeFile(`${line}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  async read(): Promise<AuditRecord[]> {
    let text: string;
    try {
      text = await fs.readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: AuditRecord[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as AuditRecord);
      } catch {
        /* a torn last line of an interrupted append */
      }
    }
    return out;
  }
}
