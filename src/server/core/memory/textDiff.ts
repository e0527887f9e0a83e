/**
 * Owns the word-level diff the inbox shows for an update or a conflict: what the proposal changes in the entry it
 * would supersede. Pure, no I/O. Tokens are runs of non-space and runs of space, so joining the chunks of one
 * side gives that side back exactly.
 */
import type { DiffChunk, FieldDiff } from '../../../shared/inboxSchemas';

/** Above this many cells (tokens × tokens after the common ends are trimmed) no chunks are computed. */
const MAX_CELLS = 250_000;

function tokens(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? [];
}

function push(out: DiffChunk[], op: DiffChunk['op'], text: string): void {
  if (!text) return;
  const last = out[out.length - 1];
  if (last && last.op === op) last.text += text;
  else out.push({ op, text });
}

/** Word-level chunks turning `before` into `after`; undefined when the texts are too long to diff here. */
export function wordDiff(before: string, after: string): DiffChunk[] | undefined {
  const a = tokens(before);
  const b = tokens(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if (midA.length * midB.length > MAX_CELLS) return undefined;
  const out: DiffChunk[] = [];
  push(out, 'equal', a.slice(0, head).join(''));
  // Longest common subsequence over the middle, by suffix lengths.
  const n = midA.length;
  const m = midB.length;
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] = midA[i] === midB[j] ? lcs[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && midA[i] === midB[j]) {
      push(out, 'equal', midA[i]!);
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i * (m + 1) + j + 1]! >= lcs[(i + 1) * (m + 1) + j]!)) {
      push(out, 'insert', midB[j]!);
      j++;
    } else {
      push(out, 'delete', midA[i]!);
      i++;
    }
  }
  push(out, 'equal', a.slice(a.length - tail).join(''));
  return out;
}

interface Diffable {
  title: string;
  body: string;
  tags: readonly string[];
  type: string;
  importance: string;
}

/** The fields that differ, `before` (the target) → `after` (the proposal); title and body with word chunks. */
export function fieldDiffs(before: Diffable, after: Diffable): FieldDiff[] {
  const out: FieldDiff[] = [];
  for (const field of ['title', 'body'] as const) {
    if (before[field] === after[field]) continue;
    const chunks = wordDiff(before[field], after[field]);
    out.push({ field, before: before[field], after: after[field], ...(chunks ? { chunks } : {}) });
  }
  const tagsBefore = before.tags.join(', ');
  const tagsAfter = after.tags.join(', ');
  if (tagsBefore !== tagsAfter) out.push({ field: 'tags', before: tagsBefore, after: tagsAfter });
  if (before.type !== after.type) out.push({ field: 'type', before: before.type, after: after.type });
  if (before.importance !== after.importance) out.push({ field: 'importance', before: before.importance, after: after.importance });
  return out;
}
