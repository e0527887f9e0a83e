/**
 * The delivered signature: what a session carries, as one string. It covers the block's format version and,
 * for every pinned item and every memory-index entry, its identity and content revision (a content hash,
 * never a title or an mtime) and whether it was withheld or unavailable. Editing a pinned note changes it;
 * renaming changes it (the id changes); saving unchanged does not; pinning or unpinning changes it.
 */
import { sha256Hex } from '../sha256Hex';

/** Bump when the block's wording or layout changes, so every session receives the new form once. */
export const BLOCK_FORMAT_VERSION = 1;

export interface SignatureItem {
  id: string;
  /** Content hash, or a state for items without usable content. */
  revision: string;
  state: 'ok' | 'withheld' | 'unavailable';
}

export function computeSignature(pins: readonly SignatureItem[], memory: readonly SignatureItem[] | null): string {
  // One string, hashed once: thousands of small update() calls cost more than the hashing itself.
  const parts: string[] = [`format:${BLOCK_FORMAT_VERSION}`];
  for (const p of pins) parts.push(`pin\0${p.id}\0${p.revision}\0${p.state}`);
  if (memory) {
    parts.push('memory');
    // Memory revisions are sha256 hex already; 64 bits of each is plenty inside the signature.
    for (const m of memory) parts.push(`mem\0${m.id}\0${m.revision.slice(0, 16)}\0${m.state}`);
  }
  return `v${BLOCK_FORMAT_VERSION}:${sha256Hex(parts.join('\n')).slice(0, 32)}`;
}
