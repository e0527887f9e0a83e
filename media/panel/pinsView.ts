// Pin lists and the pin picker that session cards and the next-chat draft share, and reading which pin a
// click on them means.
import { closest, type Control } from './dom';
import { focusAfterRebuild } from './focus';
import { badge, button, h, icon } from './render';
import { panel } from './panelStore';

function itemTitle(id: string): string {
  return panel.state?.items.find((i) => i.id === id)?.title ?? id;
}

function pinRow(id: string, scopeLabel: string, unpinAction: string, key: string | undefined, withheld: boolean): HTMLElement {
  return h(
    'li',
    { class: 'pin', 'data-pin': id, ...(key ? { 'data-key': key } : {}) },
    icon(withheld ? 'warning' : 'pinned'),
    h('span', { class: 'pin-title' }, itemTitle(id)),
    h('span', { class: 'muted pin-id' }, id),
    withheld ? badge('withheld', 'flagged') : '',
    button('', { icon: 'close', secondary: true, action: unpinAction, label: `Unpin ${itemTitle(id)} from ${scopeLabel}` }),
  );
}

function pinPicker(pins: string[], scopeLabel: string, action: string, key?: string): HTMLElement {
  const options = (panel.state?.items ?? []).filter((i) => !pins.includes(i.id));
  const select = h('vscode-single-select', { label: `Note or plan to pin to ${scopeLabel}`, 'aria-label': `Note or plan to pin to ${scopeLabel}`, 'data-role': 'pin-choice' });
  for (const i of options) select.append(h('vscode-option', { value: i.id }, `${i.title} (${i.id})`));
  return h('div', { class: 'pin-picker', ...(key ? { 'data-key': key } : {}) }, select, button('Pin', { icon: 'pin', action, label: `Pin the chosen item to ${scopeLabel}`, disabled: options.length === 0 }));
}

export interface PinsOf {
  pins: string[];
  /** Who the pins belong to, as the labels say it ("the next chat", a session's name). */
  scopeLabel: string;
  listLabel: string;
  empty: string;
  /** `session` or `draft`: the actions are `<prefix>-pin` and `<prefix>-unpin`. */
  prefix: 'session' | 'draft';
  key?: string;
  withheld?: string[];
}

/** The list of pins (or what to say when there is none) and the picker to add one. */
export function pinsBlock(o: PinsOf): [HTMLElement, HTMLElement] {
  const list = h('ul', { class: 'pins', 'aria-label': o.listLabel });
  if (o.pins.length === 0) list.append(h('li', { class: 'muted' }, o.empty));
  for (const p of o.pins) list.append(pinRow(p, o.scopeLabel, `${o.prefix}-unpin`, o.key, o.withheld?.includes(p) ?? false));
  return [list, pinPicker(o.pins, o.scopeLabel, `${o.prefix}-pin`, o.key)];
}

/**
 * After an unpin the pin's row goes with the next state: focus moves to the card's next unpin button, or
 * to its picker when nothing is pinned any more.
 */
export function focusAfterUnpin(target: HTMLElement): void {
  const card = closest(target, 'article.session');
  const key = card?.dataset.key;
  const sel = key ? `article.session[data-key="${CSS.escape(key)}"]` : 'article.session.draft';
  focusAfterRebuild(`${sel} [data-action$="-unpin"]`, `${sel} [data-role="pin-choice"]`);
}

/** The pin an unpin button is on, and its session key ('' for the draft). */
export function unpinTarget(target: HTMLElement): { pin: string; key: string } {
  const li = closest(target, '[data-pin]');
  return { pin: li?.dataset.pin ?? '', key: li?.dataset.key ?? '' };
}

/** The item chosen in the picker a Pin button belongs to ('' when none), and its session key. */
export function pinChoice(target: HTMLElement): { choice: string; key: string } {
  const picker = closest(target, '.pin-picker');
  return { choice: (picker?.querySelector('[data-role="pin-choice"]') as Control | null)?.value ?? '', key: picker?.dataset.key ?? '' };
}
