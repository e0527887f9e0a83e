/**
 * The person's own record of trust: which reviews ("not a threat") and which approvals (memory that may reach a
 * model) THIS person made or accepted, on this machine. A repository is written by whoever can commit to it, so
 * `.knowledge/reviews.json` and the trust states in a committed `memory.jsonl` are the team's record, never a
 * verdict: only a record here lets flagged text or a repository's memory reach a model.
 *
 * Where: one file per user, `<state>/trust/records.json` beside a key `<state>/trust/key` (`<state>` is the per-user
 * state folder of `agentSessions.ts`: `$SESSION_KNOWLEDGE_STATE_DIR`, else `$XDG_STATE_HOME/session-knowledge`, else
 * `~/.local/state/session-knowledge`), shared by VS Code's server, the CLI, the Claude Code hook and the MCP server,
 * so a review made in VS Code counts for Claude Code too. No repository path can reach it.
 *
 * Unforgeable by a repository: each record carries an HMAC-SHA256 under a 256-bit key made on first use (mode 0600)
 * that never leaves the machine; a record whose MAC does not verify (copied from elsewhere, edited by hand, made
 * with another key) is ignored and counted in `rejected`. Keyed by (kind, the folder's real path, id, content
 * revision, rule-set version, and for a per-finding review the finding: its rule and span): editing the text or a new rule set asks again, and a record made for one repository
 * never clears the same path in another. Atomic, locked writes through `JsonDocument`. Pure Node, no `vscode`.
 */
import { promises as fs } from 'node:fs';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { JsonDocument } from '../store/jsonDocument';
import { agentStateDir } from '../agents/agentSessions';
import { realpathOrSelf } from '../pinPolicy';
import type { StoreProblem } from '../../../shared/schemas';

export const USER_TRUST_SCHEMA_VERSION = 1;

const EMPTY: ReadonlySet<string> = new Set();

/** A review clears threat findings on one content revision; an approval lets one memory revision reach a model. */
export type TrustKind = 'review' | 'approval';
/** How the record came to be: the person decided here, accepted the team's record, or it was carried over on upgrade. */
export type TrustHow = 'self' | 'accepted' | 'migrated';

export interface TrustKey {
  kind: TrustKind;
  /** The workspace folder the id is relative to (any spelling; compared by real path). */
  folder: string;
  /** A folder-relative path, or `memory:<id>`. */
  id: string;
  /** The content revision (sha256 of what is judged and sent). */
  revision: string;
  /** The rule set a review was made under; `''` for approvals (an approval is not a verdict on rules). */
  rulesetVersion?: string;
  /**
   * A per-finding review: the one finding it clears (`findingLines.ts` `findingKey`: rule and span in this revision).
   * Absent: the whole revision (approvals, memory, reviews made before reviews were per finding).
   */
  finding?: string;
}

const TrustRecordSchema = z.looseObject({
  kind: z.enum(['review', 'approval']),
  folder: z.string(),
  id: z.string(),
  revision: z.string(),
  rulesetVersion: z.string(),
  how: z.enum(['self', 'accepted', 'migrated']),
  /** Who: for `accepted`, the team member named in the repository's record (as written there). */
  by: z.string(),
  at: z.string(),
  rules: z.array(z.string()).optional(),
  finding: z.string().optional(),
  mac: z.string(),
});
export type TrustRecord = z.infer<typeof TrustRecordSchema>;

const TrustDocSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  records: z.array(TrustRecordSchema).default([]),
  /** Folders (real paths) whose pre-upgrade reviews and approvals were carried over once (`migrated`). */
  migrated: z.array(z.string()).default([]),
  /** When this record began (the first run of a version with it): what migration compares pre-upgrade records with. */
  since: z.string().optional(),
});
type TrustDoc = z.infer<typeof TrustDocSchema>;

export interface NewTrustRecord extends TrustKey {
  how: TrustHow;
  by: string;
  rules?: string[];
  /** Defaults to now. */
  at?: string;
}

