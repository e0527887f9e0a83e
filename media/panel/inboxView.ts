// The decision inbox section: its frame (counts, the keys, the bulk toolbar, the list, the footer), loading it like
// the memory list — the first page first, the next ones as the person scrolls to the end (or asks, from the footer
// or with the arrow keys past the last item) — rendering it keeping focus, and the roving focus between items (one
// item in the tab order; the arrow keys move it). Actions and keys are in inboxActions.ts.
//
// The pages on show are one listing: a page is appended only when its stamp (the server's fingerprint of the whole
// listing) is the one on show. An item decided or added in between changes the stamp, and the pages on show are
// read again from the start (as many items as were on show, and the next page), so nothing is skipped or shown twice.
import type { InboxItemRow, InboxPage, PanelState } from '../../src/shared/panelProtocol';
import { keepingFocus, focusWhenReady } from './focus';
import { appendInboxGroups, groupKey, INBOX_KEYS, INBOX_PAGE, renderInboxGroups, type InboxPart, type InboxUi } from './inboxRender';
import { button, h } from './render';
import { request } from './panelRpc';
import { section } from './section';
import { panel } from './panelStore';
import { countsBySource } from './inboxSources';

export { INBOX_PAGE };
/** The protocol's most items in one `inbox/list` request. */
const MOST_PER_REQUEST = 1000;

/** The inbox as the webview holds it: the pages on show, the selection, the item in the tab order, the open part. */
export const inbox: {
  /** The pages on show, joined into one (offset 0; `limit` is how many items it holds). */
  page: InboxPage | undefined;
  error: string | undefined;
  /** Why the last next page did not load (said in the footer; scrolling does not retry it, the button does). */
  moreError: string | undefined;
  selected: Set<string>;
  active: string | undefined;
  part: InboxPart | undefined;
  notices: Map<string, string>;
  /** The bulk reject's reason field, while open. */
  bulkReject: { reason: string } | undefined;
  /** What the last bulk action did, said above the list until the next one. */
  status: string;
} = { page: undefined, error: undefined, moreError: undefined, selected: new Set(), active: undefined, part: undefined, notices: new Map(), bulkReject: undefined, status: '' };

export const itemSelector = (id: string) => `#inbox-list article[data-where="inbox"][data-id="${CSS.escape(id)}"]`;

/** Every item on show, in order. */
export function allRows(): InboxItemRow[] {
  return inbox.page?.groups.flatMap((g) => g.items) ?? [];
}

export function rowById(id: string): InboxItemRow | undefined {
  return allRows().find((r) => r.entry.id === id);
}

function ui(): InboxUi {
  return { warning: panel.state?.withheldWarning ?? 'Withheld from the agent — reads as an instruction', selected: inbox.selected, active: inbox.active, part: inbox.part, notices: inbox.notices };
}

export function inboxSection(s: PanelState): HTMLElement {
  const counts = s.memory.inbox ?? inbox.page?.counts;
  const n = counts?.total ?? 0;
  const label = `${n} ${n === 1 ? 'decision waits' : 'decisions wait'} in the inbox`;
  const keys = h('p', { id: 'inbox-keys', class: 'inbox-keys muted' }, 'Keys: ');
  INBOX_KEYS.forEach(([k, what], i) => keys.append(i > 0 ? ' · ' : '', h('kbd', { class: 'key' }, k), ` ${what}`));
  const summary = counts
    ? h('p', { id: 'inbox-count', class: 'scopes-summary' }, `${label}${n > 0 ? `: ${countsBySource(counts).join(', ')}` : ''}${counts.updates + counts.conflicts > 0 ? ` (${[counts.updates ? `${counts.updates} ${counts.updates === 1 ? 'update' : 'updates'}` : '', counts.conflicts ? `${counts.conflicts} ${counts.conflicts === 1 ? 'conflict' : 'conflicts'}` : ''].filter(Boolean).join(', ')})` : ''}.`)
    : '';
  return section(
    'inbox',
    'Decision inbox',
    counts ? { n, label } : undefined,
    ...(summary ? [summary] : []),
    h('p', { class: 'muted hint' }, 'Nothing here reaches a model until you approve it.'),
    keys,
    h('div', { id: 'inbox-toolbar', class: 'inbox-toolbar', 'aria-live': 'polite' }),
    h('div', { id: 'inbox-list', class: 'inbox-list', 'aria-busy': 'true' }),
    h('div', { id: 'inbox-more', class: 'pager' }),
  );
}

