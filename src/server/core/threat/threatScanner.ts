// Owns the public scanner API: ThreatScanner (the verdict cache keyed by content and RULESET_VERSION),
// content hashing, judgements and review lookups; re-exports what callers import from the scan modules.
/**
 * The scanning itself lives in scan.ts (contract and pipeline), the rule gating in prefilter.ts, the pattern
 * rules in patternMatch.ts. Pure module: no `vscode`, no language-server imports.
 */
import { sha256Hex } from '../sha256Hex';
import { RULESET_VERSION } from './rules';
import { scanFrozen, type ThreatFinding } from './textScan';

export { RULESET_VERSION } from './rules';
export type { ThreatCategory, ThreatSeverity } from './rules';
export { scanText, type ScanOptions, type ThreatFinding } from './textScan';
export { allRulePatterns } from './patternMatch';

/** sha256 of the UTF-8 text, lowercase hex. The content hash used in cache keys and review marks. */
export const hashContent: (text: string) => string = sha256Hex;

/**
 * Lookup for "reviewed — not a threat" marks. A mark applies to one content hash under one ruleset
 * version at one path: editing the text or changing the rules makes it lapse. Storage is not ours.
 */
export type ReviewLookup = (path: string, contentHash: string, rulesetVersion: string) => boolean;

/** Verdict on one text, as the index build and diagnostics consume it. */
export interface ThreatJudgement {
  readonly contentHash: string;
  readonly rulesetVersion: string;
  /** Every finding (also when reviewed: the panel still shows what matched). */
  readonly findings: readonly ThreatFinding[];
  /** A person marked this exact content, under this ruleset version, as not a threat. */
  readonly reviewed: boolean;
  /** Keep out of what the model is told: findings exist and no review covers them. */
  readonly flagged: boolean;
}

export interface ThreatScannerOptions {
  /** Max cached verdicts (FIFO eviction). Default 50 000. */
  readonly maxEntries?: number;
}

/** Texts up to this length are cache-keyed by the text itself; longer ones by their content hash. */
const TEXT_KEY_MAX = 4096;

interface CacheEntry {
  readonly version: string;
  readonly findings: readonly ThreatFinding[];
  /** sha256 of the text, once known (passed by a caller or computed for a judgement). */
  hash?: string;
}

/**
 * Scanner with a verdict cache keyed by (content, ruleset version). Scanning on every read is then cheap: an
 * unchanged entry costs a map lookup. Texts up to 4 KiB are keyed by the string itself (V8 hashes a string
 * once and compares on a hit, far cheaper than sha256), longer texts by their content hash: pass it when the
 * caller already has it (the store does: it is the entry's revision), otherwise it is computed with
 * {@link hashContent}. A judgement's `contentHash` is {@link hashContent}(text): when the caller did not pass it,
 * it is computed once per cached entry (so re-judging unchanged text never hashes it again); `scan` never needs it.
 */
export class ThreatScanner {
  readonly rulesetVersion: string = RULESET_VERSION;
  private readonly byText = new Map<string, CacheEntry>();
  private readonly byHash = new Map<string, CacheEntry>();
  private readonly maxEntries: number;
  private hitCount = 0;
  private missCount = 0;

  constructor(options: ThreatScannerOptions = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? 50_000);
  }

  /** Findings for `text` (cached). `contentHash` must be {@link hashContent}(text) when given. */
  scan(text: string, contentHash?: string): readonly ThreatFinding[] {
    return this.lookup(text, contentHash).findings;
  }

  /**
   * Verdict for `text`. `reviewed` says a person marked this content (hash + ruleset version) as not a
   * threat; it only matters when there are findings.
   */
  judge(text: string, reviewed = false, contentHash?: string): ThreatJudgement {
    const entry = this.lookup(text, contentHash);
    const findings = entry.findings;
    const isReviewed = reviewed && findings.length > 0;
    const hash = contentHash ?? (entry.hash ??= hashContent(text));
    return { contentHash: hash, rulesetVersion: this.rulesetVersion, findings, reviewed: isReviewed, flagged: findings.length > 0 && !isReviewed };
  }

  /**
   * Holds a verdict judged earlier (a persisted verdict store, `PersistedScan`): `findings` for the text whose sha256 is
   * `contentHash`, under this rule set. A later `scan` of that text with its hash answers it without scanning.
   */
  seed(contentHash: string, findings: readonly ThreatFinding[]): void {
    if (!this.byHash.has(contentHash)) this.byHash.set(contentHash, { version: this.rulesetVersion, findings: Object.freeze([...findings]), hash: contentHash });
  }

  /** Drops every cached verdict. */
  clear(): void {
    this.byText.clear();
    this.byHash.clear();
  }

  get stats(): { size: number; hits: number; misses: number } {
    return { size: this.byText.size + this.byHash.size, hits: this.hitCount, misses: this.missCount };
  }

  private lookup(text: string, contentHash: string | undefined): CacheEntry {
    const byText = text.length <= TEXT_KEY_MAX;
    const map = byText ? this.byText : this.byHash;
    const key = byText ? text : (contentHash ?? hashContent(text));
    const hit = map.get(key);
    if (hit !== undefined && hit.version === this.rulesetVersion) {
      this.hitCount++;
      if (contentHash !== undefined) hit.hash ??= contentHash;
      return hit;
    }
    if (byText && contentHash !== undefined && this.byHash.size > 0) {
      // a verdict seeded by hash (a persisted store) for a short text
      const seeded = this.byHash.get(contentHash);
      if (seeded !== undefined && seeded.version === this.rulesetVersion) {
        this.hitCount++;
        return seeded;
      }
    }
    this.missCount++;
    const entry: CacheEntry = { version: this.rulesetVersion, findings: scanFrozen(text), hash: byText ? contentHash : key };
    if (this.byText.size + this.byHash.size >= this.maxEntries) {
      const from = map.size > 0 ? map : byText ? this.byHash : this.byText;
      const oldest = from.keys().next();
      if (!oldest.done) from.delete(oldest.value);
    }
    map.set(key, entry);
    return entry;
  }
}
