// The next-chat draft: the card of pins that pass into the next session created, and its pin and unpin
// actions (a pin the host refuses is reported as a failure).
import type { PanelState } from '../../src/shared/panelProtocol';
import type { Actions } from './dom';
import { act } from './feedback';
import { focusAfterUnpin, pinChoice, pinsBlock, unpinTarget } from './pinsView';
import { h, icon } from './render';
import { request } from './panelRpc';

export function draftCard(s: PanelState): HTMLElement {
  const draft = h('article', { class: 'session draft', 'aria-label': 'Next chat' }, h('div', { class: 'session-head' }, icon('pin'), h('span', { class: 'session-name' }, 'Next chat'), h('span', { class: 'muted' }, 'pins pass into the next session created')));
  draft.append(...pinsBlock({ pins: s.draftPins, scopeLabel: 'the next chat', listLabel: 'Pins for the next chat', empty: 'Nothing pinned to the next chat.', prefix: 'draft' }));
  return draft;
}

export const draftActions: Actions = {
  'draft-unpin': async ({ target }) => {
    const { pin } = unpinTarget(target);
    if (await act('Unpin', () => request('draft/updatePins', { remove: [pin] }), `Unpinned ${pin} from the next chat`)) focusAfterUnpin(target);
  },
  'draft-pin': async ({ target }) => {
    const { choice } = pinChoice(target);
    if (!choice) return;
    await act('Pin', async () => {
      const r = await request('draft/updatePins', { add: [choice] });
      if (r.refused.length > 0) throw new Error(r.refused.map((x) => `${x.pin}: ${x.reason}`).join('; '));
    }, `Pinned ${choice} to the next chat`);
  },
};