/** How many items the page holds. */
function countOf(page: InboxPage): number {
  let n = 0;
  for (const g of page.groups) n += g.items.length;
  return n;
}

/** `next` (of the same listing) after `into`: a group split across the two pages is joined again. */
function join(into: InboxPage, next: InboxPage): void {
  const last = into.groups[into.groups.length - 1];
  for (const g of next.groups) {
    if (g === next.groups[0] && last && groupKey(last) === groupKey(g)) last.items.push(...g.items);
    else into.groups.push(g);
  }
  into.counts = next.counts;
  into.total = next.total;
  into.limit = countOf(into);
}

/**
 * The first `want` items of one listing, in requests of at most 1,000: a page of another listing (its stamp
 * differs: something was decided or added meanwhile) starts the reading again. Undefined when `stale()`.
 */
async function readFirst(want: number, stale: () => boolean): Promise<InboxPage | undefined> {
  for (let attempt = 0; ; attempt++) {
    const first = await request('inbox/list', { offset: 0, limit: Math.min(MOST_PER_REQUEST, want) });
    if (stale()) return undefined;
    const joined: InboxPage = { ...first, groups: first.groups.map((g) => ({ ...g, items: [...g.items] })), limit: countOf(first) };
    let same = true;
    while (joined.limit < Math.min(want, joined.total)) {
      const next = await request('inbox/list', { offset: joined.limit, limit: Math.min(MOST_PER_REQUEST, want - joined.limit) });
      if (stale()) return undefined;
      if (next.stamp !== joined.stamp) {
        same = false;
        break;
      }
      if (countOf(next) === 0) break;
      join(joined, next);
    }
    // Still changing after a few readings: the first page alone (always one listing), the rest on scroll.
    if (same) return joined;
    if (attempt >= 3) return { ...first, limit: countOf(first) };
  }
}

let seq = 0;
/**
 * Reads the inbox again and shows it: as many items as are on show (at least the first page), or `want`. What left
 * the inbox leaves the selection, the notices and the open part.
 */
export async function loadInbox(want?: number): Promise<void> {
  const mine = ++seq;
  const shown = inbox.page ? countOf(inbox.page) : 0;
  try {
    const page = await readFirst(Math.max(INBOX_PAGE, want ?? shown), () => mine !== seq);
    if (mine !== seq || !page) return;
    inbox.page = page;
    inbox.error = undefined;
    inbox.moreError = undefined;
  } catch (err) {
    if (mine !== seq) return;
    inbox.page = undefined;
    inbox.error = err instanceof Error ? err.message : String(err);
  }
  // Still waiting: the items on show, and every item of a group on show (a selected group reaches beyond its page).
  const present = new Set(allRows().map((r) => r.entry.id));
  for (const g of inbox.page?.groups ?? []) for (const id of g.ids) present.add(id);
  for (const id of [...inbox.selected]) if (!present.has(id)) inbox.selected.delete(id);
  for (const id of [...inbox.notices.keys()]) if (!present.has(id)) inbox.notices.delete(id);
  if (inbox.part && !present.has(inbox.part.id)) inbox.part = undefined;
  renderInbox();
}

let more: Promise<void> | undefined;
/**
 * Shows the next page below the ones on show (appended: nothing on show is built again). A page of another listing
 * reads the inbox again instead, the next page included. One at a time; a reload started meanwhile wins.
 */
