/**
 * Owns memory's derived indexes over the loaded entries: the trigram index (recall candidates) and the word index
 * (near-duplicates), built on first use; per store, lower-cased title → ids (supersede), built on first use and kept
 * in step by our writes; and each revision's grams. memoryState.ts tells them what loaded, changed and left.
 */
import { compareEntries, type StoredEntry } from './memoryEntry';
import { searchKey, type ScopeState } from './memoryScopes';
import { TokenIndex, trigrams, wordSet } from './similarity';

function addTitle(index: Map<string, Set<string>>, e: StoredEntry): void {
  const key = e.title.toLowerCase();
  let ids = index.get(key);
  if (!ids) index.set(key, (ids = new Set()));
  ids.add(e.id);
}

function removeTitle(index: Map<string, Set<string>>, e: StoredEntry): void {
  const key = e.title.toLowerCase();
  const ids = index.get(key);
  if (!ids) return;
  ids.delete(e.id);
  if (ids.size === 0) index.delete(key);
}

export class EntryIndexes {
  /** Trigrams of title, body and tags: recall candidates. */
  private readonly searchIndex = new TokenIndex();
  /** Words of title and body: near-duplicates (supersede). */
  private readonly wordsIndexInner = new TokenIndex();
  /** Whether the two token indexes hold every loaded entry: built on first use (recall, supersede), not on load. */
  private searchBuilt = false;
  /** Per store, lower-cased title → ids: built on first use (supersede), kept in step by our writes, dropped when a file changed. */
  private readonly titleIndexes = new WeakMap<ScopeState, Map<string, Set<string>>>();
  private readonly grams = new Map<string, { trigrams: Uint32Array; words: Uint32Array }>();

  /** `stores`: every store as loaded now (what the token indexes are built from on first use). */
  constructor(private readonly stores: () => readonly ScopeState[]) {}

  /** Trigrams of title, body and tags: recall candidates (built on first use). */
  get search(): TokenIndex {
    this.ensureSearch();
    return this.searchIndex;
  }

  /** Words of title and body: near-duplicates (built on first use). */
  get wordsIndex(): TokenIndex {
    this.ensureSearch();
    return this.wordsIndexInner;
  }

  private ensureSearch(): void {
    if (this.searchBuilt) return;
    this.searchBuilt = true;
    for (const s of this.stores()) for (const e of s.byId.values()) this.index(s, e);
  }

  /** The entries of `s` whose title is `title` (case aside), in store order: a map lookup, not a pass over the store. */
  sameTitle(s: ScopeState, title: string): StoredEntry[] {
    let index = this.titleIndexes.get(s);
    if (!index) {
      index = new Map();
      for (const e of s.byId.values()) addTitle(index, e);
      this.titleIndexes.set(s, index);
    }
    const lower = title.toLowerCase();
    const out: StoredEntry[] = [];
    for (const id of index.get(lower) ?? []) {
      const e = s.byId.get(id);
      if (e && e.title.toLowerCase() === lower) out.push(e);
    }
    return out.sort(compareEntries);
  }

  gramsOf(e: StoredEntry): { trigrams: Uint32Array; words: Uint32Array } {
    let g = this.grams.get(e.revision);
    if (!g) {
      g = { trigrams: trigrams(`${e.title} ${e.body} ${e.tags.join(' ')}`), words: wordSet(`${e.title} ${e.body}`) };
      this.grams.set(e.revision, g);
    }
    return g;
  }

  /** `e` is in `s` now, in place of `old`: indexed when the token indexes are built and its revision is new. */
  put(s: ScopeState, e: StoredEntry, old: StoredEntry | undefined): void {
    if (this.searchBuilt && old !== e && (!old || old.revision !== e.revision)) this.index(s, e);
  }

  /** `e` left `s`: out of the token indexes (when built). */
  remove(s: ScopeState, e: StoredEntry): void {
    if (this.searchBuilt) this.unindex(s, e);
  }

  /** No entry has this revision any more: its grams go. */
  dropGrams(revision: string): void {
    this.grams.delete(revision);
  }

  /** `s` was read anew: its title index is built again on next use. */
  dropTitles(s: ScopeState): void {
    this.titleIndexes.delete(s);
  }

  /** Our write replaced `old` by `next` in `s` (no `next`: removed it): the title index, when built, follows. */
  retitle(s: ScopeState, old: StoredEntry | undefined, next: StoredEntry | undefined): void {
    const titles = this.titleIndexes.get(s);
    if (!titles) return;
    if (old) removeTitle(titles, old);
    if (next) addTitle(titles, next);
  }

  private index(s: ScopeState, e: StoredEntry): void {
    const g = this.gramsOf(e);
    this.searchIndex.set(searchKey(s, e.id), g.trigrams);
    this.wordsIndexInner.set(searchKey(s, e.id), g.words);
  }

  private unindex(s: ScopeState, e: StoredEntry): void {
    this.searchIndex.remove(searchKey(s, e.id));
    this.wordsIndexInner.remove(searchKey(s, e.id));
  }
}
