/**
 * The one reading and writing of our own JSON files. Two forms, one parse (`parseJsonDocument`: JSON, an object
 * root, migrations, the zod schema, what is wrong named) and one text (`serializeJsonDocument`):
 * - `JsonDocument` — a store file with a lock and set-aside: the repository's reviews and agent pins
 *   (`.knowledge/reviews.json`, `pins.json`), the person's trust records and the approvals' migration record;
 * - `readJsonDocument` / `writeJsonDocument` — read once, an unusable file left where it is and named; whole-file
 *   atomic writes without a lock: the memory switch (it mirrors VS Code's state).
 * Another tool's JSON file we edit (`.claude/settings.local.json`, `.mcp.json`) goes through `jsonObjectFile.ts`, on
 * `parseJsonObject`.
 *
 * `JsonDocument`: one JSON file of the store, read and written through lowdb with an explicit adapter.
 *
 * Guarantees (each has a test against real files in test/unit/store.test.ts):
 * - writes are atomic (temp file + fsync + rename, see `atomicFile.ts`);
 * - `update()` is a read-modify-write under a cross-process lock, re-reading the file first, so two
 *   servers (two VS Code windows) writing at once lose no update;
 * - a malformed file is never treated as empty: it is renamed aside with a timestamp, a problem naming
 *   both paths is reported, and this document starts from its defaults while every other source loads;
 * - the schema carries a version; older files are migrated on read; unknown fields (from a newer version
 *   of the extension) are kept on the round trip, and a newer version number is never lowered.
 */
import { promises as fs, constants as fsConstants } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import type { z } from 'zod';
import { withFileLock, writeFileAtomic, type LockOptions } from './atomicFile';
import type { StoreHealth, StoreProblem } from '../../../shared/schemas';

/** Every document on disk has this shape at its root. */
export interface VersionedDoc {
  schemaVersion: number;
}

export interface DocumentSpec<T extends VersionedDoc> {
  /** A short name for messages: "sessions", "project". */
  source: string;
  path: string;
  /** The current schema (should be a loose object so unknown fields survive). */
  schema: z.ZodType<T>;
  currentVersion: number;
  defaults: () => T;
  /** `migrations[n]` turns a raw version-n document into version n+1. */
  migrations?: Record<number, (raw: Record<string, unknown>) => Record<string, unknown>>;
  onProblem?: (problem: StoreProblem) => void;
  /** Options of the cross-process lock taken by `update`. */
  lock?: LockOptions;
  /**
   * The workspace folder a repository file (`.knowledge/pins.json`, `reviews.json`) lies in: `update` refuses a link at
   * the file or above it, or a path leaving the folder (`LinkedPathError`), before it locks, reads or writes.
   */
  confineTo?: string;
  /** Larger files are refused unread (default {@link DEFAULT_MAX_DOCUMENT_BYTES}). */
  maxBytes?: number;
}

/**
 * A document bigger than this is not ours to parse: refused unread, so a committed file linked to `/dev/zero` or a
 * huge one cannot exhaust memory. Generous: a sessions index of 100k sessions is a few MB.
 */
export const DEFAULT_MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/**
 * A document that is not a regular file (a device, a FIFO, a folder, reached through a link) or is over the size
 * limit: left in place — nothing is renamed — reported, and read as the defaults.
 */
export class UnreadableDocumentError extends Error {
  readonly reason = 'unreadable-document' as const;
  static is(err: unknown): err is UnreadableDocumentError {
    return err instanceof Error && (err as UnreadableDocumentError).reason === 'unreadable-document';
  }
}

/** Reads a regular file of at most `maxBytes`; never blocks on a FIFO and never reads a device. */
async function readBoundedText(path: string, maxBytes: number): Promise<string> {
  const handle = await fs.open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new UnreadableDocumentError(`${path} is not a regular file; it was not read`);
    if (st.size > maxBytes) throw new UnreadableDocumentError(`${path} is ${st.size} bytes, over the ${maxBytes}-byte limit; it was not read`);
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length) throw new UnreadableDocumentError(`${path} grew while being read; it was not read`);
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** What is wrong with a malformed document: not JSON, a root that is not an object, or not the schema (or version). */
export type MalformedProblem = 'not-json' | 'not-an-object' | 'schema';

export class MalformedDocumentError extends Error {
  readonly reason = 'malformed-document' as const;
  constructor(
    message: string,
    readonly problem: MalformedProblem = 'schema',
  ) {
    super(message);
  }
  static is(err: unknown): err is MalformedDocumentError {
    return err instanceof Error && (err as MalformedDocumentError).reason === 'malformed-document';
  }
}

