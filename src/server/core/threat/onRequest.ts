// Owns which of the decoders asked for (decoders.ts ON_REQUEST) and the length-keeping transforms a text may need,
// read off what the fused keyword pass left of an ASCII text: its feature hashes (model/features.ts) and whether a
// word may start a base32 run.
/**
 * Each answer is a necessary condition, never a guess: a decoder left out could not have found a run. The words are
 * matched by their feature hash, so a feature that is not the word but has its hash only counts one more (the decoder
 * then runs and finds nothing); a word of the lists is always counted.
 * Pure module: no `vscode`, no language-server imports.
 */
import type { FusedFeatures } from './keywords';
import { CHAR_CODE_WORDS, CHARCODES_MIN, mayHoldTransformed, onRequestEncodings, transformWords, TW_REV, TW_REV_ONLY, TW_ROT, TW_ROT_ONLY, type Encoding } from './decoders';
import { featureBuffer, featureGeneration, lastSegments, wordFeatureHash } from './model/features';

/** A character code a character-code list may hold (decoders.ts CHAR_CODE_WORDS), as a word. */
const TW_CODE = 16;

/** The listed words (the transforms' lists and the codes 32–126) by feature hash, one slot per word. */
const TABLE = ((): { keys: Int32Array; bits: Uint8Array; shift: number } => {
  const words = new Map(transformWords());
  for (const w of CHAR_CODE_WORDS) words.set(w, (words.get(w) ?? 0) | TW_CODE);
  const entries = [...words].map(([w, bits]) => ({ hash: wordFeatureHash(w), bits }));
  for (let size = 1024; size <= 1 << 16; size *= 2) {
    for (let shift = 0; shift <= 32 - Math.log2(size); shift++) {
      const slot = (h: number): number => (h >>> shift) & (size - 1);
      if (new Set(entries.map((e) => slot(e.hash))).size !== entries.length) continue;
      const keys = new Int32Array(size); // (an empty slot's bits are 0: a feature with its hash adds nothing)
      const bits = new Uint8Array(size);
      for (const e of entries) {
        keys[slot(e.hash)] = e.hash;
        bits[slot(e.hash)] = e.bits;
      }
      return { keys, bits, shift };
    }
  }
  throw new Error('onRequest: no slot table for the listed words');
})();

/** What a text may need: the on-request decoders (in ON_REQUEST's order) and whether transformedViews may find a clause. */
export interface OnRequestNeeds {
  readonly encodings: readonly Encoding[];
  readonly transformed: boolean;
}

const EVERYTHING = (view: string): OnRequestNeeds => ({ encodings: onRequestEncodings(true, view.includes('&#'), true), transformed: true });

/**
 * What `view` may need. `fused`: the fused keyword pass over `view` (prefilter.ts scanKeywordsAndFeatures). Where it
 * computed the features and the feature buffer still holds them (the model's intent of a flagged sentence computes
 * others), they say; else everything but the character references `view` has no `&#` for.
 */
export function onRequestNeeds(view: string, fused: Pick<FusedFeatures, 'featuresDone' | 'hasBase32Word' | 'generation'> | null): OnRequestNeeds {
  if (fused === null || !fused.featuresDone || fused.generation !== featureGeneration()) return EVERYTHING(view);
  const seg = lastSegments();
  const n = seg.count === 0 ? 0 : seg.featEnd[seg.count - 1]!;
  const buf = featureBuffer();
  const { keys, bits, shift } = TABLE;
  const mask = keys.length - 1;
  let rot = 0;
  let rotOnly = 0;
  let rev = 0;
  let revOnly = 0;
  let codes = 0;
  for (let k = 0; k < n; k++) {
    const h = buf[k]!;
    const j = (h >>> shift) & mask;
    if (keys[j] !== h) continue;
    const b = bits[j]!;
    rot += b & TW_ROT ? 1 : 0;
    rotOnly += b & TW_ROT_ONLY ? 1 : 0;
    rev += b & TW_REV ? 1 : 0;
    revOnly += b & TW_REV_ONLY ? 1 : 0;
    codes += b & TW_CODE ? 1 : 0;
  }
  return { encodings: onRequestEncodings(fused.hasBase32Word, view.includes('&#'), codes >= CHARCODES_MIN), transformed: mayHoldTransformed(rot, rotOnly, rev, revOnly) };
}