export function loadMore(): Promise<void> {
  const page = inbox.page;
  if (more || !page || inbox.error) return more ?? Promise.resolve();
  const offset = countOf(page);
  if (offset >= page.total) return Promise.resolve();
  const mine = seq;
  more = (async () => {
    try {
      const next = await request('inbox/list', { offset, limit: INBOX_PAGE });
      if (mine !== seq || inbox.page !== page) return;
      inbox.moreError = undefined;
      if (next.stamp !== page.stamp) return await loadInbox(offset + INBOX_PAGE);
      join(page, next);
      const list = document.getElementById('inbox-list');
      if (list && list.querySelector('article[data-where="inbox"]')) appendInboxGroups(list, next.groups, ui(), offset, page.total);
      else renderInboxNow();
    } catch (err) {
      if (mine !== seq || inbox.page !== page) return;
      inbox.moreError = err instanceof Error ? err.message : String(err);
    }
    renderMore();
  })().finally(() => {
    more = undefined;
    followScroll();
  });
  return more;
}

/** The end of the list is in view (or near it): the next page loads, as the memory list's next page would on Next. */
let sentinel: IntersectionObserver | undefined;
let nearEnd = false;
function watchEnd(el: HTMLElement): void {
  sentinel ??= new IntersectionObserver(
    (entries) => {
      nearEnd = entries.some((e) => e.isIntersecting);
      followScroll();
    },
    { rootMargin: '0px 0px 400px 0px' },
  );
  sentinel.disconnect();
  nearEnd = false;
  sentinel.observe(el);
}

function followScroll(): void {
  if (nearEnd && !inbox.moreError && document.getElementById('inbox-more')?.isConnected) void loadMore();
}

/** Re-renders the list and the toolbar keeping the focused control (its text and caret). */
export function renderInbox(): void {
  keepingFocus(renderInboxNow);
}

export function renderInboxNow(): void {
  const list = document.getElementById('inbox-list');
  const more = document.getElementById('inbox-more');
  if (!list || !more) return;
  list.removeAttribute('aria-busy');
  if (inbox.error) {
    list.replaceChildren(h('p', { class: 'error', role: 'alert' }, inbox.error));
    more.replaceChildren();
    renderToolbar();
    return;
  }
  const page = inbox.page;
  if (!page) {
    list.replaceChildren(h('p', { class: 'muted' }, 'Loading the inbox…'));
    return;
  }
  const rows = allRows();
  if (!inbox.active || !rows.some((r) => r.entry.id === inbox.active)) inbox.active = rows[0]?.entry.id;
  if (rows.length === 0) list.replaceChildren(h('p', { id: 'inbox-empty', class: 'muted', tabindex: -1 }, 'Nothing waits for a decision.'));
  else renderInboxGroups(list, page.groups, ui(), page.total);
  renderMore();
  renderToolbar();
  watchEnd(more);
}

/** The footer: how many are on show, and a button for the next page (scrolling to it loads it too). */
function renderMore(): void {
  const more = document.getElementById('inbox-more');
  const page = inbox.page;
  if (!more || !page) return;
  const shown = countOf(page);
  if (shown >= page.total) {
    more.replaceChildren();
    return;
  }
  const next = Math.min(INBOX_PAGE, page.total - shown);
  more.replaceChildren(
    h('span', { class: 'muted', 'aria-live': 'polite' }, `${shown.toLocaleString()} of ${page.total.toLocaleString()} shown — the next ${next} load as you scroll`),
    ...(inbox.moreError ? [h('p', { class: 'error', role: 'alert' }, `The next items could not be loaded: ${inbox.moreError}`)] : []),
    button(`Show ${next} more`, { icon: 'chevron-down', secondary: true, action: 'inbox-more', label: `Show the next ${next} waiting items` }),
  );
}

