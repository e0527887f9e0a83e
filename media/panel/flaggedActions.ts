// Actions on flagged notes and plans: open the file, mark reviewed and delete (both confirmed inline, with
// focus on Cancel so Enter twice never deletes), and closing a confirmation (focus back on the button that
// opened it); each redraws the panel, whose state the inline parts are part of.
import { render } from './app';
import type { ActionContext, Actions } from './dom';
import { act } from './feedback';
import { focusAfterRebuild } from './focus';
import { request } from './panelRpc';
import { inline } from './panelStore';

const OPENER = { forget: 'item-forget', flagWrong: 'item-reviewed' } as const;
const itemSelector = (itemId: string) => `[data-item="${CSS.escape(itemId)}"]`;

/** Opens an inline confirmation on the item and focuses its Cancel. */
function confirmOn(itemId: string, kind: 'forget' | 'flagWrong'): void {
  inline.set(`item:${itemId}`, kind === 'forget' ? { kind, preview: null } : { kind, reason: '' });
  render();
  (document.querySelector(`${itemSelector(itemId)} .inline [data-action="inline-cancel"]`) as HTMLElement | null)?.focus();
}

/** Cancel in a flagged item's confirmation. */
export function cancelItemPart({ itemId }: ActionContext): void {
  const part = inline.get(`item:${itemId}`);
  if (part?.kind === 'forget' || part?.kind === 'flagWrong') focusAfterRebuild(`${itemSelector(itemId)} [data-action="${OPENER[part.kind]}"]`);
  inline.delete(`item:${itemId}`);
  render();
}

export const flaggedActions: Actions = {
  'item-open': ({ itemId }) => act('Open', () => request('item/open', { id: itemId })),
  'item-forget': ({ itemId }) => confirmOn(itemId, 'forget'),
  'item-forget-confirm': async ({ itemId }) => {
    if (await act('Delete', () => request('item/forget', { id: itemId }), `Deleted ${itemId}`)) inline.delete(`item:${itemId}`);
  },
  'item-reviewed': ({ itemId }) => confirmOn(itemId, 'flagWrong'),
  // The card said who reviewed it in the repository; the button is the person's own decision to accept it.
  'item-accept-review': async ({ itemId, itemCard }) => {
    const revision = itemCard?.dataset.revision ?? '';
    await act("Accept the repository's review", () => request('item/acceptRepositoryReview', { id: itemId, revision }), `Accepted the repository's review of ${itemId}`);
  },
  'item-reviewed-confirm': async ({ itemId, itemCard }) => {
    const revision = itemCard?.dataset.revision ?? '';
    if (await act('Mark reviewed', () => request('item/markReviewed', { id: itemId, revision }), `Marked ${itemId} reviewed`)) inline.delete(`item:${itemId}`);
  },
};
