/**
 * Keeps the person's place across re-renders. A live update (another window, a file written on disk, a
 * tool call) rebuilds parts of the panel, which replaces the element that had focus: a half-typed search
 * or an inline edit would lose focus, caret and text. Before a rebuild, `captureFocus` notes the focused
 * control by a stable key (the ids and identifying `data-*` attributes of it and its ancestors, never its
 * position), its text and its selection; after it, `restoreFocus` finds the control with the same key,
 * gives it the text back, focuses it and puts the caret and selection back — unless something else took
 * focus meanwhile (an action that deliberately focused what it opened wins).
 */

/** Attributes that identify a control or the card it belongs to (see render.ts and main.ts). */
const KEY_ATTRS = ['data-where', 'data-id', 'data-item', 'data-key', 'data-pin', 'data-role', 'data-filter', 'data-field', 'data-action'] as const;

type TextControl = HTMLInputElement | HTMLTextAreaElement;
type Direction = 'forward' | 'backward' | 'none';

export interface FocusSnapshot {
  key: string;
  /** The control's text, when it is a text control. */
  text?: string;
  start: number | null;
  end: number | null;
  direction: Direction | null;
  scrollTop: number;
}

function compound(el: Element): string {
  let sel = '';
  for (const a of KEY_ATTRS) {
    const v = el.getAttribute(a);
    if (v !== null) sel += `[${a}="${CSS.escape(v)}"]`;
  }
  return sel;
}

/** A selector for `el` that survives a rebuild: from the nearest ancestor with an id, through identifying attributes. */
export function focusKey(el: Element): string | null {
  const parts: string[] = [];
  for (let cur: Element | null = el; cur; cur = cur.parentElement) {
    if (cur.id) {
      parts.unshift(`#${CSS.escape(cur.id)}`);
      return parts.join(' ');
    }
    const c = compound(cur);
    if (cur === el) parts.unshift(`${cur.localName}${c}`);
    else if (c) parts.unshift(c);
  }
  return null; // nothing stable to find it by
}

const SELECTABLE = new Set(['text', 'search', 'url', 'tel', 'password']);

/** The text control behind `el`: itself, or the input/textarea in its shadow root (vscode-textfield, vscode-textarea). */
function textControl(el: Element): TextControl | undefined {
  const inner = el.shadowRoot ? el.shadowRoot.querySelector('input, textarea') : el;
  if (inner instanceof HTMLTextAreaElement) return inner;
  if (inner instanceof HTMLInputElement && SELECTABLE.has(inner.type)) return inner;
  return undefined;
}

export function captureFocus(): FocusSnapshot | undefined {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || active === document.body) return undefined;
  const key = focusKey(active);
  if (!key) return undefined;
  const control = textControl(active);
  if (!control) return { key, start: null, end: null, direction: null, scrollTop: 0 };
  return { key, text: control.value, start: control.selectionStart, end: control.selectionEnd, direction: control.selectionDirection, scrollTop: control.scrollTop };
}

/** Whether focus is lost (on the body or nowhere): only then is it given back. */
const focusLost = () => !document.activeElement || document.activeElement === document.body;

/**
 * Gives focus, text and selection back to the control with the snapshot's key. Custom elements render their
 * inner input in a microtask; this waits for that (`updateComplete`), which finishes before the next
 * keystroke is dispatched, so nothing typed is lost in between.
 */
export async function restoreFocus(snap: FocusSnapshot | undefined): Promise<void> {
  if (!snap || !focusLost()) return;
  const el = document.querySelector(snap.key);
  if (!(el instanceof HTMLElement)) return;
  const host = el as HTMLElement & { value?: unknown; updateComplete?: Promise<unknown> };
  if (snap.text !== undefined && typeof host.value === 'string' && host.value !== snap.text) host.value = snap.text;
  if (host.updateComplete) await host.updateComplete;
  if (!focusLost() || !el.isConnected) return;
  el.focus({ preventScroll: true });
  const control = textControl(el);
  if (!control) return;
  if (snap.text !== undefined && control.value !== snap.text) control.value = snap.text;
  if (snap.start !== null && snap.end !== null) {
    try {
      control.setSelectionRange(snap.start, snap.end, snap.direction ?? 'none');
    } catch {
      /* the control does not support a selection */
    }
  }
  control.scrollTop = snap.scrollTop;
}

/** Focuses `el` once its custom element (if it is one) has rendered its inner control. */
export async function focusWhenReady(el: HTMLElement, opts?: FocusOptions): Promise<void> {
  const host = el as HTMLElement & { updateComplete?: Promise<unknown> };
  if (host.updateComplete) await host.updateComplete;
  if (el.isConnected) el.focus(opts);
}

/**
 * Where focus goes when an action's control disappears with the next rebuild (Save closes the editor, an
 * unpinned pin leaves its list): the first of `selectors` that matches then. Used only when focus is lost,
 * and only within a few seconds of the action.
 */
let fallback: { selectors: string[]; until: number } | undefined;
const FALLBACK_MS = 5_000;

export function focusAfterRebuild(...selectors: string[]): void {
  fallback = { selectors, until: Date.now() + FALLBACK_MS };
  void applyFallback(); // the rebuild may have come first (a live update before the answer)
}

async function applyFallback(): Promise<void> {
  if (!fallback || !focusLost()) return;
  const { selectors, until } = fallback;
  if (Date.now() > until) {
    fallback = undefined;
    return;
  }
  for (const sel of selectors) {
    const el = document.querySelector(sel);
    if (el instanceof HTMLElement) {
      fallback = undefined;
      await focusWhenReady(el);
      return;
    }
  }
}

/**
 * Where the card the person is working on sits on screen (the focused control's card, else the control): after a
 * rebuild that moved it (an approved entry re-sorted, a group above it emptied) the page is scrolled so it sits
 * where it sat, instead of the page staying put and the card leaving the view. Only when it was on screen.
 */
interface Anchor {
  selector: string;
  top: number;
}

function captureAnchor(): Anchor | undefined {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || active === document.body) return undefined;
  const card = active.closest<HTMLElement>('article[data-id], article[data-item], article[data-key]') ?? active;
  const selector = focusKey(card);
  if (!selector) return undefined;
  const r = card.getBoundingClientRect();
  if (r.bottom <= 0 || r.top >= document.documentElement.clientHeight) return undefined; // scrolled away on purpose
  return { selector, top: r.top };
}

function restoreAnchor(a: Anchor | undefined): void {
  if (!a) return;
  const el = document.querySelector(a.selector);
  if (!el) return;
  const delta = el.getBoundingClientRect().top - a.top;
  if (Math.abs(delta) >= 1) document.scrollingElement?.scrollBy(0, delta);
}

/**
 * Runs a rebuild and keeps the focused control (by key) with its text and caret, or takes the action's fallback;
 * the card it sits in stays where it was on screen.
 */
export function keepingFocus<T>(rebuild: () => T): T {
  const snap = captureFocus();
  const anchor = captureAnchor();
  const result = rebuild();
  restoreAnchor(anchor);
  void restoreFocus(snap).then(applyFallback);
  return result;
}
