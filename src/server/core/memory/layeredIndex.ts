/**
 * The memory part of a session's block: one line per entry (type, title, id, marks — never a body), in
 * strict priority so that a tight budget cuts the least important lines:
 *
 *   1. approved, active decisions;
 *   2. core facts (approved facts of high importance, or tagged `core`);
 *   3. approved high-importance lessons and preferences, then this session's own pending entries;
 *   4. this session's focus (its session-scope entries);
 *   5. every other approved entry of high or medium importance (facts, lessons, preferences, references …);
 *   6. every other approved entry of low importance.
 *
 * Importance orders the layers; it never excludes an entry: every approved entry a model may see is eligible,
 * and what does not fit the budget is cut loudly by the block compiler (a count and a pointer to recall).
 *
 * Input is what the model may see for this session (the service filters flagged, aged, legacy, wrong,
 * superseded and other sessions' pending entries first); within a layer, the stable store order.
 */
import type { MemoryIndexEntry } from '../delivery/knowledgeBlock';
import type { StoredEntry } from './memoryEntry';

export const LOW_CONFIDENCE = 0.5;

/** Which layer (1–6) an entry belongs to for `sessionKey`, or 0 when it is not indexed (not trusted for it). */
export function layerOf(e: StoredEntry, sessionKey: string | undefined): 0 | 1 | 2 | 3 | 4 | 5 | 6 {
  if (e.scope === 'session') return sessionKey !== undefined && e.sessionKey === sessionKey ? 4 : 0;
  const approved = e.trust.state === 'approved';
  if (approved && e.type === 'decision' && (e.status ?? 'active') === 'active') return 1;
  if (approved && e.type === 'fact' && (e.importance === 'high' || e.tags.includes('core'))) return 2;
  if (approved && (e.type === 'lesson' || e.type === 'preference') && e.importance === 'high') return 3;
  if (e.trust.state === 'pending' && sessionKey !== undefined && e.provenance.sessionKey === sessionKey) return 3;
  if (approved) return e.importance === 'low' ? 6 : 5;
  return 0;
}

/** One line of the index: `[type] title (id …)` plus marks. Control characters become spaces. `folder`: a multi-root workspace's folder of a project entry. */
export function indexLine(e: StoredEntry, folder?: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach the line
  const title = e.title.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
  const marks: string[] = [];
  if (e.confidence < LOW_CONFIDENCE) marks.push('low confidence');
  if (e.trust.state === 'pending') marks.push('not yet approved');
  // eslint-disable-next-line no-control-regex -- a folder name is text too
  const where = folder !== undefined ? `, folder ${folder.replace(/[\u0000-\u001f\u007f\u2028\u2029()]+/g, ' ').trim()}` : '';
  return `[${e.type}] ${title} (id ${e.id}${where})${marks.length > 0 ? ` — ${marks.join(', ')}` : ''}`;
}

/** `visible` must come in store order (createdAt, then id); each layer keeps it. */
export function buildLayeredIndex(visible: Iterable<StoredEntry>, sessionKey: string | undefined, folderOf: (e: StoredEntry) => string | undefined = () => undefined): MemoryIndexEntry[] {
  // Layer 3 in two parts: the approved ones first, then the session's own unapproved ones.
  const layers: StoredEntry[][] = [[], [], [], [], [], [], []];
  for (const e of visible) {
    const layer = layerOf(e, sessionKey);
    if (layer === 0) continue;
    const slot = layer >= 4 ? layer : layer === 3 && e.trust.state !== 'approved' ? 3 : layer - 1;
    layers[slot]!.push(e);
  }
  const out: MemoryIndexEntry[] = [];
  for (const layer of layers) {
    for (const e of layer) out.push({ id: e.id, revision: e.revision, line: indexLine(e, folderOf(e)) });
  }
  return out;
}