function timestampForFileName(date = new Date()): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

// ---- the one reading and writing of our own JSON files ----------------------------------------------------

/** How a document is parsed: its schema, its version and the migrations up to it (the fields of `DocumentSpec`). */
export type DocumentShape<T> = { schema: z.ZodType<T>; currentVersion?: number; migrations?: DocumentSpec<VersionedDoc>['migrations'] };

/** JSON text whose root is an object; else `MalformedDocumentError` (`not-json` with the parser's words, or `not-an-object`). */
export function parseJsonObject(text: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new MalformedDocumentError(`not valid JSON (${(err as Error).message})`, 'not-json');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new MalformedDocumentError('the root is not a JSON object', 'not-an-object');
  return raw as Record<string, unknown>;
}

/**
 * A document's text, migrated up to `currentVersion` (from its `schemaVersion`; none is version 0) when one is given,
 * and validated by the schema; else `MalformedDocumentError` saying where it fails.
 */
export function parseJsonDocument<T>(text: string, shape: DocumentShape<T>): T {
  let doc = parseJsonObject(text);
  if (shape.currentVersion !== undefined) {
    let version = typeof doc.schemaVersion === 'number' ? doc.schemaVersion : 0;
    while (version < shape.currentVersion) {
      const migrate = shape.migrations?.[version];
      if (!migrate) throw new MalformedDocumentError(`no migration from schema version ${version}`);
      doc = { ...migrate(doc), schemaVersion: version + 1 };
      version += 1;
    }
  }
  const parsed = shape.schema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MalformedDocumentError(`does not match the schema at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The text of every JSON document of ours: two-space indented, ending in a newline. */
export function serializeJsonDocument(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * Moves a malformed file aside (`<name>.malformed-<timestamp>`, nothing deleted) and answers the problem to report,
 * naming both paths; `setAsidePath` is absent when another process set it aside first. `consequence` ends the message.
 */
export async function setAsideMalformed(source: string, path: string, reason: string, consequence = 'Fix it and move it back, or keep the fresh file.'): Promise<StoreProblem> {
  const aside = join(dirname(path), `${basename(path)}.malformed-${timestampForFileName()}`);
  let setAsidePath: string | undefined = aside;
  try {
    await fs.rename(path, aside);
  } catch (err) {
    // Another process may have set it aside first; then the file is gone or already replaced.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    setAsidePath = undefined;
  }
  return {
    source,
    path,
    message: setAsidePath
      ? `${path} is malformed (${reason}). It was moved to ${setAsidePath}; nothing was deleted. ${consequence}`
      : `${path} was malformed (${reason}) and has already been set aside by another window.`,
    ...(setAsidePath ? { setAsidePath } : {}),
    at: new Date().toISOString(),
  };
}

/** A document read once by `readJsonDocument`: the file's, the defaults (missing), or the defaults and why (unusable). */
export type JsonDocumentRead<T> =
  | { state: 'ok' | 'newer-version'; data: T }
  | { state: 'missing'; data: T }
  | { state: 'unusable'; data: T; problem: string };

/** What `readJsonDocument` needs: where, the shape (a version only for a document with `schemaVersion`) and the defaults. */
export interface JsonDocumentFile<T> extends DocumentShape<T> {
  path: string;
  defaults: () => T;
  maxBytes?: number;
}

/**
 * Reads a document once, without a lock, and LEAVES a file it cannot use where it is (its defaults are read and
 * `problem` says why): for a file that mirrors state kept elsewhere (the memory switch) or a cache, where setting
 * aside would lose nothing worth keeping and `JsonDocument.load` would be too much. Not-regular files and files over
 * `maxBytes` are refused unread, as `JsonDocument` does. Without `currentVersion` the schema alone decides (a cache
 * with its own format field).
 */
export async function readJsonDocument<T>(spec: JsonDocumentFile<T>): Promise<JsonDocumentRead<T>> {
  let text: string;
  try {
    text = await readBoundedText(spec.path, spec.maxBytes ?? DEFAULT_MAX_DOCUMENT_BYTES);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'missing', data: spec.defaults() };
    return { state: 'unusable', data: spec.defaults(), problem: UnreadableDocumentError.is(err) ? err.message : `${spec.path} cannot be read (${code ?? (err as Error).message})` };
  }
  try {
    const data = parseJsonDocument(text, spec);
    const version = (data as Partial<VersionedDoc>).schemaVersion;
    return { state: spec.currentVersion !== undefined && typeof version === 'number' && version > spec.currentVersion ? 'newer-version' : 'ok', data };
  } catch (err) {
    if (!MalformedDocumentError.is(err)) throw err;
    return { state: 'unusable', data: spec.defaults(), problem: `${spec.path} is malformed (${err.message})` };
  }
}

/**
 * Writes a whole document atomically (temp file + fsync + rename), without a lock: for a file one writer replaces
 * whole, where the last write wins (use `JsonDocument.update` for a read-modify-write). `compact`: on one line (a
 * large cache nobody reads by hand).
 */
export async function writeJsonDocument<T>(spec: { path: string; confineTo?: string }, data: T, options: { compact?: boolean } = {}): Promise<void> {
  const text = options.compact ? JSON.stringify(data) : serializeJsonDocument(data);
  await writeFileAtomic(spec.path, text, spec.confineTo !== undefined ? { confineTo: spec.confineTo } : {});
}

/**
 * lowdb adapter: reads validate (and migrate) through zod; writes are atomic. A malformed file throws
 * `MalformedDocumentError` so the document can set it aside; it is never read as null/empty.
 */
export class ValidatingJsonFileAdapter<T extends VersionedDoc> implements Adapter<T> {
  /** Whether the last read found no file (lowdb keeps its previous data on a null read). */
  lastReadMissing = false;

  constructor(private readonly spec: DocumentSpec<T>) {}

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readBoundedText(this.spec.path, this.spec.maxBytes ?? DEFAULT_MAX_DOCUMENT_BYTES);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.lastReadMissing = true;
        return null;
      }
      throw err;
    }
    this.lastReadMissing = false;
    return this.parse(text);
  }

  parse(text: string): T {
    return parseJsonDocument(text, this.spec);
  }

  async write(data: T): Promise<void> {
    await writeJsonDocument(this.spec, data);
  }
}

export class JsonDocument<T extends VersionedDoc> {
  private readonly adapter: ValidatingJsonFileAdapter<T>;
  private readonly db: Low<T>;
  private state: StoreHealth['state'] = 'missing';
  /** Serialises this process's own updates; the file lock serialises processes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly spec: DocumentSpec<T>) {
    this.adapter = new ValidatingJsonFileAdapter(spec);
    this.db = new Low<T>(this.adapter, spec.defaults());
  }

  get data(): T {
    return this.db.data;
  }

  health(): StoreHealth {
    return {
      source: this.spec.source,
      path: this.spec.path,
      state: this.state,
      schemaVersion: this.state === 'missing' || this.state === 'set-aside' ? null : this.db.data.schemaVersion,
    };
  }

  /** Reads the file from disk. A malformed file is set aside and reported; this never throws for that. */
  async load(): Promise<T> {
    try {
      await this.db.read();
      if (this.adapter.lastReadMissing || this.db.data === null || this.db.data === undefined) {
        this.db.data = this.spec.defaults();
        this.state = 'missing';
      } else {
        this.state = this.db.data.schemaVersion > this.spec.currentVersion ? 'newer-version' : 'ok';
      }
    } catch (err) {
      if (UnreadableDocumentError.is(err)) {
        this.db.data = this.spec.defaults();
        this.state = 'set-aside';
        this.spec.onProblem?.({ source: this.spec.source, path: this.spec.path, message: err.message, at: new Date().toISOString() });
        return this.db.data;
      }
      if (!MalformedDocumentError.is(err)) throw err;
      await this.setAside(err.message);
    }
    return this.db.data;
  }

  /**
   * Read-modify-write under the cross-process lock. `fn` receives the freshly read document and mutates
   * it (or returns a replacement). Answers the document as written.
   */
  update(fn: (doc: T) => T | void): Promise<T> {
    const run = async (): Promise<T> =>
      withFileLock(this.spec.path, async () => {
        await this.load();
        const current = this.db.data;
        const next = fn(current) ?? current;
        // Never lower a newer writer's version number; unknown fields ride along in `next`.
        next.schemaVersion = Math.max(next.schemaVersion ?? 0, this.spec.currentVersion);
        this.db.data = next;
        await this.db.write();
        this.state = next.schemaVersion > this.spec.currentVersion ? 'newer-version' : 'ok';
        return next;
      }, this.spec.confineTo !== undefined ? { ...this.spec.lock, confineTo: this.spec.confineTo } : this.spec.lock);
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async setAside(reason: string): Promise<void> {
    const problem = await setAsideMalformed(this.spec.source, this.spec.path, reason);
    this.db.data = this.spec.defaults();
    this.state = 'set-aside';
    this.spec.onProblem?.(problem);
  }
}