/** The bulk bar over the selection: approve or reject the selected items (reject asks for an optional reason). */
export function renderToolbar(): void {
  const bar = document.getElementById('inbox-toolbar');
  if (!bar) return;
  const n = inbox.selected.size;
  const status = inbox.status ? h('p', { id: 'inbox-status', class: 'inbox-status', role: 'status' }, inbox.status) : '';
  if (n === 0) {
    bar.replaceChildren(status);
    return;
  }
  const what = `${n} selected`;
  if (inbox.bulkReject) {
    bar.replaceChildren(
      status,
      h('p', {}, `Reject ${n} selected ${n === 1 ? 'item' : 'items'}. The reason is kept with each.`),
      h('label', { class: 'field' }, 'Why? (optional)', h('vscode-textfield', { id: 'inbox-bulk-reason', value: inbox.bulkReject.reason, maxlength: 500, label: 'Reason for rejecting the selection (optional)', 'aria-label': 'Reason for rejecting the selection (optional)' })),
      h('div', { class: 'actions' }, button(`Reject ${n}`, { icon: 'close', action: 'inbox-bulk-reject-confirm', label: `Confirm: reject ${n} selected` }), button('Cancel', { secondary: true, action: 'inbox-bulk-cancel', label: 'Cancel rejecting the selection' })),
    );
    return;
  }
  bar.replaceChildren(
    status,
    h(
      'div',
      { class: 'actions', role: 'group', 'aria-label': `Actions on the ${what}` },
      h('span', { class: 'selection-count' }, what),
      button(`Approve ${n}`, { icon: 'check', action: 'inbox-bulk-approve', label: `Approve ${n} selected (Shift+A)` }),
      button(`Reject ${n}…`, { icon: 'close', secondary: true, action: 'inbox-bulk-reject', label: `Reject ${n} selected (Shift+R)` }),
      button('Clear selection', { secondary: true, action: 'inbox-clear', label: 'Clear the selection (Esc)' }),
    ),
  );
}

/** The item card with this id, if shown. */
export function card(id: string): HTMLElement | null {
  return document.querySelector(itemSelector(id));
}

/** Makes `id` the item in the tab order (its buttons too) and focuses it. */
export function moveTo(id: string, opts: { focus?: boolean } = {}): void {
  const prev = inbox.active ? card(inbox.active) : null;
  const next = card(id);
  if (!next) return;
  if (prev && prev !== next) {
    prev.tabIndex = -1;
    for (const b of prev.querySelectorAll('.actions button')) b.setAttribute('tabindex', '-1');
  }
  inbox.active = id;
  next.tabIndex = 0;
  for (const b of next.querySelectorAll('.actions button')) b.removeAttribute('tabindex');
  if (opts.focus !== false) {
    next.focus({ preventScroll: true });
    next.scrollIntoView({ block: 'nearest' });
  }
}

/** The item `delta` places from `id` in the shown order (clamped); `Infinity`/`-Infinity` for the last/first. */
export function neighbour(id: string, delta: number): string | undefined {
  const ids = allRows().map((r) => r.entry.id);
  if (ids.length === 0) return undefined;
  if (delta === Infinity) return ids[ids.length - 1];
  if (delta === -Infinity) return ids[0];
  const at = ids.indexOf(id);
  return ids[Math.max(0, Math.min(ids.length - 1, (at < 0 ? 0 : at) + delta))];
}

/**
 * Where focus goes once `gone` leave the inbox: the first item after the last of them that stays, else the
 * nearest one before, else the "nothing waits" line.
 */
export function afterRemoval(gone: ReadonlySet<string>, from: string | undefined): string | undefined {
  const ids = allRows().map((r) => r.entry.id);
  const at = from ? ids.indexOf(from) : -1;
  const start = at < 0 ? 0 : at;
  for (let i = start; i < ids.length; i++) if (!gone.has(ids[i]!)) return ids[i];
  for (let i = start - 1; i >= 0; i--) if (!gone.has(ids[i]!)) return ids[i];
  return undefined;
}

/** After the inbox reloads: focus `id` (the item in the tab order from now), or the empty line. */
export async function focusItemAfterReload(id: string | undefined): Promise<void> {
  if (id) inbox.active = id;
  await loadInbox();
  const el = (id ? card(id) : null) ?? document.querySelector<HTMLElement>('#inbox-list article[data-where="inbox"]') ?? document.getElementById('inbox-empty');
  if (el) {
    await focusWhenReady(el, { preventScroll: true });
    el.scrollIntoView({ block: 'nearest' });
  }
}
