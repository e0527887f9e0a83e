/**
 * The knowledge panel's webview script. Talks to the host only through the typed messages of
 * `src/shared/panelProtocol.ts` (types only: nothing of that module ships here). Says `ready` once its
 * listener is installed; the host posts nothing before. View state (open sections, filters, page,
 * selection) survives hiding and reloads through getState/setState.
 */
import type {
  FlaggedItemView,
  MemoryPage,
  PanelMethod,
  PanelOutbound,
  PanelParams,
  PanelResults,
  PanelState,
  PanelViewState,
  SessionView,
} from '../../src/shared/panelProtocol';
import { keepingFocus } from './focus';
import { badge, button, h, icon, renderMemoryRows, withheldWarning, type InlinePart, type RowUi } from './render';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const PAGE_SIZE = 50;
const SCOPES = ['session', 'project', 'personal'];
const TYPES = ['fact', 'preference', 'lesson', 'decision', 'reference'];
const TRUST = ['pending', 'approved', 'legacy'];

function loadViewState(): PanelViewState {
  const s = vscode.getState() as Partial<PanelViewState> | undefined;
  const base: PanelViewState = { v: 1, open: { sessions: true, memory: true, flagged: true }, filters: {}, offset: 0, selected: [] };
  if (!s || s.v !== 1) return base;
  return { ...base, ...s, open: { ...base.open, ...(s.open ?? {}) }, filters: { ...(s.filters ?? {}) }, selected: Array.isArray(s.selected) ? s.selected.filter((x) => typeof x === 'string') : [] };
}

const view = loadViewState();
const saveView = () => vscode.setState(view);

let state: PanelState | undefined;
let page: MemoryPage | undefined;
let pageError: string | undefined;
const inline = new Map<string, InlinePart>();
const selected = new Set<string>(view.selected);
let consolidateDraft = { title: '', body: '' };

// ---- requests ----
let nextId = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

class PanelRequestFailed extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

function request<M extends PanelMethod>(method: M, params: PanelParams<M>): Promise<PanelResults[M]> {
  const requestId = nextId++;
  return new Promise<PanelResults[M]>((resolve, reject) => {
    pending.set(requestId, { resolve: resolve as (v: unknown) => void, reject });
    vscode.postMessage({ type: 'request', requestId, method, params });
  });
}

function announce(text: string): void {
  const live = document.getElementById('live');
  if (live) live.textContent = text;
}

window.addEventListener('message', (event: MessageEvent<PanelOutbound>) => {
  const msg = event.data;
  if (!msg || typeof msg !== 'object') return;
  if (msg.type === 'response') {
    const p = msg.requestId === null ? undefined : pending.get(msg.requestId);
    if (!p) return;
    pending.delete(msg.requestId as number);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new PanelRequestFailed(msg.error.reason, msg.error.message));
  } else if (msg.type === 'state') {
    state = msg.state;
    render();
    if (state.memory.on && state.memory.available && !page) void loadPage();
  } else if (msg.type === 'changed') {
    if (state?.memory.on) void loadPage();
  }
});

/** Runs an action, tells the person how it went (live region), and never leaves a rejected promise. */
async function act(what: string, fn: () => Promise<unknown>, done?: string): Promise<boolean> {
  try {
    await fn();
    if (done) announce(done);
    if (shownError) {
      shownError = undefined; // an action that worked makes an earlier failure message stale
      document.getElementById('errors')?.replaceWith(errorBox());
    }
    return true;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    announce(`${what} failed: ${message}`);
    showError(`${what} failed: ${message}`);
    return false;
  }
}

/** The error on show until dismissed: a live update re-renders the panel and must not wipe it. */
let shownError: string | undefined;

function errorBox(): HTMLElement {
  const box = h('div', { id: 'errors' });
  if (shownError) box.append(h('p', { class: 'error', role: 'alert' }, shownError, ' ', button('Dismiss', { secondary: true, action: 'dismiss-error' })));
  return box;
}

