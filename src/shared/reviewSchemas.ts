/**
 * Reviews and judgement on the wire: marking a file reviewed, the repository's reviews and accepting them, and
 * the verdicts of JudgeFile and JudgeTexts.
 */
import { z } from 'zod';
import { PinIdSchema } from './pinIdSchemas';

const RevisionParamsSchema = z.object({ id: PinIdSchema, revision: z.string().regex(/^[0-9a-f]{64}$/) }).strict();
/**
 * Marks a file revision reviewed. `findings` (keys, `core/review/findingLines.ts` `findingKey`): a per-finding review
 * that clears those findings only; absent: every finding of the revision (reviews made before reviews were per finding).
 */
export const MarkReviewedParamsSchema = RevisionParamsSchema.extend({ findings: z.array(z.string().min(1).max(4096)).min(1).max(1000).optional() }).strict();
export type MarkReviewedParams = z.infer<typeof MarkReviewedParamsSchema>;

/** This person accepts the repository's review of one file as it is now (`revision`) into their own record. */
export const AcceptRepositoryReviewParamsSchema = RevisionParamsSchema;
export type AcceptRepositoryReviewParams = z.infer<typeof RevisionParamsSchema>;
/** The repository's reviews not yet accepted: of one folder (its name) or, without it, of every folder. */
export const RepositoryReviewsParamsSchema = z.object({ folder: z.string().max(1000).optional() }).strict();
export type RepositoryReviewsParams = z.infer<typeof RepositoryReviewsParamsSchema>;
/** Accept these of a folder's repository reviews (as listed by the repository-reviews request). */
export const AcceptRepositoryReviewsParamsSchema = z
  .object({ folder: z.string().max(1000), reviews: z.array(z.object({ id: z.string().min(1).max(4096), contentHash: z.string().regex(/^[0-9a-f]{64}$/) }).strict()).max(10_000) })
  .strict();
export type AcceptRepositoryReviewsParams = z.infer<typeof AcceptRepositoryReviewsParamsSchema>;

export const ReviewRecordSchema = z.object({
  id: z.string(),
  contentHash: z.string(),
  rulesetVersion: z.string(),
  rules: z.array(z.string()),
  reviewedBy: z.string(),
  reviewedAt: z.string(),
  /** A per-finding review: the findings it clears (`findingKey`); absent: every finding of the revision. */
  findings: z.array(z.string()).optional(),
});
export type ReviewRecord = z.infer<typeof ReviewRecordSchema>;
export interface RepositoryReviewsResult {
  folders: { folder: string; reviews: ReviewRecord[] }[];
}

/** A finding on a file, with line/column for people (0-based in the protocol, 1-based in the CLI). */
export const FileFindingSchema = z.object({
  ruleId: z.string(),
  category: z.string(),
  severity: z.string(),
  message: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  /** A finding on the file's name (its id read as words), not on its text: it has no line. */
  inName: z.boolean().optional(),
});
export const JudgeFileResultSchema = z.object({
  id: z.string(),
  revision: z.string(),
  rulesetVersion: z.string(),
  /** Findings that stand (withheld from the model). Empty when clean or reviewed. */
  findings: z.array(FileFindingSchema),
  /** Every finding, reviewed or not, so a person sees what matched. */
  allFindings: z.array(FileFindingSchema),
  /** This person's review (their own record, or the repository's review they accepted) that clears the findings. */
  review: ReviewRecordSchema.optional(),
  /** The repository's review alone (`.knowledge/reviews.json`, the team's record): shown, never obeyed until accepted. */
  repositoryReview: ReviewRecordSchema.optional(),
  /**
   * What the learned stage vetoed in the text (a rule's match the model read as benign): the rule, its span, the model
   * score the rule needs (`gate`) and the score the text reached (`score`); null when not finite.
   */
  vetoed: z.array(z.object({ ruleId: z.string(), start: z.number().int(), end: z.number().int(), gate: z.number().nullable(), score: z.number().nullable() })).optional(),
});
export type JudgeFileResult = z.infer<typeof JudgeFileResultSchema>;
export const JudgeFileParamsSchema = z.object({ id: PinIdSchema }).strict();
export type JudgeFileParams = z.infer<typeof JudgeFileParamsSchema>;

/** Texts to judge now: replayed blocks' items, pinned messages, compaction summaries. `id`: a pin, whose reviews apply. */
export const JudgeTextsParamsSchema = z
  .object({ texts: z.array(z.object({ text: z.string().max(2_000_000), id: PinIdSchema.optional() }).strict()).max(500) })
  .strict();
export type JudgeTextsParams = z.infer<typeof JudgeTextsParamsSchema>;
/** One verdict per text, in order: flagged (findings stand, no review covers them) and the rules that matched. */
export interface JudgeTextsResult {
  rulesetVersion: string;
  /** `spans`: where each finding that stands lies in the text (half-open UTF-16 offsets), for naming the lines withheld. */
  results: { flagged: boolean; rules: string[]; spans?: { start: number; end: number }[] }[];
}
