// Export and import: the labelled scope and format pickers at the foot of the memory section (the choice
// kept in the view state, so a refresh or an import never resets it), the export / import actions (the
// host asks where to write or what to read) and the line saying what the last one did.
import type { Actions, Control } from './dom';
import { act, announce } from './feedback';
import { button, h } from './render';
import { request } from './panelRpc';
import { saveView, SCOPES, view } from './panelStore';

const FORMATS = [
  { value: 'json', label: 'JSON' },
  { value: 'markdown', label: 'Markdown (AGENTS.md style)' },
] as const;
type Scope = 'session' | 'project' | 'personal';
type Format = (typeof FORMATS)[number]['value'];

/** What the last export or import did: kept across re-renders until the next one. */
let lastResult: string | undefined;

/** The workspace folders project memory has (multi-root only; empty otherwise), as of the last render. */
let folders: readonly string[] = [];
/** A project folder's value in the scope picker. */
const PROJECT_IN = 'project:';

function chosen(): { scope: Scope; format: Format; folder?: string } {
  const picked = view.exchange?.scope ?? '';
  const format = FORMATS.some((f) => f.value === view.exchange?.format) ? (view.exchange?.format as Format) : 'json';
  if (folders.length > 0) {
    const folder = picked.startsWith(PROJECT_IN) ? picked.slice(PROJECT_IN.length) : undefined;
    if (folder !== undefined && folders.includes(folder)) return { scope: 'project', format, folder };
    if (picked === 'personal' || picked === 'session') return { scope: picked, format };
    return { scope: 'project', format, folder: folders[0]! };
  }
  const scope = SCOPES.includes(picked) ? (picked as Scope) : 'project';
  return { scope, format };
}

/** The picker's value for a choice. */
const valueOf = (c: { scope: Scope; folder?: string }): string => (c.folder !== undefined ? `${PROJECT_IN}${c.folder}` : c.scope);
/** What the result line calls it. */
const nameOf = (c: { scope: Scope; folder?: string }): string => (c.folder !== undefined ? `${c.folder}'s project` : c.scope);

/** A dropdown with a visible label above it (and the same accessible name). */
function labelled(id: string, text: string, options: { value: string; label: string }[], current: string): HTMLElement {
  const select = h('vscode-single-select', { id, 'aria-label': text, 'data-exchange': id });
  for (const o of options) select.append(h('vscode-option', { value: o.value, selected: o.value === current }, o.label));
  return h('label', { class: 'field exchange-field' }, text, select);
}

/** `projectFolders`: the folders of a multi-root workspace (each folder's project memory is its own choice). */
export function exchangeControls(projectFolders: readonly string[] = []): HTMLElement {
  folders = projectFolders;
  const current = chosen();
  const options = folders.length > 0 ? [...folders.map((f) => ({ value: valueOf({ scope: 'project', folder: f }), label: `project · ${f}` })), ...SCOPES.filter((v) => v !== 'project').map((v) => ({ value: v, label: v }))] : SCOPES.map((v) => ({ value: v, label: v }));
  return h(
    'div',
    { class: 'exchange', role: 'group', 'aria-label': 'Export and import' },
    labelled('exchange-scope', 'Scope to export or import', options, valueOf(current)),
    labelled('exchange-format', 'File format', [...FORMATS], current.format),
    h('div', { class: 'actions' }, button('Export…', { icon: 'export', secondary: true, action: 'export', label: 'Export the chosen scope' }), button('Import…', { icon: 'cloud-download', secondary: true, action: 'import', label: 'Import into the chosen scope' })),
    h('p', { id: 'exchange-result', class: 'exchange-result', role: 'status' }, lastResult ?? ''),
  );
}

/** Shows what happened under the buttons (and in the live region), until the next export or import. */
function report(text: string): void {
  lastResult = text;
  const line = document.getElementById('exchange-result');
  if (line) line.textContent = text;
  announce(text);
}

export const exchangeActions: Actions = {
  export: () =>
    act('Export', async () => {
      const c = chosen();
      const path = await request('memory/export', { scope: c.scope, format: c.format, ...(c.folder !== undefined ? { folder: c.folder } : {}) });
      report(path ? `Exported ${nameOf(c)} memory to ${path}.` : 'Export cancelled: nothing was written.');
    }),
  import: () =>
    act('Import', async () => {
      const c = chosen();
      const r = await request('memory/import', { scope: c.scope, format: c.format, ...(c.folder !== undefined ? { folder: c.folder } : {}) });
      report(r ? r.summary : 'Import cancelled: nothing was read.');
    }),
};

/** The scope or format picker changed: remembered in the view state. True when it was one of them. */
export function onExchangeChange(t: Control): boolean {
  const which = t.dataset?.exchange;
  if (which !== 'exchange-scope' && which !== 'exchange-format') return false;
  view.exchange = { ...view.exchange, [which === 'exchange-scope' ? 'scope' : 'format']: t.value ?? '' };
  saveView();
  return true;
}
