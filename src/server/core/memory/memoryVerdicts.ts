/**
 * Owns memory's judgement cache: each revision's findings (for this process's rule set) as `judge()` found them in
 * the entry's title, body and tags, and their persistence across restarts in the one persisted verdict store
 * (`threat/verdictStore.ts`, keyed by revision and RULESET_VERSION), loaded once before the first judgement and saved
 * when something new was judged. visibility.ts judges (through `judge()`); memoryState.ts loads, clears and saves.
 */
import type { ScanFn } from '../delivery/knowledgeBlock';
import type { ThreatFinding } from '../threat/threatFinding';
import type { VerdictStore } from '../threat/verdictStore';
import type { ScopeState } from './memoryScopes';

export class MemoryVerdicts {
  private loaded: Promise<void> | null = null;
  /** A verdict was computed since the last save. */
  private dirty = false;
  /** Findings by revision (in the text `judge()` read: title, body and tags). */
  readonly judged = new Map<string, readonly ThreatFinding[]>();
  /** Replaced on `clear`: its identity says "judged again since" (recall's memo compares it). */
  judgedSince: object = {};

  /** `store`: where verdicts persist (null: every start judges again); `scanText`: the scan of a text not judged yet. */
  constructor(
    private readonly store: VerdictStore | null,
    private readonly scanText: (text: string) => readonly ThreatFinding[],
  ) {}

  /** A revision's findings when judged before (in this process or a saved one). */
  readonly known = (revision: string): readonly ThreatFinding[] | undefined => this.judged.get(revision);

  /**
   * The scan `judge()` runs for an entry (its subject's revision is the entry's): the revision's findings when judged
   * before (in this process or a saved one), else the text's, remembered.
   */
  readonly scan: ScanFn = (text, revision) => {
    let found = revision === undefined ? undefined : this.judged.get(revision);
    if (found) return found;
    found = this.scanText(text);
    if (revision !== undefined) {
      this.judged.set(revision, found);
      this.dirty = true;
    }
    return found;
  };

  /** Loads the persisted verdicts once (before the first judgement), so a restart with nothing changed judges nothing. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      if (!this.store) return;
      const stored = await this.store.load();
      for (const [revision, findings] of stored) if (!this.judged.has(revision)) this.judged.set(revision, findings);
    })();
    return this.loaded;
  }

  /** Every entry is judged again (a file changed on disk): the next save writes what is judged then. */
  clear(): void {
    this.judged.clear();
    this.dirty = true;
    this.judgedSince = {};
  }

  /** Saves the verdicts of the entries loaded now in `stores`, when something new was judged. */
  async save(stores: readonly ScopeState[]): Promise<void> {
    if (!this.store || !this.dirty) return;
    this.dirty = false;
    const out: [string, readonly ThreatFinding[]][] = [];
    for (const s of stores) {
      for (const e of s.byId.values()) {
        const v = this.judged.get(e.revision);
        if (v) out.push([e.revision, v]);
      }
    }
    await this.store.save(out);
  }
}
