/**
 * The delivered signature: what a session carries, as one string. It covers the block's format version and,
 * for every pinned item and every memory-index entry, its identity and content revision (a content hash,
 * never a title or an mtime) and whether it was withheld or unavailable. Editing a pinned note changes it;
 * renaming changes it (the id changes); saving unchanged does not; pinning or unpinning changes it.
 */
import { createHash } from 'node:crypto';

/** Bump when the block's wording or layout changes, so every session receives the new form once. */
export const BLOCK_FORMAT_VERSION = 1;

export interface SignatureItem {
  id: string;
  /** Content hash, or a state for items without usable content. */
  revision: string;
  state: 'ok' | 'withheld' | 'unavailable';
}

export function computeSignature(pins: readonly SignatureItem[], memory: readonly SignatureItem[] | null): string {
  const h = createHash('sha256');
  h.update(`format:${BLOCK_FORMAT_VERSION}\n`);
  for (const p of pins) h.update(`pin\0${p.id}\0${p.revision}\0${p.state}\n`);
  if (memory) {
    h.update('memory\n');
    for (const m of memory) h.update(`mem\0${m.id}\0${m.revision}\0${m.state}\n`);
  }
  return `v${BLOCK_FORMAT_VERSION}:${h.digest('hex').slice(0, 32)}`;
}
