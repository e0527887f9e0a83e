// Actions on flagged notes and plans: open the file, mark reviewed and delete (both confirmed inline),
// and closing a confirmation; each redraws the panel, whose state the inline parts are part of.
import { render } from './app';
import type { ActionContext, Actions } from './dom';
import { act } from './feedback';
import { request } from './rpc';
import { inline } from './store';

/** Opens an inline confirmation on the item and focuses its confirm button. */
function confirmOn(itemId: string, kind: 'forget' | 'flagWrong', confirmAction: string): void {
  inline.set(`item:${itemId}`, kind === 'forget' ? { kind, preview: null } : { kind, reason: '' });
  render();
  (document.querySelector(`[data-item="${CSS.escape(itemId)}"] [data-action="${confirmAction}"]`) as HTMLElement | null)?.focus();
}

/** Cancel in a flagged item's confirmation. */
export function cancelItemPart({ itemId }: ActionContext): void {
  inline.delete(`item:${itemId}`);
  render();
}

export const flaggedActions: Actions = {
  'item-open': ({ itemId }) => act('Open', () => request('item/open', { id: itemId })),
  'item-forget': ({ itemId }) => confirmOn(itemId, 'forget', 'item-forget-confirm'),
  'item-forget-confirm': async ({ itemId }) => {
    if (await act('Delete', () => request('item/forget', { id: itemId }), `Deleted ${itemId}`)) inline.delete(`item:${itemId}`);
  },
  'item-reviewed': ({ itemId }) => confirmOn(itemId, 'flagWrong', 'item-reviewed-confirm'),
  'item-reviewed-confirm': async ({ itemId, itemCard }) => {
    const revision = itemCard?.dataset.revision ?? '';
    if (await act('Mark reviewed', () => request('item/markReviewed', { id: itemId, revision }), `Marked ${itemId} reviewed`)) inline.delete(`item:${itemId}`);
  },
};