export class UserTrustStore {
  readonly dir: string;
  readonly doc: JsonDocument<TrustDoc>;
  private key: Buffer | undefined;
  private index = new Map<string, TrustRecord>();
  /** Per-finding reviews by their revision's key (without the finding): the findings cleared. */
  private byRevision = new Map<string, Set<string>>();
  private loadedMtime = -1;
  /** Records on disk whose MAC did not verify (ignored). */
  rejected = 0;

  constructor(dir: string = join(agentStateDir(), 'trust'), onProblem?: (p: StoreProblem) => void) {
    this.dir = dir;
    this.doc = new JsonDocument<TrustDoc>({
      source: 'trust',
      path: join(dir, 'records.json'),
      schema: TrustDocSchema,
      currentVersion: USER_TRUST_SCHEMA_VERSION,
      defaults: () => ({ schemaVersion: USER_TRUST_SCHEMA_VERSION, records: [], migrated: [] }),
      onProblem,
    });
  }

  /** The folder as records name it: its real path. */
  static folderKey(folder: string): string {
    return realpathOrSelf(folder);
  }

  private static indexKey(k: TrustKey): string {
    const base = UserTrustStore.revisionKey(k);
    return k.finding === undefined ? base : `${base}\0${k.finding}`;
  }

  private static revisionKey(k: TrustKey): string {
    return [k.kind, UserTrustStore.folderKey(k.folder), k.id, k.revision, k.rulesetVersion ?? ''].join('\0');
  }

