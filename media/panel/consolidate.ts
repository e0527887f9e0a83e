// Consolidating memory entries: ticking entries in the list, the draft title and body, and the consolidate
// and clear-selection actions (the bar itself is drawn with the memory list).
import { closest, controlValue, type Actions, type Control } from './dom';
import { act, showError } from './feedback';
import { renderConsolidate, renderMemoryList } from './memoryList';
import { request } from './rpc';
import { panel, saveSelection, selected } from './store';

export const consolidateActions: Actions = {
  consolidate: async () => {
    const title = controlValue('consolidate-title').trim();
    const body = controlValue('consolidate-body');
    if (!title) {
      showError('Give the consolidated entry a title.');
      return;
    }
    if (await act('Consolidate', () => request('memory/consolidate', { ids: [...selected], title, body }), 'Consolidated')) {
      selected.clear();
      panel.consolidateDraft = { title: '', body: '' };
      saveSelection();
    }
  },
  'clear-selection': () => {
    selected.clear();
    saveSelection();
    renderMemoryList();
  },
};

/** An entry's checkbox ticked or cleared. True when it was one. */
export function onSelectChange(t: Control): boolean {
  if (t.dataset?.action !== 'select') return false;
  const id = closest(t, '[data-id]')?.dataset.id;
  if (!id) return true;
  if (t.checked) selected.add(id);
  else selected.delete(id);
  saveSelection();
  renderConsolidate();
  return true;
}

/** Keeps the half-typed title and body of the consolidated entry. */
export function onDraftInput(t: Control): void {
  if (t.id === 'consolidate-title') panel.consolidateDraft.title = t.value ?? '';
  if (t.id === 'consolidate-body') panel.consolidateDraft.body = t.value ?? '';
}
