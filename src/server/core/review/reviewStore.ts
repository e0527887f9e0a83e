/**
 * "Reviewed — not a threat": a person's decision about one exact content revision under one rule-set
 * version. Editing the text or a new rule-set version judges it again.
 *
 * Two records, one verdict. The person's own record (`UserTrustStore`, per user, HMAC'd, outside every repository)
 * is what clears a finding. `.knowledge/reviews.json` (meant for git) is the TEAM's record: written when this person
 * marks a file reviewed, so a team still shares its decisions, shown as "reviewed by <name> in the repository",
 * never obeyed — whoever can commit to a repository can write any record there. A person accepts the team's record
 * (one review or all of a folder's) into their own (`how: 'accepted'`). `clearance` is the one answer to "is this
 * cleared, and by what" that every caller (language server, CLI, hook, MCP, memory) goes through.
 *
 * `session-knowledge scan --accept-repository-reviews` (`acceptRepository`) is the one opt-in that obeys the team's
 * record: for a CI whose reviews.json is checked in code review.
 *
 * Migration (once per folder and user, best effort): reviews this person made before the personal record existed are
 * carried over (`how: 'migrated'`) only when `reviewedBy` is this user, `reviewedAt` is before the record began
 * (`UserTrustStore.since`), and this machine knew the folder before that: a sessions store of the folder (the agents'
 * per-user one or VS Code's) last written before the record began. A repository cloned after the upgrade has none.
 */
import { join } from 'node:path';
import { promises as fs } from 'node:fs';
import { userInfo } from 'node:os';
import { z } from 'zod';
import { JsonDocument } from '../store/jsonDocument';
import type { StoreProblem } from '../../../shared/schemas';
import { ReviewRecordSchema, type ReviewRecord } from '../../../shared/reviewSchemas';
import { UserTrustStore, type NewTrustRecord, type TrustRecord } from './userTrust';
import { agentSessionsPath, agentStateDir } from '../agents/agentSessions';
import { defaultStoragePath, sessionsPath } from '../store/paths';
import { realpathOrSelf } from '../pinPolicy';

export const REVIEWS_SCHEMA_VERSION = 1;

/** A review on disk: the protocol's record (id is a workspace-relative path or `memory:<id>`), unknown fields kept. */
export const ReviewSchema = ReviewRecordSchema.loose();
export type Review = z.infer<typeof ReviewSchema>;

export const ReviewsDocSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  reviews: z.array(ReviewSchema).default([]),
});
export type ReviewsDoc = z.infer<typeof ReviewsDocSchema>;

