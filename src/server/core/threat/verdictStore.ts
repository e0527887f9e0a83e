/**
 * Owns scan verdicts that survive a restart: a file next to the store (`verdicts.json` beside `sessions.json`)
 * mapping a content hash to the findings the rule set found in that content, under one rule-set version. A
 * restart with nothing changed judges nothing again; a file written under another `RULESET_VERSION` is ignored
 * whole (every verdict is judged again), as is a file that does not parse (it is a cache: said in the log, then
 * rewritten). Writes are atomic (temp + fsync + rename) and need no lock: two windows compute the same verdicts,
 * the last write wins. Pure Node, no `vscode`.
 *
 * Keys must be hashes of exactly the text that was judged (memory uses an entry's revision: sha256 of its type,
 * title, body and tags, recomputed from the line on every load, never trusted from the file).
 */
import { promises as fs } from 'node:fs';
import { writeFileAtomic } from '../store/atomicFile';
import { RULESET_VERSION } from './rules';

const FORMAT = 1;

interface VerdictFile<T> {
  format: number;
  rulesetVersion: string;
  /** Hashes judged clean (no finding): most of them, kept compact. */
  clean: string[];
  /** Hash → findings. */
  flagged: Record<string, T[]>;
}

export class VerdictStore<T> {
  private saving: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly log: (message: string) => void = () => undefined,
    readonly rulesetVersion: string = RULESET_VERSION,
  ) {}

  /** The verdicts on disk for this rule set; empty when there are none, they are another version's, or unreadable. */
  async load(): Promise<Map<string, T[]>> {
    const out = new Map<string, T[]>();
    let text: string;
    try {
      text = await fs.readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`Scan verdicts ${this.path} could not be read (${(err as Error).message}); every entry is judged again.`);
      return out;
    }
    let raw: Partial<VerdictFile<T>>;
    try {
      raw = JSON.parse(text) as Partial<VerdictFile<T>>;
    } catch (err) {
      this.log(`Scan verdicts ${this.path} are malformed (${(err as Error).message}); every entry is judged again and the file rewritten.`);
      return out;
    }
    if (raw.format !== FORMAT || raw.rulesetVersion !== this.rulesetVersion || !Array.isArray(raw.clean) || typeof raw.flagged !== 'object' || raw.flagged === null) {
      if (raw.rulesetVersion !== this.rulesetVersion) this.log(`Scan verdicts were made under rule set ${String(raw.rulesetVersion)}; the rules are now ${this.rulesetVersion}: every entry is judged again.`);
      return out;
    }
    for (const h of raw.clean) if (typeof h === 'string') out.set(h, []);
    for (const [h, findings] of Object.entries(raw.flagged)) if (Array.isArray(findings)) out.set(h, findings);
    return out;
  }

  /** Writes `verdicts` (the caller passes those of content that still exists, when it judged something new). Serialised; never throws. */
  save(verdicts: Iterable<[string, readonly T[]]>): Promise<void> {
    const clean: string[] = [];
    const flagged: Record<string, T[]> = {};
    for (const [h, findings] of verdicts) {
      if (findings.length === 0) clean.push(h);
      else flagged[h] = [...findings];
    }
    const run = async (): Promise<void> => {
      const file: VerdictFile<T> = { format: FORMAT, rulesetVersion: this.rulesetVersion, clean, flagged };
      try {
        await writeFileAtomic(this.path, JSON.stringify(file));
      } catch (err) {
        this.log(`Scan verdicts could not be saved to ${this.path} (${(err as Error).message}); the next start judges again.`);
      }
    };
    this.saving = this.saving.then(run, run);
    return this.saving;
  }
}