function showError(text: string): void {
  shownError = text;
  document.getElementById('errors')?.replaceWith(errorBox());
}

// ---- memory page ----
let pageSeq = 0;
async function loadPage(): Promise<void> {
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
    page = result;
    pageError = undefined;
  } catch (err) {
    if (seq !== pageSeq) return;
    page = undefined;
    pageError = err instanceof Error ? err.message : String(err);
  }
  renderMemoryList();
  // Looking is the acknowledgement: what is on screen now is recorded as seen (badges stay for this viewing).
  if (page && page.rows.length > 0) void request('memory/acknowledge', { entries: page.rows.map((r) => ({ id: r.entry.id, revision: r.entry.revision })) }).catch(() => undefined);
}

function rowUi(): RowUi {
  return { warning: state?.withheldWarning ?? 'Withheld from the agent — reads as an instruction', selected, inline };
}

/** Re-renders the memory page (and the consolidate bar) keeping the focused control, its text and caret. */
function renderMemoryList(): void {
  keepingFocus(renderMemoryListNow);
}

function renderMemoryListNow(): void {
  const list = document.getElementById('memory-list');
  const pager = document.getElementById('memory-pager');
  if (!list || !pager) return;
  list.removeAttribute('aria-busy');
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
  pager.replaceChildren(
    h('span', { class: 'muted', 'aria-live': 'polite' }, `${from}–${to} of ${page.total.toLocaleString()}`),
    button('Previous', { icon: 'chevron-left', secondary: true, action: 'page-prev', disabled: page.offset === 0, label: 'Previous page' }),
    button('Next', { icon: 'chevron-right', secondary: true, action: 'page-next', disabled: to >= page.total, label: 'Next page' }),
  );
  renderConsolidate();
}

function hasFilters(): boolean {
  const f = view.filters;
  return Boolean(f.scope || f.type || f.trust || f.flagged || f.aged || f.query);
}

function renderConsolidate(): void {
  const bar = document.getElementById('consolidate');
  if (!bar) return;
  if (selected.size < 2) {
    bar.replaceChildren(selected.size === 1 ? h('p', { class: 'muted' }, 'Select one more entry to consolidate.') : '');
    return;
  }
  bar.replaceChildren(
    h('p', {}, `Consolidate ${selected.size} selected entries into one (the sources stay, marked consolidated):`),
    h('label', { class: 'field' }, 'Title', h('vscode-textfield', { id: 'consolidate-title', value: consolidateDraft.title, maxlength: 80, label: 'Title of the consolidated entry', 'aria-label': 'Title of the consolidated entry' })),
    h('label', { class: 'field' }, 'Body', h('vscode-textarea', { id: 'consolidate-body', value: consolidateDraft.body, rows: 3, label: 'Body of the consolidated entry', 'aria-label': 'Body of the consolidated entry' })),
    h('div', { class: 'actions' }, button(`Consolidate ${selected.size}`, { icon: 'merge', action: 'consolidate' }), button('Clear selection', { secondary: true, action: 'clear-selection' })),
  );
}

// ---- whole render ----
function section(id: 'sessions' | 'memory' | 'flagged', title: string, count: number | undefined, ...children: Node[]): HTMLElement {
  const details = h('details', { id: `section-${id}`, open: view.open[id] }) as HTMLDetailsElement;
  details.append(h('summary', {}, h('h2', {}, title, count !== undefined ? ' ' : '', count !== undefined ? h('vscode-badge', { variant: 'counter', 'aria-label': `${count}` }, String(count)) : '')));
  details.append(h('div', { class: 'section-body' }, ...children));
  details.addEventListener('toggle', () => {
    view.open[id] = details.open;
    saveView();
  });
  return details;
}

