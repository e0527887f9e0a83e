/** Keys of the sessions index kept in one order (last activity, creation): what pruning and the panel's pages walk. */
import type { IndexEntry } from './sessionIndexRows';

export type Rank = number | string;
const cmp = (a: Rank, b: Rank): number => (a < b ? -1 : a > b ? 1 : 0);
export const cmpPair = (ar: Rank, ak: string, br: Rank, bk: string): number => cmp(ar, br) || cmp(ak, bk);

/**
 * Keys ordered ascending by (rank, key): a sorted array, plus the keys changed since it was sorted (checked one by
 * one); re-sorted when those grow past an eighth of it. A sorted element whose key changed since is skipped.
 */
export class OrderedKeys {
  private sorted: { r: Rank; k: string }[] = [];
  private readonly changed = new Set<string>();

  constructor(
    private readonly entries: Map<string, IndexEntry>,
    private readonly rankOf: (e: IndexEntry) => Rank,
  ) {}

  reset(): void {
    this.sorted = [...this.entries.values()].map((e) => ({ r: this.rankOf(e), k: e.key }));
    this.sorted.sort((a, b) => cmpPair(a.r, a.k, b.r, b.k));
    this.changed.clear();
  }

  touch(key: string): void {
    this.changed.add(key);
    if (this.changed.size > Math.max(1024, this.sorted.length / 8)) this.reset();
  }

  private valid(x: { r: Rank; k: string }): boolean {
    if (this.changed.has(x.k)) return false;
    const e = this.entries.get(x.k);
    return e !== undefined && this.rankOf(e) === x.r;
  }

  private changedEntries(): { r: Rank; k: string }[] {
    const out: { r: Rank; k: string }[] = [];
    for (const k of this.changed) {
      const e = this.entries.get(k);
      if (e) out.push({ r: this.rankOf(e), k });
    }
    return out;
  }

  /** Every key whose rank is below `limit`. */
  below(limit: Rank): string[] {
    const out: string[] = [];
    for (const x of this.sorted) {
      if (!(x.r < limit)) break;
      if (this.valid(x)) out.push(x.k);
    }
    for (const x of this.changedEntries()) if (x.r < limit) out.push(x.k);
    return out;
  }

  /** Up to `limit` keys in descending order, strictly after `after` (in that order) when given. */
  descending(limit: number, after?: { r: Rank; k: string }): string[] {
    // The first sorted position at or past `after` (ascending): everything before it comes after `after` descending.
    let hi = this.sorted.length;
    if (after) {
      let lo = 0;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const m = this.sorted[mid]!;
        if (cmpPair(m.r, m.k, after.r, after.k) < 0) lo = mid + 1;
        else hi = mid;
      }
    }
    const extra = this.changedEntries()
      .filter((x) => !after || cmpPair(x.r, x.k, after.r, after.k) < 0)
      .sort((a, b) => cmpPair(b.r, b.k, a.r, a.k));
    const out: string[] = [];
    let i = hi - 1;
    let j = 0;
    while (out.length < limit && (i >= 0 || j < extra.length)) {
      const s = i >= 0 ? this.sorted[i]! : undefined;
      const x = extra[j];
      if (s && (!x || cmpPair(s.r, s.k, x.r, x.k) > 0)) {
        i -= 1;
        if (this.valid(s)) out.push(s.k);
      } else if (x) {
        j += 1;
        out.push(x.k);
      }
    }
    return out;
  }
}
