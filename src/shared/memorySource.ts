/**
 * Where a memory entry came from, named for people by its source: `distillation` (proposed from a chat session),
 * `agent` (an agent's memory tool), `import` (Import Memory…), `sync` (Settings Sync brought it from another machine),
 * `you` (a person wrote it: Remember…, an edit), `legacy` (an entry older than provenance). Read from the entry's
 * provenance (`distilledFrom`, `sourceKind`, and the identity synced entries are stamped with). Pure: the server and
 * the webview both use it.
 */
import type { MemoryEntryView } from './memorySchemas';

/** The identity that Settings Sync stamps on the entries it brings (src/server/core/memory/personalSync.ts). */
export const SYNC_IDENTITY = 'settings-sync';

export type MemorySource = 'distillation' | 'agent' | 'import' | 'sync' | 'you' | 'legacy';

type SourceFields = { provenance: Pick<MemoryEntryView['provenance'], 'sourceKind' | 'identity'> & { distilledFrom?: unknown }; proposal?: unknown };

export function memorySource(e: SourceFields): MemorySource {
  if (e.provenance.distilledFrom || e.proposal) return 'distillation';
  switch (e.provenance.sourceKind) {
    case 'import':
      return e.provenance.identity === SYNC_IDENTITY ? 'sync' : 'import';
    case 'agent':
      return 'agent';
    case 'human':
      return 'you';
    default:
      return 'legacy';
  }
}

/** "from distillation", "from an agent", …: how a card's line and a group's counts name a source. */
export const SOURCE_TEXT: Record<MemorySource, string> = {
  distillation: 'from distillation',
  agent: 'from an agent',
  import: 'from an import',
  sync: 'from sync',
  you: 'written by a person',
  legacy: 'from an older version',
};
