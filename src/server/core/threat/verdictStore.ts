/**
 * Owns the one persisted verdict store: the judgement's findings that survive a process, for a language server's
 * restart (memory's `verdicts.json` beside `sessions.json`) and for the processes that live for one prompt (the
 * hook's, `PersistedScan` in agentSessions.ts). One format, one module, read and written through
 * `store/jsonDocument.ts` (`readJsonDocument` / `writeJsonDocument`): a map from a revision (sha256 of exactly what
 * was judged) to the findings `judge()` found there, under one rule-set version.
 *
 * It is a cache, never a verdict source: a file made under another `RULESET_VERSION`, in another format, or that does
 * not parse or fit the schema is ignored whole, quietly (everything is judged again, and the next save rewrites it),
 * so it can never say "clean" for a changed text or under changed rules. Writes are atomic (temp + fsync + rename) and
 * need no lock: two processes compute the same verdicts, the last write wins. Pure Node, no `vscode`.
 *
 * Keys must be hashes of exactly the text that was judged (memory uses an entry's revision: sha256 of its type,
 * title, body and tags, recomputed from the line on every load, never trusted from the file).
 */
import { z } from 'zod';
import { FindingSpanSchema } from '../../../shared/schemas';
import { readJsonDocument, writeJsonDocument } from '../store/jsonDocument';
import type { ThreatFinding } from './threatFinding';
import { RULESET_VERSION } from './rules';

/** 2: the findings are `judge()`'s (ThreatFinding) for memory too (1 held memory's per-field findings). */
const FORMAT = 2;

/** A ThreatFinding: the wire's finding span without its excerpt, with its severity and what a hidden text tripped. */
const FindingSchema = FindingSpanSchema.omit({ text: true }).extend({
  severity: z.string(),
  inner: z.array(z.string()).optional(),
  uncovered: z.string().optional(),
});

const VerdictFileSchema = z.object({
  format: z.literal(FORMAT),
  rulesetVersion: z.string(),
  /** Revisions judged clean (no finding): most of them, kept compact. */
  clean: z.array(z.string()),
  /** Revision → findings. */
  flagged: z.record(z.string(), z.array(FindingSchema)),
});
type VerdictFile = z.infer<typeof VerdictFileSchema>;

export class VerdictStore {
  private saving: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly log: (message: string) => void = () => undefined,
    readonly rulesetVersion: string = RULESET_VERSION,
  ) {}

  /** The verdicts on disk for this rule set; empty (quietly) when there are none, they are another version's, or unusable. */
  async load(): Promise<Map<string, readonly ThreatFinding[]>> {
    const out = new Map<string, readonly ThreatFinding[]>();
    const read = await readJsonDocument<VerdictFile | null>({ path: this.path, schema: VerdictFileSchema, defaults: () => null });
    const file = read.data;
    if (read.state !== 'ok' || !file || file.rulesetVersion !== this.rulesetVersion) return out;
    for (const h of file.clean) out.set(h, []);
    for (const [h, findings] of Object.entries(file.flagged)) out.set(h, findings as ThreatFinding[]);
    return out;
  }

  /** Writes `verdicts` (the caller passes those of content that still exists, when it judged something new). Serialised; never throws. */
  save(verdicts: Iterable<[string, readonly ThreatFinding[]]>): Promise<void> {
    const clean: string[] = [];
    const flagged: Record<string, ThreatFinding[]> = {};
    for (const [h, findings] of verdicts) {
      if (findings.length === 0) clean.push(h);
      else flagged[h] = [...findings];
    }
    const run = async (): Promise<void> => {
      try {
        await writeJsonDocument({ path: this.path }, { format: FORMAT, rulesetVersion: this.rulesetVersion, clean, flagged }, { compact: true });
      } catch (err) {
        this.log(`Scan verdicts could not be saved to ${this.path} (${(err as Error).message}); the next start judges again.`);
      }
    };
    this.saving = this.saving.then(run, run);
    return this.saving;
  }
}
