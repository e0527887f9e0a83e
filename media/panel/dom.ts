// DOM lookups the event handlers share, and the context each delegated action is handed: the control
// clicked and the memory entry (`data-id`) or flagged item (`data-item`) card it sits in.

/** A control as the events see it: vscode-elements and inputs expose `value` and `checked`. */
export type Control = HTMLElement & { value?: string; checked?: boolean };

export function closest(target: EventTarget | null, selector: string): HTMLElement | null {
  return target instanceof Element ? (target.closest(selector) as HTMLElement | null) : null;
}

export function fieldValue(root: Element, name: string): string {
  const el = root.querySelector(`[data-field="${name}"]`) as Control | null;
  return el?.value ?? '';
}

/** The value of the control with this id, or ''. */
export function controlValue(id: string): string {
  return (document.getElementById(id) as Control | null)?.value ?? '';
}

export interface ActionContext {
  action: string;
  target: HTMLElement;
  card: HTMLElement | null;
  itemCard: HTMLElement | null;
  /** The memory entry's id, or ''. */
  id: string;
  /** The flagged note's or plan's id, or ''. */
  itemId: string;
}

export type Actions = Record<string, (c: ActionContext) => void | Promise<unknown>>;

export function actionContext(action: string, target: HTMLElement): ActionContext {
  const card = closest(target, '[data-id]');
  const itemCard = closest(target, '[data-item]');
  return { action, target, card, itemCard, id: card?.dataset.id ?? '', itemId: itemCard?.dataset.item ?? '' };
}
