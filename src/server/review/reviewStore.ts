/**
 * "Reviewed — not a threat": a person's decision about one exact content revision under one rule-set
 * version. Editing the text or a new rule-set version judges it again. Kept in the workspace
 * (`.knowledge/reviews.json`, meant for git, so a team shares its decisions), through the same atomic,
 * locked, validated store as everything else. Records who, when and which rules.
 */
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { z } from 'zod';
import { JsonDocument } from '../store/jsonDocument';
import { ReviewRecordSchema, type ReviewRecord, type StoreProblem } from '../../shared/schemas';

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

export class ReviewStore {
  readonly doc: JsonDocument<ReviewsDoc>;
  private index = new Map<string, Review>();

  constructor(workspaceFolder: string, onProblem?: (p: StoreProblem) => void) {
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

  async load(): Promise<void> {
    this.reindex(await this.doc.load());
  }

  /** The review that covers exactly this content under this rule set, if any. */
  find(id: string, contentHash: string, rulesetVersion: string): Review | undefined {
    return this.index.get(ReviewStore.key(id, contentHash, rulesetVersion));
  }

  /** Changes (a new object) whenever the reviews as loaded change: what memoised results compare. */
  get revision(): object {
    return this.index;
  }

  isReviewed(id: string, contentHash: string, rulesetVersion: string): boolean {
    return this.index.has(ReviewStore.key(id, contentHash, rulesetVersion));
  }

  async markReviewed(review: Omit<ReviewRecord, 'reviewedBy' | 'reviewedAt'> & { reviewedBy?: string }): Promise<Review> {
    const record: Review = { ...review, reviewedBy: review.reviewedBy ?? currentUser(), reviewedAt: new Date().toISOString() };
    const doc = await this.doc.update((d) => {
      // One review per (id, revision, rule set); older revisions of the same id stay as history.
      d.reviews = d.reviews.filter((r) => !(r.id === record.id && r.contentHash === record.contentHash && r.rulesetVersion === record.rulesetVersion));
      d.reviews.push(record);
    });
    this.reindex(doc);
    return record;
  }
}

/** The protocol's view of a review (without fields a newer version may have added on disk). */
export function toReviewRecord(r: Review): ReviewRecord {
  return { id: r.id, contentHash: r.contentHash, rulesetVersion: r.rulesetVersion, rules: r.rules, reviewedBy: r.reviewedBy, reviewedAt: r.reviewedAt };
}