function itemTitle(id: string): string {
  return state?.items.find((i) => i.id === id)?.title ?? id;
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
  const options = (state?.items ?? []).filter((i) => !pins.includes(i.id));
  const select = h('vscode-single-select', { label: `Note or plan to pin to ${scopeLabel}`, 'aria-label': `Note or plan to pin to ${scopeLabel}`, 'data-role': 'pin-choice' });
  for (const i of options) select.append(h('vscode-option', { value: i.id }, `${i.title} (${i.id})`));
  return h('div', { class: 'pin-picker', ...(key ? { 'data-key': key } : {}) }, select, button('Pin', { icon: 'pin', action, label: `Pin the chosen item to ${scopeLabel}`, disabled: options.length === 0 }));
}

const DELIVERY: Record<SessionView['delivery'], { text: string; icon: string }> = {
  carrying: { text: 'Carrying', icon: 'pass' },
  'resend-pending': { text: 'Re-send pending', icon: 'sync' },
  never: { text: 'Never delivered', icon: 'circle-slash' },
  unknown: { text: 'Not computed', icon: 'question' },
};

function sessionCard(s: SessionView): HTMLElement {
  const name = s.label ?? `Session ${s.key.slice(0, 10)}`;
  const d = DELIVERY[s.delivery];
  const card = h('article', { class: 'session', 'data-key': s.key, 'aria-label': `Session ${name}` });
  card.append(h('div', { class: 'session-head' }, h('span', { class: 'session-name' }, name), badge(s.origin, 'scope'), h('span', { class: 'muted' }, new Date(s.createdAt).toLocaleString())));
  card.append(
    h(
      'p',
      { class: `delivery delivery-${s.delivery}` },
      icon(d.icon),
      h('strong', {}, d.text),
      s.deliveredAt ? h('span', { class: 'muted' }, ` — last delivered ${new Date(s.deliveredAt).toLocaleString()}`) : '',
    ),
  );
  if (s.budget) {
    const b = s.budget;
    const pct = b.budgetTokens > 0 ? Math.min(100, Math.round((b.usedTokens / b.budgetTokens) * 100)) : 0;
    const cut = b.cutItems.length + b.cutMemoryEntries;
    const bar = h('div', { class: `meter${cut > 0 ? ' meter-cut' : ''}`, role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': b.budgetTokens, 'aria-valuenow': b.usedTokens, 'aria-label': `Block tokens for ${name}` });
    const fill = h('div', { class: 'meter-fill' });
    fill.style.width = `${pct}%`; // CSSOM, not a style attribute: allowed by the CSP
    bar.append(fill);
    card.append(bar, h('p', { class: 'muted meter-text' }, `${b.usedTokens.toLocaleString()} of ${b.budgetTokens.toLocaleString()} tokens`, cut > 0 ? ` — ${cut} cut to fit${b.cutItems.length ? `: ${b.cutItems.join(', ')}` : ''}${b.cutMemoryEntries ? ` (${b.cutMemoryEntries} memory entries)` : ''}` : ' — nothing cut'));
  }
  const pins = h('ul', { class: 'pins', 'aria-label': `Pins of ${name}` });
  if (s.pins.length === 0) pins.append(h('li', { class: 'muted' }, 'Nothing pinned.'));
  for (const p of s.pins) pins.append(pinRow(p, name, 'session-unpin', s.key, s.withheld.includes(p)));
  card.append(pins, pinPicker(s.pins, name, 'session-pin', s.key));
  return card;
}

function flaggedItemCard(f: FlaggedItemView, warning: string): HTMLElement {
  const card = h('article', { class: 'entry flagged', 'data-item': f.id, 'data-revision': f.revision, 'aria-label': `Flagged ${f.kind}: ${f.title}` });
  card.append(h('div', { class: 'entry-head' }, icon(f.kind === 'plan' ? 'checklist' : 'note'), h('span', { class: 'entry-title' }, f.title), badge(f.kind, 'type'), h('span', { class: 'muted' }, f.id)));
  card.append(withheldWarning(warning, f.rules, f.spans));
  const part = inline.get(`item:${f.id}`);
  const actions = h('div', { class: 'actions', role: 'group', 'aria-label': `Actions on ${f.title}` });
  actions.append(
    button('Edit', { icon: 'go-to-file', secondary: true, action: 'item-open', label: `Edit ${f.title} (opens the file)` }),
    button('Mark reviewed', { icon: 'pass', secondary: true, action: 'item-reviewed', label: `Mark ${f.title} reviewed — not a threat` }),
    button('Forget', { icon: 'trash', secondary: true, action: 'item-forget', label: `Forget ${f.title} (delete the file)` }),
  );
  card.append(actions);
  if (part && part.kind === 'forget') {
    card.append(h('div', { class: 'inline confirm', role: 'alertdialog', 'aria-label': `Delete ${f.title}?` }, h('p', {}, `Delete ${f.id} from disk? This cannot be undone from the panel.`), h('div', { class: 'actions' }, button('Delete file', { icon: 'trash', action: 'item-forget-confirm', label: `Confirm: delete ${f.id}` }), button('Cancel', { secondary: true, action: 'inline-cancel' }))));
  }
  if (part && part.kind === 'flagWrong') {
    card.append(h('div', { class: 'inline confirm', role: 'alertdialog', 'aria-label': `Mark ${f.title} reviewed?` }, h('p', {}, 'It will reach the agent again, for this exact content only; any edit is judged again.'), h('div', { class: 'actions' }, button('Mark reviewed', { icon: 'pass', action: 'item-reviewed-confirm', label: `Confirm: mark ${f.id} reviewed` }), button('Cancel', { secondary: true, action: 'inline-cancel' }))));
  }
  return card;
}

function select(id: string, label: string, values: string[], current: string | undefined): HTMLElement {
  const el = h('vscode-single-select', { id, label, 'aria-label': label, 'data-filter': id });
  el.append(h('vscode-option', { value: '', selected: !current }, `Any ${label.toLowerCase()}`));
  for (const v of values) el.append(h('vscode-option', { value: v, selected: current === v }, v));
  return el;
}

function memorySection(s: PanelState): HTMLElement {
  const m = s.memory;
  if (!m.available) return section('memory', 'Memory', undefined, h('p', { class: 'error', role: 'alert' }, m.error ?? 'Agent memory is not available.'));
  const scopes = h('ul', { class: 'scopes', 'aria-label': 'Memory scopes' });
  for (const sc of m.status?.scopes ?? []) {
    scopes.append(h('li', { class: sc.loaded ? '' : 'error' }, icon(sc.scope === 'personal' ? 'account' : sc.scope === 'project' ? 'repo' : 'comment-discussion'), h('strong', {}, sc.scope), ` ${sc.count}/${sc.cap}`, sc.loaded ? '' : ` — not loaded: ${sc.error ?? 'unknown error'}`));
  }
  if (m.status?.readonly) scopes.append(h('li', { class: 'muted' }, icon('lock'), 'Read-only: changes are refused.'));
  const f = view.filters;
  const filters = h(
    'div',
    { class: 'filters', role: 'search' },
    h('vscode-textfield', { id: 'memory-search', placeholder: 'Search memory', value: f.query ?? '', label: 'Search memory (title, body and tags)', 'aria-label': 'Search memory (title, body and tags)' }, h('span', { slot: 'content-before', class: 'codicon codicon-search search-icon', 'aria-hidden': 'true' })),
    select('scope', 'Scope', SCOPES, f.scope),
    select('type', 'Type', TYPES, f.type),
    select('trust', 'Trust', TRUST, f.trust),
    h('vscode-checkbox', { id: 'filter-flagged', label: 'Flagged', checked: f.flagged, 'aria-label': 'Only flagged entries' }),
    h('vscode-checkbox', { id: 'filter-aged', label: 'Aged', checked: f.aged, 'aria-label': 'Only aged entries' }),
  );
  const exchange = h(
    'div',
    { class: 'exchange', role: 'group', 'aria-label': 'Export and import' },
    (() => {
      const el = h('vscode-single-select', { id: 'exchange-scope', label: 'Scope to export or import', 'aria-label': 'Scope to export or import' });
      for (const v of SCOPES) el.append(h('vscode-option', { value: v, selected: v === 'project' }, v));
      return el;
    })(),
    (() => {
      const el = h('vscode-single-select', { id: 'exchange-format', label: 'Format', 'aria-label': 'Format' });
      el.append(h('vscode-option', { value: 'json', selected: true }, 'JSON'), h('vscode-option', { value: 'markdown' }, 'Markdown (AGENTS.md style)'));
      return el;
    })(),
    button('Export…', { icon: 'export', secondary: true, action: 'export', label: 'Export the chosen scope' }),
    button('Import…', { icon: 'cloud-download', secondary: true, action: 'import', label: 'Import into the chosen scope' }),
  );
  return section(
    'memory',
    'Memory',
    page?.total,
    scopes,
    filters,
    h('div', { id: 'consolidate', class: 'consolidate', 'aria-live': 'polite' }),
    h('div', { id: 'memory-list', class: 'memory-list', 'aria-busy': 'true' }),
    h('div', { id: 'memory-pager', class: 'pager' }),
    exchange,
  );
}

function render(): void {
  const app = document.getElementById('app');
  if (!app || !state) return;
  const s = state;
  app.removeAttribute('aria-busy');
  const header = h(
    'header',
    { class: 'panel-header' },
    h('vscode-checkbox', { id: 'memory-switch', toggle: true, checked: s.memory.on, label: 'Agent memory', 'aria-label': s.memory.on ? 'Agent memory is on — turn it off' : 'Agent memory is off — turn it on' }),
    h('p', { class: 'muted', id: 'memory-switch-help' }, s.memory.on ? 'On: the agent may remember, and approved memory is indexed in each session.' : 'Memory is off: nothing is remembered and no memory reaches the agent. Turn the switch on to review and manage memory here.'),
    button('', { icon: 'refresh', secondary: true, action: 'refresh', label: 'Refresh the panel' }),
  );
  const errors = errorBox();
  const problems = s.problems.length > 0 ? h('div', { class: 'problems', role: 'alert' }, ...s.problems.map((p) => h('p', { class: 'error' }, p))) : '';

  const sessions = h('div', { class: 'sessions' });
  const draft = h('article', { class: 'session draft', 'aria-label': 'Next chat' }, h('div', { class: 'session-head' }, icon('pin'), h('span', { class: 'session-name' }, 'Next chat'), h('span', { class: 'muted' }, 'pins pass into the next session created')));
  const draftPins = h('ul', { class: 'pins', 'aria-label': 'Pins for the next chat' });
  if (s.draftPins.length === 0) draftPins.append(h('li', { class: 'muted' }, 'Nothing pinned to the next chat.'));
  for (const p of s.draftPins) draftPins.append(pinRow(p, 'the next chat', 'draft-unpin', undefined, false));
  draft.append(draftPins, pinPicker(s.draftPins, 'the next chat', 'draft-pin'));
  sessions.append(draft);
  if (s.sessions.length === 0) sessions.append(h('p', { class: 'muted' }, 'No sessions yet. A session starts with its first @knowledge message.'));
  for (const sv of s.sessions) sessions.append(sessionCard(sv));
  if (s.sessionsTotal > s.sessions.length) sessions.append(h('p', { class: 'muted' }, `${s.sessionsTotal - s.sessions.length} older sessions not shown.`));

  const flaggedCount = s.flaggedItems.length + (s.memory.on ? s.memory.flaggedTotal : 0);
  const flaggedBody = h('div', { class: 'flagged-list' });
  if (flaggedCount === 0) flaggedBody.append(h('p', { class: 'muted' }, 'Nothing is withheld from the agent.'));
  for (const f of s.flaggedItems) flaggedBody.append(flaggedItemCard(f, s.withheldWarning));
  const flaggedMemory = h('div', { id: 'flagged-memory' });
  if (s.memory.on) renderMemoryRows(flaggedMemory, s.memory.flagged, rowUi(), 'flagged');
  flaggedBody.append(flaggedMemory);
  if (s.memory.on && s.memory.flaggedTotal > s.memory.flagged.length) flaggedBody.append(h('p', { class: 'muted' }, `${s.memory.flaggedTotal - s.memory.flagged.length} more flagged memory entries: filter the memory list by "Flagged".`));

  const parts: Node[] = [header, errors];
  if (problems) parts.push(problems);
  parts.push(section('sessions', 'Sessions', s.sessions.length, sessions));
  if (s.memory.on) parts.push(memorySection(s));
  parts.push(section('flagged', 'Flagged', flaggedCount, flaggedBody));
  // A live update rebuilds everything: the focused control (a half-typed search, an inline edit) is found
  // again by its key and keeps its text, focus and caret.
  keepingFocus(() => {
    app.replaceChildren(...parts);
    if (s.memory.on) renderMemoryListNow();
  });
}

// ---- events (delegated; no inline handlers) ----
function closest(target: EventTarget | null, selector: string): HTMLElement | null {
  return target instanceof Element ? (target.closest(selector) as HTMLElement | null) : null;
}

function fieldValue(root: Element, name: string): string {
  const el = root.querySelector(`[data-field="${name}"]`) as (HTMLElement & { value?: string }) | null;
  return el?.value ?? '';
}

function rerenderEntry(id: string): void {
  keepingFocus(() => {
    renderMemoryListNow();
    if (state?.memory.on) renderMemoryRows(document.getElementById('flagged-memory') ?? h('div'), state.memory.flagged, rowUi(), 'flagged');
  });
  // The part just opened takes focus (its first field, or its first button), once its custom element has rendered.
  const again = document.querySelector(`[data-id="${CSS.escape(id)}"] .inline [data-field], [data-id="${CSS.escape(id)}"] .inline button`) as (HTMLElement & { updateComplete?: Promise<unknown> }) | null;
  if (again) void Promise.resolve(again.updateComplete).then(() => again.focus());
}

function entryById(id: string) {
  return page?.rows.find((r) => r.entry.id === id)?.entry ?? state?.memory.flagged.find((r) => r.entry.id === id)?.entry;
}

async function onAction(action: string, target: HTMLElement): Promise<void> {
  const card = closest(target, '[data-id]');
  const itemCard = closest(target, '[data-item]');
  const id = card?.dataset.id ?? '';
  const itemId = itemCard?.dataset.item ?? '';
  switch (action) {
    case 'refresh':
      await act('Refresh', async () => {
        state = await request('state/get', {});
        render();
        if (state.memory.on) await loadPage();
      });
      return;
    case 'dismiss-error':
      shownError = undefined;
      document.getElementById('errors')?.replaceWith(errorBox());
      return;
    case 'session-unpin':
    case 'draft-unpin': {
      const li = closest(target, '[data-pin]');
      const pin = li?.dataset.pin ?? '';
      if (action === 'session-unpin') await act('Unpin', () => request('session/updatePins', { key: li?.dataset.key ?? '', remove: [pin] }), `Unpinned ${pin}`);
      else await act('Unpin', () => request('draft/updatePins', { remove: [pin] }), `Unpinned ${pin} from the next chat`);
      return;
    }
    case 'session-pin':
    case 'draft-pin': {
      const picker = closest(target, '.pin-picker');
      const choice = (picker?.querySelector('[data-role="pin-choice"]') as (HTMLElement & { value?: string }) | null)?.value ?? '';
      if (!choice) return;
      if (action === 'session-pin') await act('Pin', () => request('session/updatePins', { key: picker?.dataset.key ?? '', add: [choice] }), `Pinned ${choice}`);
      else
        await act('Pin', async () => {
          const r = await request('draft/updatePins', { add: [choice] });
          if (r.refused.length > 0) throw new Error(r.refused.map((x) => `${x.pin}: ${x.reason}`).join('; '));
        }, `Pinned ${choice} to the next chat`);
      return;
    }
    case 'page-prev':
    case 'page-next':
      if (!page) return;
      view.offset = Math.max(0, view.offset + (action === 'page-next' ? PAGE_SIZE : -PAGE_SIZE));
      saveView();
      await loadPage();
      document.getElementById('memory-list')?.scrollIntoView({ block: 'start' });
      return;
    case 'mem-edit': {
      const e = entryById(id);
      if (!e) return;
      inline.set(id, { kind: 'edit', title: e.title, body: e.body, tags: e.tags.join(', ') });
      rerenderEntry(id);
      return;
    }
    case 'mem-flag':
      inline.set(id, { kind: 'flagWrong', reason: '' });
      rerenderEntry(id);
      return;
    case 'inline-cancel':
      inline.delete(id || `item:${itemId}`);
      if (itemId) render();
      else rerenderEntry(id);
      return;
    case 'mem-edit-save': {
      const root = closest(target, '.inline');
      if (!root) return;
      const tags = fieldValue(root, 'tags').split(',').map((t) => t.trim()).filter(Boolean);
      const ok = await act('Save', () => request('memory/update', { id, title: fieldValue(root, 'title'), body: fieldValue(root, 'body'), tags }), 'Saved');
      if (ok) inline.delete(id);
      await loadPage();
      return;
    }
    case 'mem-flag-save': {
      const root = closest(target, '.inline');
      const reason = root ? fieldValue(root, 'reason').trim() : '';
      if (!reason) {
        showError('Say what is wrong before flagging.');
        return;
      }
      if (await act('Flag as wrong', () => request('memory/flagWrong', { id, reason }), 'Flagged as wrong')) inline.delete(id);
      await loadPage();
      return;
    }
    case 'mem-approve':
      await act('Approve', () => request('memory/approve', { id }), 'Approved');
      return;
    case 'mem-reviewed': {
      const revision = card?.dataset.revision ?? '';
      await act('Mark reviewed', () => request('memory/markReviewed', { id, revision }), 'Marked reviewed');
      return;
    }
    case 'mem-forget': {
      inline.set(id, { kind: 'forget', preview: null });
      rerenderEntry(id);
      try {
        inline.set(id, { kind: 'forget', preview: await request('memory/forgetPreview', { id }) });
      } catch (err) {
        inline.set(id, { kind: 'forget', preview: null, error: err instanceof Error ? err.message : String(err) });
      }
      rerenderEntry(id);
      return;
    }
    case 'mem-forget-confirm':
      if (await act('Forget', () => request('memory/forget', { id }), 'Forgotten')) {
        inline.delete(id);
        selected.delete(id);
      }
      return;
    case 'consolidate': {
      const title = ((document.getElementById('consolidate-title') as (HTMLElement & { value?: string }) | null)?.value ?? '').trim();
      const body = (document.getElementById('consolidate-body') as (HTMLElement & { value?: string }) | null)?.value ?? '';
      if (!title) {
        showError('Give the consolidated entry a title.');
        return;
      }
      if (await act('Consolidate', () => request('memory/consolidate', { ids: [...selected], title, body }), 'Consolidated')) {
        selected.clear();
        consolidateDraft = { title: '', body: '' };
        view.selected = [];
        saveView();
      }
      return;
    }
    case 'clear-selection':
      selected.clear();
      view.selected = [];
      saveView();
      renderMemoryList();
      return;
    case 'export':
    case 'import': {
      const scope = ((document.getElementById('exchange-scope') as (HTMLElement & { value?: string }) | null)?.value || 'project') as 'project';
      const format = ((document.getElementById('exchange-format') as (HTMLElement & { value?: string }) | null)?.value || 'json') as 'json';
      if (action === 'export') await act('Export', () => request('memory/export', { scope, format }));
      else
        await act('Import', async () => {
          const r = await request('memory/import', { scope, format });
          if (r) announce(`Imported ${r.imported} (flagged ${r.flagged}, skipped ${r.skipped.length})`);
        });
      return;
    }
    case 'item-open':
      await act('Open', () => request('item/open', { id: itemId }));
      return;
    case 'item-forget':
      inline.set(`item:${itemId}`, { kind: 'forget', preview: null });
      render();
      (document.querySelector(`[data-item="${CSS.escape(itemId)}"] [data-action="item-forget-confirm"]`) as HTMLElement | null)?.focus();
      return;
    case 'item-forget-confirm':
      if (await act('Delete', () => request('item/forget', { id: itemId }), `Deleted ${itemId}`)) inline.delete(`item:${itemId}`);
      return;
    case 'item-reviewed':
      inline.set(`item:${itemId}`, { kind: 'flagWrong', reason: '' });
      render();
      (document.querySelector(`[data-item="${CSS.escape(itemId)}"] [data-action="item-reviewed-confirm"]`) as HTMLElement | null)?.focus();
      return;
    case 'item-reviewed-confirm': {
      const revision = itemCard?.dataset.revision ?? '';
      if (await act('Mark reviewed', () => request('item/markReviewed', { id: itemId, revision }), `Marked ${itemId} reviewed`)) inline.delete(`item:${itemId}`);
      return;
    }
  }
}

document.addEventListener('click', (ev) => {
  const el = closest(ev.target, '[data-action]');
  if (!el || el.tagName === 'VSCODE-CHECKBOX' || (el instanceof HTMLInputElement && el.type === 'checkbox') || el.hasAttribute('disabled')) return;
  void onAction(el.dataset.action ?? '', el);
});

// Keep in-progress text across re-renders caused by live updates.
document.addEventListener('input', (ev) => {
  const t = ev.target as (HTMLElement & { value?: string }) | null;
  if (!t) return;
  if (t.id === 'memory-search') {
    view.filters.query = t.value ?? '';
    view.offset = 0;
    saveView();
    scheduleSearch();
    return;
  }
  if (t.id === 'consolidate-title') consolidateDraft.title = t.value ?? '';
  if (t.id === 'consolidate-body') consolidateDraft.body = t.value ?? '';
  const field = t.dataset?.field;
  const id = closest(t, '[data-id]')?.dataset.id;
  const part = id ? inline.get(id) : undefined;
  if (field && part) {
    if (part.kind === 'edit' && (field === 'title' || field === 'body' || field === 'tags')) part[field] = t.value ?? '';
    if (part.kind === 'flagWrong' && field === 'reason') part.reason = t.value ?? '';
  }
});

let searchTimer: number | undefined;
function scheduleSearch(): void {
  window.clearTimeout(searchTimer);
  searchTimer = window.setTimeout(() => void loadPage(), 200);
}

// Capture phase: vscode-single-select's `change` does not bubble, so a bubbling listener never saw the filters change.
document.addEventListener('change', (ev) => {
  const t = ev.target as (HTMLElement & { value?: string; checked?: boolean }) | null;
  if (!t) return;
  if (t.id === 'memory-switch') {
    const on = Boolean(t.checked);
    void act('Memory switch', async () => {
      await request('memory/setOn', { on });
      page = undefined;
    }, on ? 'Agent memory is on' : 'Agent memory is off');
    return;
  }
  if (t.dataset?.action === 'select') {
    const id = closest(t, '[data-id]')?.dataset.id;
    if (!id) return;
    if (t.checked) selected.add(id);
    else selected.delete(id);
    view.selected = [...selected];
    saveView();
    renderConsolidate();
    return;
  }
  const filter = t.dataset?.filter;
  if (filter === 'scope' || filter === 'type' || filter === 'trust') {
    view.filters[filter] = t.value || undefined;
  } else if (t.id === 'filter-flagged') {
    view.filters.flagged = Boolean(t.checked);
  } else if (t.id === 'filter-aged') {
    view.filters.aged = Boolean(t.checked);
  } else {
    return;
  }
  view.offset = 0;
  saveView();
  void loadPage();
}, true);

vscode.postMessage({ type: 'ready' });
