// Export and import: the scope and format pickers at the foot of the memory section and the export /
// import actions (the host asks where to write or what to read).
import { controlValue, type ActionContext, type Actions } from './dom';
import { act, announce } from './feedback';
import { button, h } from './render';
import { request } from './rpc';
import { SCOPES } from './store';

export function exchangeControls(): HTMLElement {
  const scope = h('vscode-single-select', { id: 'exchange-scope', label: 'Scope to export or import', 'aria-label': 'Scope to export or import' });
  for (const v of SCOPES) scope.append(h('vscode-option', { value: v, selected: v === 'project' }, v));
  const format = h('vscode-single-select', { id: 'exchange-format', label: 'Format', 'aria-label': 'Format' });
  format.append(h('vscode-option', { value: 'json', selected: true }, 'JSON'), h('vscode-option', { value: 'markdown' }, 'Markdown (AGENTS.md style)'));
  return h(
    'div',
    { class: 'exchange', role: 'group', 'aria-label': 'Export and import' },
    scope,
    format,
    button('Export…', { icon: 'export', secondary: true, action: 'export', label: 'Export the chosen scope' }),
    button('Import…', { icon: 'cloud-download', secondary: true, action: 'import', label: 'Import into the chosen scope' }),
  );
}

async function exchange({ action }: ActionContext): Promise<void> {
  const scope = (controlValue('exchange-scope') || 'project') as 'project';
  const format = (controlValue('exchange-format') || 'json') as 'json';
  if (action === 'export') await act('Export', () => request('memory/export', { scope, format }));
  else
    await act('Import', async () => {
      const r = await request('memory/import', { scope, format });
      if (r) announce(`Imported ${r.imported} (flagged ${r.flagged}, skipped ${r.skipped.length})`);
    });
}

export const exchangeActions: Actions = { export: exchange, import: exchange };
