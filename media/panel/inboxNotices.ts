// What the inbox says about one item, and how: its title quoted, a request whose failure is announced, a notice on
// its card, a flagged item's refusal with focus on the button that lifts it, a control focused inside a card.
import { announce } from './feedback';
import { focusWhenReady } from './focus';
import { inbox, itemSelector, renderInbox, rowById } from './inboxView';
import { failureReason } from './panelRpc';

const title = (id: string) => rowById(id)?.entry.title ?? id;
export const quoted = (id: string) => `“${title(id)}”`;

/** Runs a request; a failure is said (error box and live region) and answered as undefined. */
export async function attempt<T>(what: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; reason: string | undefined; message: string }> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    announce(`${what} failed: ${message}`);
    return { ok: false, reason: failureReason(err), message };
  }
}

/** Focuses a control inside the item's card once its custom element has rendered. */
export function focusInCard(id: string, selector: string): void {
  const el = document.querySelector(`${itemSelector(id)} ${selector}`);
  if (el instanceof HTMLElement) void focusWhenReady(el);
}

/** A single-item action started: what the last bulk action said is stale now. */
export function clearStatus(): void {
  inbox.status = '';
}

export function say(id: string, notice: string): void {
  inbox.notices.set(id, notice);
  announce(notice);
}

/** Why a flagged item's Approve waits; focus goes to the button that lifts it. */
export function refuseFlagged(id: string): void {
  say(id, `${quoted(id)} reads as an instruction and is withheld: look at the matched text, then choose “Reviewed — not a threat” (or edit it) before approving.`);
  renderInbox();
  focusInCard(id, '[data-action="inbox-reviewed"]');
}
