// The memory section: scope counts, the search field and the filters (scope, type, trust, flagged, aged)
// with their input and change handling, around the list, pager, consolidate bar and export/import.
import type { PanelState } from '../../src/shared/panelProtocol';
import type { Control } from './dom';
import { exchangeControls } from './exchangeView';
import { loadPage } from './memoryList';
import { h, icon } from './render';
import { section } from './section';
import { rememberForm } from './rememberForm';
import { saveView, SCOPES, view } from './panelStore';

const TYPES = ['fact', 'preference', 'lesson', 'decision', 'reference'];
const TRUST = ['pending', 'approved', 'legacy'];

function select(id: string, label: string, values: string[], current: string | undefined): HTMLElement {
  const el = h('vscode-single-select', { id, label, 'aria-label': label, 'data-filter': id });
  el.append(h('vscode-option', { value: '', selected: !current }, `Any ${label.toLowerCase()}`));
  for (const v of values) el.append(h('vscode-option', { value: v, selected: current === v }, v));
  return el;
}

export function memorySection(s: PanelState): HTMLElement {
  const m = s.memory;
  if (!m.available) return section('memory', 'Memory', undefined, h('p', { class: 'error', role: 'alert' }, m.error ?? 'Agent memory is not available.'));
  // One count everywhere: active entries (not superseded, consolidated or archived), what the caps count.
  // The section's badge is the sum of the scopes listed under it, and says so.
  const all = m.status?.scopes ?? [];
  const loaded = all.filter((sc) => sc.loaded);
  const active = loaded.reduce((n, sc) => n + sc.count, 0);
  // A multi-root workspace has one project file per folder: scopes are counted once, files said beside them.
  const scopeCount = new Set(loaded.map((sc) => sc.scope)).size;
  const files = loaded.length > scopeCount ? ` (${loaded.length} files)` : '';
  const total = `${active} active ${active === 1 ? 'entry' : 'entries'} in ${scopeCount} ${scopeCount === 1 ? 'scope' : 'scopes'}${files}`;
  const summary = h('p', { id: 'memory-count', class: 'scopes-summary' }, total, all.length > loaded.length ? ` (${all.length - loaded.length} not loaded)` : '', ':');
  const scopes = h('ul', { class: 'scopes', 'aria-label': 'Memory scopes' });
  for (const sc of all) {
    const count = sc.loaded ? h('span', { class: 'scope-count', 'data-count': sc.count, title: `${sc.count} active of at most ${sc.cap}` }, ` ${sc.count} active / ${sc.cap} max`) : ` — not loaded: ${sc.error ?? 'unknown error'}`;
    const folder = sc.folder !== undefined ? [h('span', { class: 'scope-folder', title: sc.path ?? '' }, ` · ${sc.folder}`)] : [];
    scopes.append(h('li', { class: sc.loaded ? '' : 'error', 'data-scope': sc.scope, ...(sc.folder !== undefined ? { 'data-folder': sc.folder } : {}) }, icon(sc.scope === 'personal' ? 'account' : sc.scope === 'project' ? 'repo' : 'comment-discussion'), h('strong', {}, sc.scope), ...folder, count));
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
  return section(
    'memory',
    'Memory',
    m.status ? { n: active, label: total } : undefined,
    summary,
    scopes,
    rememberForm(),
    filters,
    h('div', { id: 'consolidate', class: 'consolidate', 'aria-live': 'polite' }),
    h('div', { id: 'memory-list', class: 'memory-list', 'aria-busy': 'true' }),
    h('div', { id: 'memory-pager', class: 'pager' }),
    exchangeControls(all.flatMap((sc) => (sc.folder !== undefined ? [sc.folder] : []))),
  );
}

let searchTimer: number | undefined;
function scheduleSearch(): void {
  window.clearTimeout(searchTimer);
  searchTimer = window.setTimeout(() => void loadPage(), 200);
}

/** Typing in the search field: reloads from the first page once typing pauses. True when it was the search. */
export function onSearchInput(t: Control): boolean {
  if (t.id !== 'memory-search') return false;
  view.filters.query = t.value ?? '';
  view.offset = 0;
  saveView();
  scheduleSearch();
  return true;
}

/** A filter changed: reloads from the first page. */
export function onFilterChange(t: Control): void {
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
}
