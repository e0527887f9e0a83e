/**
 * Owns moving a scope in and out (the formats themselves live in exchange.ts): export as JSON or as the
 * Markdown agents read, and import that stamps provenance, starts pending, skips secrets and duplicates.
 */
import type { ImportResult, MemoryScope } from '../../../shared/memorySchemas';
import { currentUser } from '../review/reviewStore';
import { approvedForMe } from './approvals';
import { MemoryError } from './errors';
import { exportJson, exportMarkdown, parseJsonImport, parseMarkdownImport, type ImportCandidate } from './exchange';
import { capCheck, superseded, supersedeTargets } from './lifecycle';
import { computeRevision, type StoredEntry } from './memoryEntry';
import type { MemoryState } from './memoryState';
import { isActive, newId } from './memoryScopes';
import { findSecret } from './secrets';
import { isAged, judge, toView } from './visibility';

/** Exports one file of `scope`: project memory of the folder named `folder` (default the first). */
export async function exportScope(st: MemoryState, scope: MemoryScope, format: 'json' | 'markdown', folder?: string): Promise<string> {
  const s = st.target(scope, folder);
  if (!st.config.on) return format === 'json' ? '[]\n' : '';
  await st.refresh();
  if (!s.loaded) throw new MemoryError('scope-unavailable', s.error ?? `The ${scope} memory is not loaded.`);
  if (format === 'json') return exportJson(s.entries);
  // Markdown is what agents read: only what any session may see (approved, unflagged, active, unaged).
  const now = st.now().getTime();
  const shareable = s.entries.filter((e) => approvedForMe(st, e) && isActive(e) && e.wrongFlags.length === 0 && !isAged(st, e, now) && !judge(st, e).flagged);
  return exportMarkdown(shareable, scope, s.entries.length - shareable.length, st.now());
}

/**
 * Imports entries (JSON as exported, or Markdown as agents read it). Each gets provenance `import`,
 * starts pending and is scanned; obvious secrets and exact duplicates are skipped (listed). Malformed
 * input, or more than the scope can hold, imports nothing.
 */
export async function importScope(st: MemoryState, scope: MemoryScope, format: 'json' | 'markdown', text: string, opts: { identity?: string; folder?: string }): Promise<ImportResult> {
  st.assertWritable();
  if (scope === 'session') throw new MemoryError('invalid', 'Import into the project or personal memory; session memory belongs to one chat session.');
  const store = st.target(scope, opts.folder);
  const candidates: ImportCandidate[] = format === 'json' ? parseJsonImport(text) : parseMarkdownImport(text);
  const at = st.now().toISOString();
  const identity = opts.identity ?? currentUser();
  const skipped: string[] = [];
  const fresh: StoredEntry[] = [];
  for (const c of candidates) {
    const secret = [c.title, c.body, c.tags.join(' ')].map(findSecret).find(Boolean);
    if (secret) {
      skipped.push(`"${c.title}": looks like ${secret.kind}; secrets are never remembered`);
      continue;
    }
    fresh.push({
      id: newId(),
      scope,
      type: c.type,
      ...(c.type === 'decision' ? { status: 'active' as const } : {}),
      title: c.title,
      body: c.body,
      tags: c.tags,
      importance: c.importance,
      confidence: c.confidence,
      provenance: { sourceKind: 'import', identity, at },
      trust: { state: 'pending' },
      revision: computeRevision(c),
      createdAt: at,
      updatedAt: at,
      ...(c.expiresAt ? { expiresAt: c.expiresAt } : {}),
      wrongFlags: [],
    });
  }
  const added = await st.mutate(store, (entries) => {
    const present = new Set(entries.filter(isActive).map((e) => e.revision));
    const keep: StoredEntry[] = [];
    for (const e of fresh) {
      if (present.has(e.revision)) {
        skipped.push(`"${e.title}": already in the ${scope} memory`);
        continue;
      }
      present.add(e.revision);
      keep.push(e);
    }
    // Restatements supersede like any other write (visible to others only once approved).
    const superseding = new Map<string, StoredEntry>();
    const byId = new Map(entries.map((e) => [e.id, e]));
    for (const e of keep) {
      for (const t of supersedeTargets(st, e, entries)) {
        if (!superseding.has(t.id)) superseding.set(t.id, superseded(byId.get(t.id) ?? t, e.id, at));
      }
    }
    capCheck(st, scope, entries, undefined, keep.length, superseding.size);
    return { result: keep, upserts: [...keep, ...superseding.values()] };
  });
  const now = st.now().getTime();
  return { imported: added.length, flagged: added.filter((e) => toView(st, e, now).flagged).length, skipped };
}
