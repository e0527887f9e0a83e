/**
 * Cheap text similarity for memory, on sets of 32-bit token hashes: WORDS for "is this a near-duplicate?"
 * (Jaccard over the word sets — selective, so candidate lists stay short), character TRIGRAMS for "which
 * entries could match this query?" (tolerates typos). An inverted index answers both without looking at
 * every entry.
 *
 * Near-duplicates use prefix filtering: if Jaccard(A, B) ≥ t then |A ∩ B| ≥ ⌈t·|A|⌉, so B must contain at
 * least one of ANY |A| − ⌈t·|A|⌉ + 1 trigrams of A — we take A's rarest ones, whose posting lists are short,
 * and verify each candidate exactly. Pure, no I/O.
 */

/** Lower-cased, NFKC, words of letters and digits. */
export function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function hash3(a: number, b: number, c: number): number {
  let h = 0x811c9dc5;
  h = Math.imul(h ^ a, 0x01000193);
  h = Math.imul(h ^ b, 0x01000193);
  h = Math.imul(h ^ c, 0x01000193);
  return h >>> 0;
}

function hashWord(w: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Sorted, unique hashes of the words of `text`. */
export function wordSet(text: string): Uint32Array {
  return Uint32Array.from(new Set(words(text).map(hashWord))).sort();
}

/** Sorted, unique trigram hashes of the words of `text` (each word padded with a space on both sides). */
export function trigrams(text: string): Uint32Array {
  const set = new Set<number>();
  for (const w of words(text)) {
    const s = ` ${w} `;
    for (let i = 0; i + 2 < s.length; i++) set.add(hash3(s.charCodeAt(i), s.charCodeAt(i + 1), s.charCodeAt(i + 2)));
  }
  return Uint32Array.from(set).sort();
}

/** |A ∩ B| of two sorted unique arrays. */
export function intersectionSize(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}

export function jaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  const inter = intersectionSize(a, b);
  return inter / (a.length + b.length - inter);
}

/** An inverted index from token (word or trigram hash) to documents, keyed by a string id. Updates are O(tokens). */
export class TokenIndex {
  private docs: (Uint32Array | null)[] = [];
  private ids: string[] = [];
  private readonly byId = new Map<string, number>();
  private postings = new Map<number, number[]>();
  private dead = 0;

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Adds or replaces `id`'s trigrams. */
  set(id: string, grams: Uint32Array): void {
    this.remove(id);
    const doc = this.docs.length;
    this.docs.push(grams);
    this.ids.push(id);
    this.byId.set(id, doc);
    for (const g of grams) {
      const list = this.postings.get(g);
      if (list) list.push(doc);
      else this.postings.set(g, [doc]);
    }
  }

  remove(id: string): void {
    const doc = this.byId.get(id);
    if (doc === undefined) return;
    this.byId.delete(id);
    this.docs[doc] = null;
    this.dead++;
    // Postings are cleaned lazily; compact when a quarter is dead.
    if (this.dead > 64 && this.dead * 4 > this.docs.length) this.compact();
  }

  clear(): void {
    this.docs = [];
    this.ids = [];
    this.byId.clear();
    this.postings = new Map();
    this.dead = 0;
  }

  private compact(): void {
    const live = [...this.byId.entries()].map(([id, doc]) => [id, this.docs[doc]!] as const);
    this.clear();
    for (const [id, grams] of live) this.set(id, grams);
  }

  /**
   * Ids whose Jaccard similarity with `grams` is at least `threshold`, best first, among those `accept`
   * lets through.
   */
  nearDuplicates(grams: Uint32Array, threshold: number, accept: (id: string) => boolean): { id: string; similarity: number }[] {
    if (grams.length === 0) return [];
    const need = Math.max(1, Math.ceil(threshold * grams.length));
    const prefix = Math.min(grams.length, grams.length - need + 1);
    const byRarity = [...grams].sort((x, y) => (this.postings.get(x)?.length ?? 0) - (this.postings.get(y)?.length ?? 0));
    const seen = new Set<number>();
    const out: { id: string; similarity: number }[] = [];
    for (let k = 0; k < prefix; k++) {
      for (const doc of this.postings.get(byRarity[k]!) ?? []) {
        if (seen.has(doc)) continue;
        seen.add(doc);
        const other = this.docs[doc];
        if (!other) continue;
        // Size filter: Jaccard ≥ t needs t·|A| ≤ |B| ≤ |A|/t.
        if (other.length < threshold * grams.length || (threshold > 0 && other.length > grams.length / threshold)) continue;
        const id = this.ids[doc]!;
        if (!accept(id)) continue;
        const similarity = jaccard(grams, other);
        if (similarity >= threshold) out.push({ id, similarity });
      }
    }
    return out.sort((a, b) => b.similarity - a.similarity);
  }

  /**
   * The `k` accepted ids sharing the most trigrams with `grams` (a query), for a finer scorer to rank.
   * Ids sharing fewer than `minShared` are left out.
   */
  topCandidates(grams: Uint32Array, k: number, accept: (id: string) => boolean, minShared = 1): string[] {
    const counts = new Map<number, number>();
    for (const g of grams) {
      for (const doc of this.postings.get(g) ?? []) counts.set(doc, (counts.get(doc) ?? 0) + 1);
    }
    const scored: { doc: number; score: number }[] = [];
    for (const [doc, shared] of counts) {
      if (shared < minShared || !this.docs[doc]) continue;
      // Share of the query covered, with a small preference for shorter documents.
      scored.push({ doc, score: shared / grams.length - this.docs[doc].length * 1e-6 });
    }
    scored.sort((a, b) => b.score - a.score);
    const out: string[] = [];
    for (const { doc } of scored) {
      if (out.length >= k) break;
      const id = this.ids[doc]!;
      if (accept(id)) out.push(id);
    }
    return out;
  }
}
