/**
 * Owns memory's judgement cache: each revision's findings (for this process's rule set), and their persistence across
 * restarts in a VerdictStore (keyed by revision and RULESET_VERSION), loaded once before the first judgement and saved
 * when something new was judged. visibility.ts judges; memoryState.ts loads, clears and saves.
 */
import type { MemoryFinding } from '../../../shared/memorySchemas';
import type { VerdictStore } from '../threat/verdictStore';
import type { StoredEntry } from './memoryEntry';
import type { ScopeState } from './memoryScopes';

export class MemoryVerdicts {
  private loaded: Promise<void> | null = null;
  /** A verdict was computed since the last save. */
  private dirty = false;
  /** Findings by revision. */
  readonly judged = new Map<string, MemoryFinding[]>();
  /** Findings by entry object; replaced on `clear`, so its identity says "judged again since" (recall's memo compares it). */
  judgedByEntry = new WeakMap<StoredEntry, MemoryFinding[]>();

  /** `store`: where verdicts persist (null: every start judges again). */
  constructor(private readonly store: VerdictStore<MemoryFinding> | null) {}

  /** `e` was judged now: `findings`. */
  record(e: StoredEntry, findings: MemoryFinding[]): void {
    this.judged.set(e.revision, findings);
    this.judgedByEntry.set(e, findings);
    this.dirty = true;
  }

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
    this.judgedByEntry = new WeakMap();
  }

  /** Saves the verdicts of the entries loaded now in `stores`, when something new was judged. */
  async save(stores: readonly ScopeState[]): Promise<void> {
    if (!this.store || !this.dirty) return;
    this.dirty = false;
    const out: [string, MemoryFinding[]][] = [];
    for (const s of stores) {
      for (const e of s.byId.values()) {
        const v = this.judged.get(e.revision);
        if (v) out.push([e.revision, v]);
      }
    }
    await this.store.save(out);
  }
}
