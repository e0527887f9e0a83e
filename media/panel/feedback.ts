// What the person is told: the live region, the error box that survives re-renders until dismissed, and
// `act`, which runs an action and reports how it went.
import { button, h } from './render';

/** The error on show until dismissed: a live update re-renders the panel and must not wipe it. */
let shownError: string | undefined;

export function announce(text: string): void {
  const live = document.getElementById('live');
  if (live) live.textContent = text;
}

export function errorBox(): HTMLElement {
  const box = h('div', { id: 'errors' });
  if (shownError) box.append(h('p', { class: 'error', role: 'alert' }, shownError, ' ', button('Dismiss', { secondary: true, action: 'dismiss-error' })));
  return box;
}

export function showError(text: string): void {
  shownError = text;
  document.getElementById('errors')?.replaceWith(errorBox());
}

export function dismissError(): void {
  shownError = undefined;
  document.getElementById('errors')?.replaceWith(errorBox());
}

/** Runs an action, tells the person how it went (live region), and never leaves a rejected promise. */
export async function act(what: string, fn: () => Promise<unknown>, done?: string): Promise<boolean> {
  try {
    await fn();
    if (done) announce(done);
    if (shownError) dismissError(); // an action that worked makes an earlier failure message stale
    return true;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    announce(`${what} failed: ${message}`);
    showError(`${what} failed: ${message}`);
    return false;
  }
}
