// How the inbox names what waits by where it came from — distillation, an agent, an import, sync (memorySource.ts) —
// in a group's heading and on each card, instead of calling every entry that is not a proposal an "agent entry".
import type { InboxCounts } from '../../src/shared/inboxSchemas';
import type { InboxItemRow } from '../../src/shared/panelProtocol';
import { SOURCE_TEXT, memorySource, type MemorySource } from '../../src/shared/memorySource';

const ORDER = ['distillation', 'agent', 'import', 'sync'] as const;

/** "2 from distillation, 1 from an import, 1 flagged": a group's (or the inbox's) counts by source. */
export function countsBySource(c: InboxCounts): string[] {
  const parts = [c.fromRepository ? `${c.fromRepository} from the repository` : ''];
  if (c.bySource) {
    for (const source of ORDER) {
      const n = c.bySource[source] ?? 0;
      if (n > 0) parts.push(`${n} ${SOURCE_TEXT[source]}`);
    }
  } else {
    // An older server: no breakdown, only proposals and the rest.
    const rest = c.agentEntries - (c.fromRepository ?? 0);
    parts.push(c.proposals > 0 ? `${c.proposals} ${SOURCE_TEXT.distillation}` : '', rest > 0 ? `${rest} ${SOURCE_TEXT.agent}` : '');
  }
  if (c.flagged > 0) parts.push(`${c.flagged} flagged`);
  return parts.filter(Boolean);
}

/** The source of one inbox item (a repository item is named apart, by its origin). */
export function itemSource(row: InboxItemRow): MemorySource {
  return memorySource(row.entry);
}
