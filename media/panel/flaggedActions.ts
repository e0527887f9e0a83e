// Actions on flagged notes and plans: open the file, delete (confirmed inline, with focus on Cancel so Enter twice
// never deletes), and the two remedies, asked in VS Code where the exact lines are shown (flaggedRemedy.ts): remove
// the flagged lines, and mark reviewed one finding at a time; each redraws the panel.
import { render } from './app';
import type { ActionContext, Actions } from './dom';
import { act } from './feedback';
import { focusAfterRebuild } from './focus';
import { request } from './panelRpc';
import { inline } from './panelStore';

const OPENER = { forget: 'item-forget' } as const;
const itemSelector = (itemId: string) => `[data-item="${CSS.escape(itemId)}"]`;

/** Opens an inline confirmation on the item and focuses its Cancel. */
function confirmOn(itemId: string, kind: 'forget'): void {
  inline.set(`item:${itemId}`, { kind, preview: null });
  render();
  (document.querySelector(`${itemSelector(itemId)} .inline [data-action="inline-cancel"]`) as HTMLElement | null)?.focus();
}

/** Cancel in a flagged item's confirmation. */
export function cancelItemPart({ itemId }: ActionContext): void {
  const part = inline.get(`item:${itemId}`);
  if (part?.kind === 'forget') focusAfterRebuild(`${itemSelector(itemId)} [data-action="${OPENER[part.kind]}"]`);
  inline.delete(`item:${itemId}`);
  render();
}

export const flaggedActions: Actions = {
  'item-open': ({ itemId }) => act('Open', () => request('item/open', { id: itemId })),
  'item-forget': ({ itemId }) => confirmOn(itemId, 'forget'),
  'item-forget-confirm': async ({ itemId }) => {
    if (await act('Delete', () => request('item/forget', { id: itemId }), `Deleted ${itemId}`)) inline.delete(`item:${itemId}`);
  },
  // Asked in VS Code: which finding, the exact text it lets through, every rule it clears.
  'item-reviewed': async ({ itemId, itemCard }) => {
    await act('Mark reviewed', () => request('item/markReviewed', { id: itemId, revision: itemCard?.dataset.revision ?? '' }));
  },
  // Asked in VS Code: the exact lines (numbers and text) that go; the note is edited there (Undo works).
  'item-remove-lines': async ({ itemId, itemCard }) => {
    await act('Remove the flagged lines', () => request('item/removeFlaggedLines', { id: itemId, revision: itemCard?.dataset.revision ?? '' }));
  },
  // The card said who reviewed it in the repository; the button is the person's own decision to accept it.
  'item-accept-review': async ({ itemId, itemCard }) => {
    const revision = itemCard?.dataset.revision ?? '';
    await act("Accept the repository's review", () => request('item/acceptRepositoryReview', { id: itemId, revision }), `Accepted the repository's review of ${itemId}`);
  },
};