export function currentUser(): string {
  try {
    return process.env.SESSION_KNOWLEDGE_USER || userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The person's record, one per state folder in a process (the language server, the CLI, the hook, MCP share it). */
const trustStores = new Map<string, UserTrustStore>();
export function userTrust(dir: string = join(agentStateDir(), 'trust')): UserTrustStore {
  let store = trustStores.get(dir);
  if (!store) trustStores.set(dir, (store = new UserTrustStore(dir)));
  return store;
}

/** Global storage folders (VS Code's) whose sessions stores show a folder was known before the upgrade. */
export const knownStoragePaths = new Set<string>();

/** Is this cleared, and by what. */
export interface Clearance {
  /** Every finding of the revision is cleared (a whole review). */
  cleared: boolean;
  /**
   * Findings cleared one by one (per-finding reviews: `findingLines.ts` `findingKey`), when not `cleared`: those
   * findings no longer stand; any other finding of the revision still does.
   */
  findings?: ReadonlySet<string>;
  /** What cleared it: this person's record (self, accepted, migrated) or, with the scan flag only, the repository's. */
  by?: 'self' | 'accepted' | 'migrated' | 'repository';
  /** This person's record, when there is one. */
  personal?: TrustRecord;
  /** The team's record in `.knowledge/reviews.json`, when there is one (shown; it clears only when accepted). */
  team?: Review;
}

export interface ReviewStoreOptions {
  /** The person's record (default: the per-user state folder's). */
  trust?: UserTrustStore;
  /** Obey the repository's record too (`scan --accept-repository-reviews` only). */
  acceptRepository?: boolean;
}

export class ReviewStore {
  readonly doc: JsonDocument<ReviewsDoc>;
  readonly trust: UserTrustStore;
  private index = new Map<string, Review>();
  private readonly acceptRepository: boolean;

  constructor(
    readonly workspaceFolder: string,
    onProblem?: (p: StoreProblem) => void,
    options: ReviewStoreOptions = {},
  ) {
    this.trust = options.trust ?? userTrust();
    this.acceptRepository = options.acceptRepository ?? false;
    this.doc = new JsonDocument<ReviewsDoc>({
      source: 'reviews',
      path: join(workspaceFolder, '.knowledge', 'reviews.json'),
      confineTo: workspaceFolder, // a committed link never makes us write outside (confinedPath.ts)
      schema: ReviewsDocSchema,
      currentVersion: REVIEWS_SCHEMA_VERSION,
      defaults: () => ({ schemaVersion: REVIEWS_SCHEMA_VERSION, reviews: [] }),
      onProblem,
    });
  }

  private static key(id: string, contentHash: string, rulesetVersion: string): string {
    return `${id}\0${contentHash}\0${rulesetVersion}`;
  }

  private reindex(doc: ReviewsDoc): void {
    this.index = new Map(doc.reviews.map((r) => [ReviewStore.key(r.id, r.contentHash, r.rulesetVersion), r]));
  }

  /** Loads the team's record and this person's (and carries this person's pre-upgrade reviews over, once). */
  async load(): Promise<void> {
    const [doc] = await Promise.all([this.doc.load(), this.trust.refresh()]);
    this.reindex(doc);
    try {
      await this.migrate();
    } catch {
      // Best effort: a failed carry-over leaves the findings standing (safe) and is tried again next load.
    }
  }

  /** Reloads this person's record when another process wrote it. */
  refreshTrust(): Promise<boolean> {
    return this.trust.refresh();
  }

  /** The team's review that covers exactly this content under this rule set, if any (shown, never obeyed alone). */
  find(id: string, contentHash: string, rulesetVersion: string): Review | undefined {
    return this.index.get(ReviewStore.key(id, contentHash, rulesetVersion));
  }

  /** Every team review in the repository's record. */
  get all(): readonly Review[] {
    return [...this.index.values()];
  }

  /** Changes (a new object) whenever the reviews as loaded (either record) change: what memoised results compare. */
  get revision(): object {
    if (this.seen.index !== this.index || this.seen.trust !== this.trust.revision) this.seen = { index: this.index, trust: this.trust.revision, token: {} };
    return this.seen.token;
  }
  private seen: { index?: object; trust?: object; token: object } = { token: {} };

  /** The one answer to "is this cleared, and by what". */
  clearance(id: string, contentHash: string, rulesetVersion: string): Clearance {
    const team = this.find(id, contentHash, rulesetVersion);
    const key = { kind: 'review' as const, folder: this.workspaceFolder, id, revision: contentHash, rulesetVersion };
    const personal = this.trust.find(key);
    if (personal) return { cleared: true, by: personal.how, personal, ...(team ? { team } : {}) };
    if (team && this.acceptRepository && !team.findings) return { cleared: true, by: 'repository', team };
    // Per-finding reviews clear their findings only: a finding not named in one still stands.
    const own = this.trust.findingsReviewed(key);
    const findings = team?.findings && this.acceptRepository ? new Set([...own, ...team.findings]) : own;
    return { cleared: false, ...(findings.size > 0 ? { findings } : {}), ...(team ? { team } : {}) };
  }

  /** Whether findings on this content are cleared for this person (their own record; the repository's only with the scan flag). */
  isReviewed(id: string, contentHash: string, rulesetVersion: string): boolean {
    return this.clearance(id, contentHash, rulesetVersion).cleared;
  }

  /**
   * This person marks it reviewed: their own record (what clears it) and the team's (what the repository shares). With
   * `findings`, a per-finding review: it clears those findings of this revision and no other.
   */
  async markReviewed(review: Omit<ReviewRecord, 'reviewedBy' | 'reviewedAt'> & { reviewedBy?: string }): Promise<Review> {
    const record: Review = { ...review, reviewedBy: review.reviewedBy ?? currentUser(), reviewedAt: new Date().toISOString() };
    await this.trust.add(trustRecordsOf(this.workspaceFolder, record, 'self', record.reviewedAt));
    const doc = await this.doc.update((d) => {
      // One review per (id, revision, rule set); older revisions of the same id stay as history. Per-finding reviews of
      // one revision join in one record (a whole review stays whole).
      const same = (r: Review) => r.id === record.id && r.contentHash === record.contentHash && r.rulesetVersion === record.rulesetVersion;
      const before = d.reviews.find(same);
      const findings = record.findings && before ? (before.findings ? [...new Set([...before.findings, ...record.findings])] : undefined) : record.findings;
      const rules = before && record.findings ? [...new Set([...before.rules, ...record.rules])] : record.rules;
      const joined: Review = { ...record, rules };
      if (findings) joined.findings = findings;
      else delete joined.findings;
      d.reviews = d.reviews.filter((r) => !same(r));
      d.reviews.push(joined);
    });
    this.reindex(doc);
    return record;
  }

  /**
   * The team's reviews this person has not accepted (under `rulesetVersion` when given): what "Accept the Repository's
   * Reviews…" lists before accepting.
   */
  unaccepted(rulesetVersion?: string): Review[] {
    return this.all.filter((r) => {
      if (rulesetVersion !== undefined && r.rulesetVersion !== rulesetVersion) return false;
      const key = { kind: 'review' as const, folder: this.workspaceFolder, id: r.id, revision: r.contentHash, rulesetVersion: r.rulesetVersion };
      if (this.trust.has(key)) return false;
      const own = this.trust.findingsReviewed(key);
      return !r.findings || r.findings.some((f) => !own.has(f));
    });
  }

  /** This person accepts team reviews into their own record (`accepted`, by the reviewer named there). Answers those accepted. */
  async accept(reviews: readonly Review[]): Promise<Review[]> {
    await this.trust.add(reviews.flatMap((r) => trustRecordsOf(this.workspaceFolder, r, 'accepted')));
    return [...reviews];
  }

  /** See the file's header: once per folder and user; only this user's reviews, older than the record, in a folder known before. */
  private async migrate(): Promise<void> {
    if (this.trust.isMigrated(this.workspaceFolder)) return;
    const since = await this.trust.since();
    if (this.index.size > 0 && (await knownBefore(this.workspaceFolder, since))) {
      const me = currentUser();
      const carried = this.all.filter((r) => {
        const at = Date.parse(r.reviewedAt);
        return r.reviewedBy === me && !Number.isNaN(at) && at < since.getTime();
      });
      await this.trust.add(carried.flatMap((r) => trustRecordsOf(this.workspaceFolder, r, 'migrated', r.reviewedAt)));
    }
    await this.trust.markMigrated(this.workspaceFolder);
  }
}

/** A review as this person's records: one for a whole review, one per finding for a per-finding review. */
function trustRecordsOf(folder: string, r: Review, how: NewTrustRecord['how'], at?: string): NewTrustRecord[] {
  const base = { kind: 'review' as const, folder, id: r.id, revision: r.contentHash, rulesetVersion: r.rulesetVersion, how, by: r.reviewedBy, rules: r.rules, ...(at ? { at } : {}) };
  return r.findings ? r.findings.map((finding) => ({ ...base, finding })) : [base];
}

/** Whether this machine knew `folder` before `since`: a sessions store of it (agents' or VS Code's) last written before then. */
async function knownBefore(folder: string, since: Date): Promise<boolean> {
  const spellings = [...new Set([folder, realpathOrSelf(folder)])];
  const storages = new Set([...knownStoragePaths, defaultStoragePath()]);
  const candidates = spellings.flatMap((f) => [agentSessionsPath(f), ...[...storages].map((s) => sessionsPath(s, f))]);
  for (const path of candidates) {
    try {
      if ((await fs.stat(path)).mtimeMs < since.getTime()) return true;
    } catch {
      // not there
    }
  }
  return false;
}

/** The protocol's view of a review (without fields a newer version may have added on disk). */
export function toReviewRecord(r: Review): ReviewRecord {
  return { id: r.id, contentHash: r.contentHash, rulesetVersion: r.rulesetVersion, rules: r.rules, reviewedBy: r.reviewedBy, reviewedAt: r.reviewedAt, ...(r.findings ? { findings: [...r.findings] } : {}) };
}
