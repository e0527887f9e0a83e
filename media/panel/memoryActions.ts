// Actions on one memory entry card: edit, approve, mark reviewed, flag wrong and forget (after its preview),
// closing an open inline part, and keeping what is typed in an inline part across re-renders.
import { closest, fieldValue, type ActionContext, type Actions, type Control } from './dom';
import { act, showError } from './feedback';
import { keepingFocus } from './focus';
import { loadPage, renderMemoryListNow } from './memoryList';
import { h, renderMemoryRows } from './render';
import { request } from './rpc';
import { inline, panel, rowUi, selected } from './store';

/** Re-renders the memory list and the flagged memory rows, then focuses the entry's open inline part. */
function rerenderEntry(id: string): void {
  keepingFocus(() => {
    renderMemoryListNow();
    const state = panel.state;
    if (state?.memory.on) renderMemoryRows(document.getElementById('flagged-memory') ?? h('div'), state.memory.flagged, rowUi(), 'flagged');
  });
  // The part just opened takes focus (its first field, or its first button), once its custom element has rendered.
  const again = document.querySelector(`[data-id="${CSS.escape(id)}"] .inline [data-field], [data-id="${CSS.escape(id)}"] .inline button`) as (HTMLElement & { updateComplete?: Promise<unknown> }) | null;
  if (again) void Promise.resolve(again.updateComplete).then(() => again.focus());
}

function entryById(id: string) {
  return panel.page?.rows.find((r) => r.entry.id === id)?.entry ?? panel.state?.memory.flagged.find((r) => r.entry.id === id)?.entry;
}

/** Cancel in a memory entry's inline part. */
export function cancelEntryPart({ id }: ActionContext): void {
  inline.delete(id);
  rerenderEntry(id);
}

export const memoryActions: Actions = {
  'mem-edit': ({ id }) => {
    const e = entryById(id);
    if (!e) return;
    inline.set(id, { kind: 'edit', title: e.title, body: e.body, tags: e.tags.join(', ') });
    rerenderEntry(id);
  },
  'mem-flag': ({ id }) => {
    inline.set(id, { kind: 'flagWrong', reason: '' });
    rerenderEntry(id);
  },
  'mem-edit-save': async ({ id, target }) => {
    const root = closest(target, '.inline');
    if (!root) return;
    const tags = fieldValue(root, 'tags').split(',').map((t) => t.trim()).filter(Boolean);
    const ok = await act('Save', () => request('memory/update', { id, title: fieldValue(root, 'title'), body: fieldValue(root, 'body'), tags }), 'Saved');
    if (ok) inline.delete(id);
    await loadPage();
  },
  'mem-flag-save': async ({ id, target }) => {
    const root = closest(target, '.inline');
    const reason = root ? fieldValue(root, 'reason').trim() : '';
    if (!reason) {
      showError('Say what is wrong before flagging.');
      return;
    }
    if (await act('Flag as wrong', () => request('memory/flagWrong', { id, reason }), 'Flagged as wrong')) inline.delete(id);
    await loadPage();
  },
  'mem-approve': ({ id }) => act('Approve', () => request('memory/approve', { id }), 'Approved'),
  'mem-reviewed': ({ id, card }) => {
    const revision = card?.dataset.revision ?? '';
    return act('Mark reviewed', () => request('memory/markReviewed', { id, revision }), 'Marked reviewed');
  },
  'mem-forget': async ({ id }) => {
    inline.set(id, { kind: 'forget', preview: null });
    rerenderEntry(id);
    try {
      inline.set(id, { kind: 'forget', preview: await request('memory/forgetPreview', { id }) });
    } catch (err) {
      inline.set(id, { kind: 'forget', preview: null, error: err instanceof Error ? err.message : String(err) });
    }
    rerenderEntry(id);
  },
  'mem-forget-confirm': async ({ id }) => {
    if (await act('Forget', () => request('memory/forget', { id }), 'Forgotten')) {
      inline.delete(id);
      selected.delete(id);
    }
  },
};

/** Keeps an inline part's half-typed fields, so a re-render gives them back. */
export function onInlineInput(t: Control): void {
  const field = t.dataset?.field;
  const id = closest(t, '[data-id]')?.dataset.id;
  const part = id ? inline.get(id) : undefined;
  if (field && part) {
    if (part.kind === 'edit' && (field === 'title' || field === 'body' || field === 'tags')) part[field] = t.value ?? '';
    if (part.kind === 'flagWrong' && field === 'reason') part.reason = t.value ?? '';
  }
}
