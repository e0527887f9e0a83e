// Actions on one memory entry card: edit, approve, mark reviewed, flag wrong and forget (after its preview),
// closing an open inline part, jumping from a flagged entry's line in the list to its card under Flagged,
// and keeping what is typed in an inline part across re-renders. Focus never falls to the page: an opened
// part takes it (a confirmation on Cancel, so Enter twice never deletes), and a closed one gives it back
// to the control that opened it.
import { closest, fieldValue, type ActionContext, type Actions, type Control } from './dom';
import { act, showError } from './feedback';
import { focusAfterRebuild, focusWhenReady, keepingFocus } from './focus';
import { loadPage, renderMemoryListNow } from './memoryList';
import { h, renderMemoryRows, type InlinePart } from './render';
import { request } from './panelRpc';
import { inline, panel, rowUi, saveView, selected, view } from './panelStore';

/** The action that opens each kind of inline part: focus goes back to it when the part closes. */
const OPENER: Record<InlinePart['kind'], string> = { edit: 'mem-edit', flagWrong: 'mem-flag', forget: 'mem-forget' };

const cardSelector = (id: string, where?: string) => `[data-where="${where ?? 'list'}"][data-id="${CSS.escape(id)}"]`;

/** Re-renders the memory list and the flagged memory rows, then focuses the entry's open inline part. */
function rerenderEntry(id: string, where?: string): void {
  keepingFocus(() => {
    renderMemoryListNow();
    const state = panel.state;
    if (state?.memory.on) renderMemoryRows(document.getElementById('flagged-memory') ?? h('div'), state.memory.flagged, rowUi(), 'flagged');
  });
  // The part just opened takes focus once its custom element has rendered: its first field, or in a
  // confirmation its Cancel (the risky button is never the default).
  const part = document.querySelector(`${cardSelector(id, where)} .inline`);
  const target = (part?.querySelector('[data-field]') ?? part?.querySelector('[data-action="inline-cancel"]')) as HTMLElement | null;
  if (target) void focusWhenReady(target);
}

function entryById(id: string) {
  return panel.page?.rows.find((r) => r.entry.id === id)?.entry ?? panel.state?.memory.flagged.find((r) => r.entry.id === id)?.entry;
}

/** After an action that closes or removes the control in focus: focus `action` on the entry's card, or any of its buttons. */
function focusOnCardAfter(c: ActionContext, action: string): void {
  const card = cardSelector(c.id, c.card?.dataset.where);
  focusAfterRebuild(`${card} [data-action="${action}"]`, `${card} button`, `${cardSelector(c.id)} button`);
}

/** Closes the inline part: re-rendered now, and the list reloaded when the action changed the entry. */
function closePart(c: ActionContext, changed: boolean): Promise<void> | void {
  const part = inline.get(c.id);
  if (part) focusOnCardAfter(c, OPENER[part.kind]);
  inline.delete(c.id);
  rerenderEntry(c.id, c.card?.dataset.where);
  return changed ? loadPage() : undefined;
}

/** Cancel in a memory entry's inline part. */
export function cancelEntryPart(c: ActionContext): void {
  void closePart(c, false);
}

export const memoryActions: Actions = {
  'mem-edit': ({ id, card }) => {
    const e = entryById(id);
    if (!e) return;
    inline.set(id, { kind: 'edit', title: e.title, body: e.body, tags: e.tags.join(', ') });
    rerenderEntry(id, card?.dataset.where);
  },
  'mem-flag': ({ id, card }) => {
    inline.set(id, { kind: 'flagWrong', reason: '' });
    rerenderEntry(id, card?.dataset.where);
  },
  'mem-edit-save': async (c) => {
    const root = closest(c.target, '.inline');
    if (!root) return;
    const tags = fieldValue(root, 'tags').split(',').map((t) => t.trim()).filter(Boolean);
    if (await act('Save', () => request('memory/update', { id: c.id, title: fieldValue(root, 'title'), body: fieldValue(root, 'body'), tags }), 'Saved')) await closePart(c, true);
  },
  'mem-flag-save': async (c) => {
    const root = closest(c.target, '.inline');
    const reason = root ? fieldValue(root, 'reason').trim() : '';
    if (!reason) {
      showError('Say what is wrong before flagging.');
      return;
    }
    if (await act('Flag as wrong', () => request('memory/flagWrong', { id: c.id, reason }), 'Flagged as wrong')) await closePart(c, true);
  },
  'mem-approve': async (c) => {
    if (await act('Approve', () => request('memory/approve', { id: c.id }), 'Approved')) focusOnCardAfter(c, 'mem-edit');
  },
  'mem-reviewed': async (c) => {
    const revision = c.card?.dataset.revision ?? '';
    // Reviewed, the entry leaves the Flagged section: focus follows it to its card in the list.
    if (await act('Mark reviewed', () => request('memory/markReviewed', { id: c.id, revision }), 'Marked reviewed')) focusAfterRebuild(`${cardSelector(c.id)} [data-action="mem-edit"]`, `${cardSelector(c.id, 'flagged')} button`);
  },
  'mem-forget': async ({ id, card }) => {
    const where = card?.dataset.where;
    inline.set(id, { kind: 'forget', preview: null });
    rerenderEntry(id, where);
    try {
      inline.set(id, { kind: 'forget', preview: await request('memory/forgetPreview', { id }) });
    } catch (err) {
      inline.set(id, { kind: 'forget', preview: null, error: err instanceof Error ? err.message : String(err) });
    }
    rerenderEntry(id, where);
  },
  'mem-forget-confirm': async ({ id }) => {
    if (await act('Forget', () => request('memory/forget', { id }), 'Forgotten')) {
      inline.delete(id);
      selected.delete(id);
    }
  },
  'mem-show-flagged': ({ id }) => {
    const details = document.getElementById('section-flagged') as HTMLDetailsElement | null;
    if (details && !details.open) {
      details.open = true;
      view.open.flagged = true;
      saveView();
    }
    const card = document.querySelector(`${cardSelector(id, 'flagged')}`);
    card?.scrollIntoView({ block: 'start' });
    const target = card?.querySelector('[data-action="mem-reviewed"]') as HTMLElement | null;
    if (target) void focusWhenReady(target, { preventScroll: true });
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

/** Enter in the "What is wrong?" field submits it. True when it was that field. */
export function onInlineEnter(ev: KeyboardEvent, t: Control): boolean {
  if (t.dataset?.field !== 'reason' || ev.key !== 'Enter' || ev.shiftKey || ev.isComposing) return false;
  const save = closest(t, '.inline')?.querySelector('[data-action="mem-flag-save"]') as HTMLElement | null;
  if (!save) return false;
  ev.preventDefault();
  save.click();
  return true;
}
