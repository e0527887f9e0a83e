// The memory page: loading it (filters, paging, acknowledging what was seen), its rows, the pager, the
// consolidate bar over the selection, and the page-prev / page-next actions.
import type { ActionContext, Actions } from './dom';
import { keepingFocus } from './focus';
import { button, h, isActiveEntry, renderMemoryRows } from './render';
import { request } from './panelRpc';
import { PAGE_SIZE, panel, rowUi, saveView, selected, view } from './panelStore';

let pageSeq = 0;
export async function loadPage(): Promise<void> {
  const seq = ++pageSeq;
  const f = view.filters;
  try {
    const result = await request('memory/list', {
      ...(f.scope ? { scope: f.scope as 'session' } : {}),
      ...(f.type ? { type: f.type as 'fact' } : {}),
      ...(f.trust ? { trust: f.trust as 'pending' } : {}),
      ...(f.flagged ? { flagged: true } : {}),
      ...(f.aged ? { aged: true } : {}),
      ...(f.query?.trim() ? { query: f.query.trim() } : {}),
      offset: view.offset,
      limit: PAGE_SIZE,
    });
    if (seq !== pageSeq) return;
    panel.page = result;
    panel.pageError = undefined;
  } catch (err) {
    if (seq !== pageSeq) return;
    panel.page = undefined;
    panel.pageError = err instanceof Error ? err.message : String(err);
  }
  renderMemoryList();
  // Looking is the acknowledgement: what is on screen now is recorded as seen (badges stay for this viewing).
  const page = panel.page;
  if (page && page.rows.length > 0) void request('memory/acknowledge', { entries: page.rows.map((r) => ({ id: r.entry.id, revision: r.entry.revision })) }).catch(() => undefined);
}

/** Re-renders the memory page (and the consolidate bar) keeping the focused control, its text and caret. */
export function renderMemoryList(): void {
  keepingFocus(renderMemoryListNow);
}

export function renderMemoryListNow(): void {
  const list = document.getElementById('memory-list');
  const pager = document.getElementById('memory-pager');
  if (!list || !pager) return;
  list.removeAttribute('aria-busy');
  const { page, pageError } = panel;
  if (pageError) {
    list.replaceChildren(h('p', { class: 'error', role: 'alert' }, pageError));
    pager.replaceChildren();
    return;
  }
  if (!page) {
    list.replaceChildren(h('p', { class: 'muted' }, 'Loading memory…'));
    return;
  }
  if (page.rows.length === 0) list.replaceChildren(h('p', { class: 'muted' }, page.total === 0 && !hasFilters() ? 'Nothing remembered yet.' : 'No entry matches.'));
  else renderMemoryRows(list, page.rows, rowUi());
  const from = page.total === 0 ? 0 : page.offset + 1;
  const to = page.offset + page.rows.length;
  // The list keeps consolidated and superseded entries (with where they went); the counts above do not.
  const inactive = page.rows.filter((r) => !isActiveEntry(r.entry)).length;
  const note = inactive === 0 ? '' : ` — including ${page.rows.length === page.total ? inactive : 'some'} consolidated or superseded, not counted as active`;
  pager.replaceChildren(
    h('span', { class: 'muted', 'aria-live': 'polite' }, `${from}–${to} of ${page.total.toLocaleString()} entries listed${note}`),
    button('Previous', { icon: 'chevron-left', secondary: true, action: 'page-prev', disabled: page.offset === 0, label: 'Previous page' }),
    button('Next', { icon: 'chevron-right', secondary: true, action: 'page-next', disabled: to >= page.total, label: 'Next page' }),
  );
  renderConsolidate();
}

function hasFilters(): boolean {
  const f = view.filters;
  return Boolean(f.scope || f.type || f.trust || f.flagged || f.aged || f.query);
}

export function renderConsolidate(): void {
  const bar = document.getElementById('consolidate');
  if (!bar) return;
  if (selected.size < 2) {
    bar.replaceChildren(selected.size === 1 ? h('p', { class: 'muted' }, 'Select one more entry to consolidate.') : '');
    return;
  }
  const draft = panel.consolidateDraft;
  const error = panel.consolidateError;
  bar.replaceChildren(
    h('p', {}, `Consolidate ${selected.size} selected entries into one (the sources stay, marked consolidated):`),
    h(
      'label',
      { class: 'field' },
      'Title',
      h('vscode-textfield', { id: 'consolidate-title', value: draft.title, maxlength: 80, label: 'Title of the consolidated entry', 'aria-label': 'Title of the consolidated entry', invalid: Boolean(error) }),
    ),
    error ? h('p', { id: 'consolidate-error', class: 'error', role: 'alert' }, error) : '',
    h('label', { class: 'field' }, 'Body', h('vscode-textarea', { id: 'consolidate-body', value: draft.body, rows: 3, label: 'Body of the consolidated entry', 'aria-label': 'Body of the consolidated entry' })),
    h('div', { class: 'actions' }, button(`Consolidate ${selected.size}`, { icon: 'merge', action: 'consolidate' }), button('Clear selection', { secondary: true, action: 'clear-selection' })),
  );
}

async function turnPage({ action }: ActionContext): Promise<void> {
  if (!panel.page) return;
  view.offset = Math.max(0, view.offset + (action === 'page-next' ? PAGE_SIZE : -PAGE_SIZE));
  saveView();
  await loadPage();
  document.getElementById('memory-list')?.scrollIntoView({ block: 'start' });
}

export const pagerActions: Actions = { 'page-prev': turnPage, 'page-next': turnPage };
