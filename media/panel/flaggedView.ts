// The flagged section: notes and plans withheld from the agent, each with its warning, actions and inline
// confirmation, and the flagged memory entries.
import type { FlaggedItemView, PanelState } from '../../src/shared/panelProtocol';
import { badge, button, h, icon, renderMemoryRows, withheldWarning } from './render';
import { section } from './section';
import { inline, rowUi } from './panelStore';

function flaggedItemCard(f: FlaggedItemView, warning: string): HTMLElement {
  const card = h('article', { class: 'entry flagged', 'data-item': f.id, 'data-revision': f.revision, 'aria-label': `Flagged ${f.kind}: ${f.title}` });
  // In a workspace of several folders the card names the folder that holds the file.
  const folder = f.folder !== undefined ? [badge(`folder: ${f.folder}`, 'folder')] : [];
  card.append(h('div', { class: 'entry-head' }, icon(f.kind === 'plan' ? 'checklist' : 'note'), h('span', { class: 'entry-title' }, f.title), badge(f.kind, 'type'), ...folder, h('span', { class: 'muted' }, f.id)));
  card.append(withheldWarning(warning, f.rules, f.spans));
  if (f.repositoryReviewedBy !== undefined) card.append(h('p', { class: 'muted hint' }, icon('info'), ` Reviewed by ${f.repositoryReviewedBy} in the repository — not accepted by you.`));
  const part = inline.get(`item:${f.id}`);
  const actions = h('div', { class: 'actions', role: 'group', 'aria-label': `Actions on ${f.title}` });
  actions.append(
    button('Edit', { icon: 'go-to-file', secondary: true, action: 'item-open', label: `Edit ${f.title} (opens the file)` }),
    ...(f.repositoryReviewedBy !== undefined ? [button("Accept the repository's review", { icon: 'pass', secondary: true, action: 'item-accept-review', label: `Accept ${f.repositoryReviewedBy}'s review of ${f.title} from the repository` })] : []),
    button('Remove the flagged lines…', { icon: 'trash', secondary: true, action: 'item-remove-lines', label: `Remove the flagged lines of ${f.title} (shows them first)` }),
    button('Mark reviewed…', { icon: 'pass', secondary: true, action: 'item-reviewed', label: `Mark ${f.title} reviewed — not a threat, one finding at a time (shows the text it lets through)` }),
    button('Forget', { icon: 'trash', secondary: true, action: 'item-forget', label: `Forget ${f.title} (delete the file)` }),
  );
  card.append(actions);
  if (part && part.kind === 'forget') {
    card.append(h('div', { class: 'inline confirm', role: 'alertdialog', 'aria-label': `Delete ${f.title}?` }, h('p', {}, `Delete ${f.id} from disk? This cannot be undone from the panel.`), h('div', { class: 'actions' }, button('Delete file', { icon: 'trash', action: 'item-forget-confirm', label: `Confirm: delete ${f.id}` }), button('Cancel', { secondary: true, action: 'inline-cancel' }))));
  }
  return card;
}

export function flaggedSection(s: PanelState): HTMLElement {
  const flaggedCount = s.flaggedItems.length + s.memory.flaggedTotal;
  const flaggedBody = h('div', { class: 'flagged-list' });
  if (flaggedCount === 0) flaggedBody.append(h('p', { class: 'muted' }, 'Nothing is withheld from the agent.'));
  for (const f of s.flaggedItems) flaggedBody.append(flaggedItemCard(f, s.withheldWarning));
  const flaggedMemory = h('div', { id: 'flagged-memory' });
  // Shown with memory off too: a committed memory.jsonl carrying an attack is visible, and can be forgotten.
  renderMemoryRows(flaggedMemory, s.memory.flagged, rowUi(), 'flagged');
  flaggedBody.append(flaggedMemory);
  if (s.memory.flaggedTotal > s.memory.flagged.length) flaggedBody.append(h('p', { class: 'muted' }, `${s.memory.flaggedTotal - s.memory.flagged.length} more flagged memory entries: filter the memory list by "Flagged".`));
  return section('flagged', 'Flagged', { n: flaggedCount, label: `${flaggedCount} withheld from the agent` }, flaggedBody);
}