  /** The key, made on first use (0600, created exclusively: two processes racing agree on the first one written). */
  private async ensureKey(create: boolean): Promise<Buffer | undefined> {
    if (this.key) return this.key;
    const path = join(this.dir, 'key');
    try {
      this.key = Buffer.from((await fs.readFile(path, 'utf8')).trim(), 'hex');
      if (this.key.length < 32) throw new Error(`${path} is not a trust key`);
      return this.key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (!create) return undefined;
    }
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    try {
      await fs.writeFile(path, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return this.ensureKey(false);
  }

  private mac(key: Buffer, r: Omit<TrustRecord, 'mac'>): string {
    const fields = [r.kind, r.folder, r.id, r.revision, r.rulesetVersion, r.how, r.by, r.at, ((r.rules as string[] | undefined) ?? []).join(',')];
    // A per-finding review signs its finding too (a whole review's MAC is as before, so older records still verify).
    if (typeof r.finding === 'string') fields.push(r.finding);
    return createHmac('sha256', key).update(JSON.stringify(fields)).digest('hex');
  }

  private verifies(key: Buffer, r: TrustRecord): boolean {
    const want = Buffer.from(this.mac(key, r), 'hex');
    const got = Buffer.from(r.mac, 'hex');
    return got.length === want.length && timingSafeEqual(got, want);
  }

  private reindex(doc: TrustDoc, key: Buffer | undefined): void {
    const index = new Map<string, TrustRecord>();
    const byRevision = new Map<string, Set<string>>();
    let rejected = 0;
    for (const r of doc.records) {
      if (!key || !this.verifies(key, r)) {
        rejected += 1;
        continue;
      }
      index.set(UserTrustStore.indexKey(r), r);
      if (r.finding !== undefined) {
        const base = UserTrustStore.revisionKey(r);
        const set = byRevision.get(base) ?? new Set<string>();
        byRevision.set(base, set.add(r.finding));
      }
    }
    this.index = index;
    this.byRevision = byRevision;
    this.rejected = rejected;
  }

  private async mtime(): Promise<number> {
    try {
      return (await fs.stat(this.doc.spec.path)).mtimeMs;
    } catch {
      return 0;
    }
  }

  /** Reads the records (and the key, if one exists). A missing file is an empty record. */
  async load(): Promise<void> {
    const mtime = await this.mtime();
    const doc = await this.doc.load();
    this.reindex(doc, await this.ensureKey(false));
    this.loadedMtime = mtime;
  }

  /** Reloads when another process (another window, the CLI) wrote since the last load. Answers whether it did. */
  async refresh(): Promise<boolean> {
    const mtime = await this.mtime();
    if (mtime === this.loadedMtime) return false;
    await this.load();
    return true;
  }

  has(k: TrustKey): boolean {
    return this.index.has(UserTrustStore.indexKey(k));
  }

  find(k: TrustKey): TrustRecord | undefined {
    return this.index.get(UserTrustStore.indexKey(k));
  }

  /** The findings this person reviewed one by one on this revision (per-finding reviews; empty when none). */
  findingsReviewed(k: Omit<TrustKey, 'finding'>): ReadonlySet<string> {
    return this.byRevision.get(UserTrustStore.revisionKey(k)) ?? EMPTY;
  }

  /** Every verified record of one folder (by real path). */
  ofFolder(folder: string): TrustRecord[] {
    const f = UserTrustStore.folderKey(folder);
    return [...this.index.values()].filter((r) => r.folder === f);
  }

  /** Changes (a new object) whenever the records as loaded change: what memoised results compare. */
  get revision(): object {
    return this.index;
  }

  /** Adds records (one per key: a newer one replaces the older). Under the file's lock, atomic. */
  async add(records: readonly NewTrustRecord[]): Promise<TrustRecord[]> {
    if (records.length === 0) return [];
    const key = (await this.ensureKey(true))!;
    const made = records.map((n): TrustRecord => {
      const base = {
        kind: n.kind,
        folder: UserTrustStore.folderKey(n.folder),
        id: n.id,
        revision: n.revision,
        rulesetVersion: n.rulesetVersion ?? '',
        how: n.how,
        by: n.by,
        at: n.at ?? new Date().toISOString(),
        ...(n.rules ? { rules: [...n.rules] } : {}),
        ...(n.finding !== undefined ? { finding: n.finding } : {}),
      };
      return { ...base, mac: this.mac(key, base) };
    });
    const keys = new Set(made.map((r) => UserTrustStore.indexKey(r)));
    const doc = await this.doc.update((d) => {
      d.records = [...d.records.filter((r) => !keys.has(UserTrustStore.indexKey(r))), ...made];
    });
    this.reindex(doc, key);
    this.loadedMtime = await this.mtime();
    return made;
  }

  /** Removes the records of these keys (a person withdrawing a review or an approval). */
  async remove(keys: readonly TrustKey[]): Promise<void> {
    const gone = new Set(keys.map((k) => UserTrustStore.indexKey(k)));
    const doc = await this.doc.update((d) => {
      d.records = d.records.filter((r) => !gone.has(UserTrustStore.indexKey(r)));
    });
    this.reindex(doc, await this.ensureKey(false));
    this.loadedMtime = await this.mtime();
  }

  /**
   * When this person's record began: set once, by the first process of a version that has it. Reviews made before it
   * were made under the old rules (the repository's record was the verdict) and may be carried over (`migrated`).
   */
  async since(): Promise<Date> {
    let at = this.doc.data.since;
    if (!at) {
      const doc = await this.doc.update((d) => {
        d.since ??= new Date().toISOString();
      });
      at = doc.since!;
      this.loadedMtime = await this.mtime();
    }
    return new Date(at);
  }

  /** Whether a folder's pre-upgrade records were already carried over (see `markMigrated`). */
  isMigrated(folder: string): boolean {
    return this.doc.data.migrated.includes(UserTrustStore.folderKey(folder));
  }

  /** Records that a folder's carry-over happened, so it happens once per folder and user. */
  async markMigrated(folder: string): Promise<void> {
    const f = UserTrustStore.folderKey(folder);
    await this.doc.update((d) => {
      if (!d.migrated.includes(f)) d.migrated.push(f);
    });
  }
}
