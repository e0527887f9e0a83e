/**
 * The session files of the store (`sessions/<name>.json`, one per session): their names, how one is read (through the
 * stat-keyed cache: an unchanged file is not read again; parsed and validated as a JSON document by `jsonDocument.ts`),
 * written (`serializeSession`: unknown fields and a newer version number kept) and set aside when malformed (renamed
 * `<name>.json.malformed-<time>`, reported with both paths; the session reads as unknown, every other one loads).
 */
import { promises as fs, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { MalformedDocumentError, ValidatingJsonFileAdapter } from './jsonDocument';
import { SESSION_FILE_SCHEMA_VERSION, SessionFileSchema, type SessionFile, type SessionMeta } from './storeSchemas';
import type { StoreProblem } from '../../../shared/schemas';

/** The file name of a session: readable where the key allows it, unique by a hash of the key. */
export function sessionFileName(key: string): string {
  const readable = key.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 48);
  return `${readable}.${createHash('sha256').update(key).digest('hex').slice(0, 16)}.json`;
}

/** The folder of session files beside an index at `indexPath`. */
export const sessionsDirOf = (indexPath: string): string => join(dirname(indexPath), 'sessions');

/** When anything last happened to `s`: its own record, else the newest of creation, delivery and results. */
export function lastActivity(s: SessionMeta): number {
  const dates = [s.lastActivityAt, s.createdAt, s.deliveredAt ?? undefined, ...(s.results ?? []).map((r) => r.at)];
  let best = Number.NEGATIVE_INFINITY;
  for (const d of dates) {
    const t = d ? Date.parse(d) : Number.NaN;
    if (!Number.isNaN(t) && t > best) best = t;
  }
  return best;
}

/** A file's identity for "changed since?": `ino:size:mtimeNs`, or null when there is none. */
export function statKeyOf(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return null;
  }
}

/** A session file's text; a newer version number (and every unknown field) is kept. */
export function serializeSession(session: SessionMeta): string {
  const version = Math.max(SESSION_FILE_SCHEMA_VERSION, (session as { schemaVersion?: number }).schemaVersion ?? 0);
  return `${JSON.stringify({ ...session, schemaVersion: version }, null, 2)}\n`;
}

/** One session file's document: JSON, an object at the root, a version, the schema (`jsonDocument.ts`). */
const sessionDocument = new ValidatingJsonFileAdapter<SessionFile>({
  source: 'sessions',
  path: '',
  schema: SessionFileSchema,
  currentVersion: SESSION_FILE_SCHEMA_VERSION,
  defaults: () => {
    throw new Error('a session file has no defaults');
  },
});

export class SessionFiles {
  /** Parsed sessions by file name, with the stat they were read at: a list re-reads only what changed. */
  private readonly cache = new Map<string, { stat: string; session: SessionMeta }>();
  private readonly problems = new Set<string>();

  constructor(
    readonly dir: string,
    private readonly onProblem?: (problem: StoreProblem) => void,
  ) {}

  pathOf(key: string): string {
    return join(this.dir, sessionFileName(key));
  }

  /** The stat a file was last read or written at by this process, else its stat now. */
  statOf(name: string): string | null {
    return this.cache.get(name)?.stat ?? statKeyOf(join(this.dir, name));
  }

  /** This process wrote `session` to `name` (or removed it: `session` undefined). */
  wrote(name: string, stat: string | null, session: SessionMeta | undefined): void {
    if (session && stat) this.cache.set(name, { stat, session });
    else this.cache.delete(name);
  }

  /** Forgets files no longer in the folder. */
  keepOnly(present: ReadonlySet<string>): void {
    for (const name of [...this.cache.keys()]) if (!present.has(name)) this.cache.delete(name);
  }

  /**
   * Reads one session file. `expectedKey`: the key it must hold (a hash collision or a hand-copied file is
   * refused). A malformed file is set aside and reported, and reads as no session.
   */
  async read(path: string, expectedKey: string | undefined): Promise<SessionMeta | undefined> {
    const name = basename(path);
    const stat = statKeyOf(path);
    if (stat === null) {
      this.cache.delete(name);
      return undefined;
    }
    const cached = this.cache.get(name);
    if (cached && cached.stat === stat) return expectedKey === undefined || cached.session.key === expectedKey ? cached.session : undefined;
    let text: string;
    try {
      text = await fs.readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const session = sessionDocument.parse(text);
      this.cache.set(name, { stat, session });
      return expectedKey === undefined || session.key === expectedKey ? session : undefined;
    } catch (err) {
      if (!MalformedDocumentError.is(err)) throw err;
      await this.setAside(path, err.message);
      return undefined;
    }
  }

  private async setAside(path: string, reason: string): Promise<void> {
    const aside = `${path}.malformed-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    let moved = true;
    try {
      await fs.rename(path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      moved = false;
    }
    this.cache.delete(basename(path));
    if (!moved || this.problems.has(path)) return;
    this.onProblem?.({
      source: 'sessions',
      path,
      message: `${path} is malformed (${reason}). It was moved to ${aside}; nothing was deleted. That session is unknown until you fix the file and move it back; every other session loads.`,
      setAsidePath: aside,
      at: new Date().toISOString(),
    });
  }
}
