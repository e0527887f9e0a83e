// Export and import: the labelled scope and format pickers at the foot of the memory section (the choice
// kept in the view state, so a refresh or an import never resets it), the export / import actions (the
// host asks where to write or what to read) and the line saying what the last one did.
import type { Actions, Control } from './dom';
import { act, announce } from './feedback';
import { button, h } from './render';
import { request } from './rpc';
import { saveView, SCOPES, view } from './store';

const FORMATS = [
  { value: 'json', label: 'JSON' },
  { value: 'markdown', label: 'Markdown (AGENTS.md style)' },
] as const;
type Scope = 'session' | 'project' | 'personal';
type Format = (typeof FORMATS)[number]['value'];

/** What the last export or import did: kept across re-renders until the next one. */
let lastResult: string | undefined;

function chosen(): { scope: Scope; format: Format } {
  const scope = SCOPES.includes(view.exchange?.scope ?? '') ? (view.exchange?.scope as Scope) : 'project';
  const format = FORMATS.some((f) => f.value === view.exchange?.format) ? (view.exchange?.format as Format) : 'json';
  return { scope, format };
}

/** A dropdown with a visible label above it (and the same accessible name). */
function labelled(id: string, text: string, options: { value: string; label: string }[], current: string): HTMLElement {
  const select = h('vscode-single-select', { id, 'aria-label': text, 'data-exchange': id });
  for (const o of options) select.append(h('vscode-option', { value: o.value, selected: o.value === current }, o.label));
  return h('label', { class: 'field exchange-field' }, text, select);
}

export function exchangeControls(): HTMLElement {
  const { scope, format } = chosen();
  return h(
    'div',
    { class: 'exchange', role: 'group', 'aria-label': 'Export and import' },
    labelled('exchange-scope', 'Scope to export or import', SCOPES.map((v) => ({ value: v, label: v })), scope),
    labelled('exchange-format', 'File format', [...FORMATS], format),
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
      const { scope, format } = chosen();
      const path = await request('memory/export', { scope, format });
      report(path ? `Exported ${scope} memory to ${path}.` : 'Export cancelled: nothing was written.');
    }),
  import: () =>
    act('Import', async () => {
      const { scope, format } = chosen();
      const r = await request('memory/import', { scope, format });
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
