// Consolidating memory entries: ticking entries in the list, the draft title and body, and the consolidate
// and clear-selection actions (the bar itself is drawn with the memory list). The bar sits above the list:
// when it appears it is scrolled into view with its title field focused, and a missing title is said there.
import { closest, controlValue, type Actions, type Control } from './dom';
import { act } from './feedback';
import { focusWhenReady } from './focus';
import { renderConsolidate, renderMemoryList } from './memoryList';
import { request } from './panelRpc';
import { panel, saveSelection, selected } from './panelStore';

/** Brings the consolidate form into view and puts the caret in its title. */
function showForm(): void {
  document.getElementById('consolidate')?.scrollIntoView({ block: 'nearest' });
  const title = document.getElementById('consolidate-title');
  if (title) void focusWhenReady(title, { preventScroll: true });
}

export const consolidateActions: Actions = {
  consolidate: async () => {
    const title = controlValue('consolidate-title').trim();
    const body = controlValue('consolidate-body');
    if (!title) {
      panel.consolidateError = 'Give the consolidated entry a title: it is what the agent sees in its index.';
      renderConsolidate();
      showForm();
      return;
    }
    panel.consolidateError = undefined;
    if (await act('Consolidate', () => request('memory/consolidate', { ids: [...selected], title, body }), 'Consolidated')) {
      selected.clear();
      panel.consolidateDraft = { title: '', body: '' };
      saveSelection();
    }
  },
  'clear-selection': () => {
    selected.clear();
    panel.consolidateError = undefined;
    saveSelection();
    renderMemoryList();
  },
};

/** An entry's checkbox ticked or cleared. True when it was one. */
export function onSelectChange(t: Control): boolean {
  if (t.dataset?.action !== 'select') return false;
  const id = closest(t, '[data-id]')?.dataset.id;
  if (!id) return true;
  const before = selected.size;
  if (t.checked) selected.add(id);
  else selected.delete(id);
  saveSelection();
  renderConsolidate();
  if (before < 2 && selected.size >= 2) showForm(); // the form just appeared, above the list and maybe off-screen
  return true;
}

/** Keeps the half-typed title and body of the consolidated entry; a title given clears the error. */
export function onDraftInput(t: Control): void {
  if (t.id === 'consolidate-title') {
    panel.consolidateDraft.title = t.value ?? '';
    if (panel.consolidateError && panel.consolidateDraft.title.trim()) {
      panel.consolidateError = undefined;
      document.getElementById('consolidate-error')?.remove();
      t.removeAttribute('invalid');
    }
  }
  if (t.id === 'consolidate-body') panel.consolidateDraft.body = t.value ?? '';
}
