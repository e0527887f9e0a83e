// What a person does in the decision inbox, by mouse or by keyboard: approve, edit then approve, reject with
// an optional reason, merge into an existing entry, "Reviewed — not a threat" on a flagged item, and approve or
// reject a selection. Keys on an item (or on one of its buttons): ↑ ↓ Home End move, Space selects, A E R M act,
// Shift+A / Shift+R act on the selection, Esc clears it; in an open part Esc cancels and gives focus back to the
// item. After an item leaves the inbox, focus goes to the next one (else the previous, else the "nothing waits"
// line); a refused item keeps focus and says why on its card. The selection's actions are inboxSelection.ts's, what
// is said about an item inboxNotices.ts's.
import { closest, type ActionContext, type Actions, type Control } from './dom';
import { announce } from './feedback';
import {
  afterRemoval,
  allRows,
  focusItemAfterReload,
  inbox,
  loadInbox,
  loadMore,
  moveTo,
  neighbour,
  renderInbox,
  renderToolbar,
  rowById,
} from './inboxView';
import { approvable, groupKey, type InboxPart } from './inboxRender';
import { request } from './panelRpc';
import { attempt, clearStatus, focusInCard, quoted, refuseFlagged, say } from './inboxNotices';
import { acceptRepository, bulkApprove, bulkReject, clearSelection, closeBulkReject, openBulkReject, setSelected, toggle } from './inboxSelection';

// ---- one item ----

async function approveOne(id: string): Promise<void> {
  const row = rowById(id);
  if (!row) return;
  clearStatus();
  if (!approvable(row)) return refuseFlagged(id);
  const next = afterRemoval(new Set([id]), id);
  const r = await attempt('Approve', () => request('inbox/approve', { ids: [id] }));
  if (!r.ok) {
    say(id, `Not approved: ${r.message}`);
    return focusItemAfterReload(id);
  }
  const refused = r.value.refused[0];
  if (refused) {
    say(id, `Not approved: ${refused.message}`);
    return focusItemAfterReload(id);
  }
  announce(`Approved ${quoted(id)}`);
  await focusItemAfterReload(next);
}

function openPart(id: string, kind: InboxPart['kind']): void {
  const row = rowById(id);
  if (!row) return;
  clearStatus();
  inbox.notices.delete(id);
  inbox.active = id;
  const e = row.entry;
  if (kind === 'edit') inbox.part = { kind, id, title: e.title, body: e.body, tags: e.tags.join(', '), asNew: false };
  else if (kind === 'reject') inbox.part = { kind, id, reason: '' };
  else inbox.part = { kind, id, query: '', targets: null, active: 0 };
  renderInbox();
  focusInCard(id, '.inline [data-field]');
  if (kind === 'merge') void searchTargets(id, undefined);
}

/** Closes the open part and gives focus back to its item. */
function closePart(): void {
  const id = inbox.part?.id;
  inbox.part = undefined;
  renderInbox();
  if (id) moveTo(id);
}

async function saveEdit(id: string): Promise<void> {
  const part = inbox.part;
  if (part?.kind !== 'edit' || part.id !== id) return;
  if (!part.title.trim()) {
    part.error = 'Give it a title: it is what the agent sees in its index.';
    renderInbox();
    focusInCard(id, '[data-field="title"]');
    return;
  }
  const next = afterRemoval(new Set([id]), id);
  const tags = part.tags.split(',').map((t) => t.trim()).filter(Boolean);
  const r = await attempt('Approve as edited', () => request('inbox/approveEdited', { id, edits: { title: part.title.trim(), body: part.body, tags }, ...(part.asNew ? { asNew: true } : {}) }));
  if (r.ok) {
    inbox.part = undefined;
    announce(`Approved ${quoted(id)} as edited`);
    return focusItemAfterReload(next);
  }
  if (r.reason === 'flagged') {
    // The edit was saved and waits in the inbox, flagged: the card shows the rule and the matched text.
    inbox.part = undefined;
    say(id, `The edit was saved but not approved: ${r.message}`);
    return focusItemAfterReload(id);
  }
  part.error = r.message;
  renderInbox();
  focusInCard(id, '[data-field="title"]');
}

async function rejectOne(id: string): Promise<void> {
  const part = inbox.part;
  const reason = part?.kind === 'reject' && part.id === id ? part.reason.trim() : '';
  const next = afterRemoval(new Set([id]), id);
  const r = await attempt('Reject', () => request('inbox/reject', { ids: [id], ...(reason ? { reason } : {}) }));
  const refused = r.ok ? r.value.refused[0] : undefined;
  if (!r.ok || refused) {
    say(id, `Not rejected: ${r.ok ? refused!.message : r.message}`);
    return focusItemAfterReload(id);
  }
  inbox.part = undefined;
  announce(`Rejected ${quoted(id)}${reason ? ` (${reason})` : ''}`);
  await focusItemAfterReload(next);
}

let searchTimer: number | undefined;
let searchSeq = 0;
async function searchTargets(id: string, query: string | undefined): Promise<void> {
  const mine = ++searchSeq;
  const r = await attempt('Finding entries to merge into', () => request('inbox/mergeTargets', { id, ...(query !== undefined ? { query } : {}) }));
  const part = inbox.part;
  if (mine !== searchSeq || part?.kind !== 'merge' || part.id !== id) return;
  if (r.ok) {
    part.targets = r.value;
    part.active = 0;
    part.error = undefined;
  } else {
    part.targets = [];
    part.error = r.message;
  }
  renderInbox();
  const n = part.targets.length;
  announce(n === 0 ? 'No entry to merge into' : `${n} ${n === 1 ? 'entry' : 'entries'} to merge into; first: ${part.targets[0]!.title}`);
}

function pickTarget(delta: number, absolute?: number): void {
  const part = inbox.part;
  if (part?.kind !== 'merge' || !part.targets || part.targets.length === 0) return;
  part.active = absolute ?? Math.max(0, Math.min(part.targets.length - 1, part.active + delta));
  renderInbox();
  announce(part.targets[part.active]!.title);
}

async function mergeOne(id: string): Promise<void> {
  const part = inbox.part;
  if (part?.kind !== 'merge' || part.id !== id) return;
  const target = part.targets?.[part.active];
  if (!target) return;
  const next = afterRemoval(new Set([id]), id);
  const r = await attempt('Merge', () => request('inbox/merge', { id, intoId: target.id }));
  if (!r.ok) {
    part.error = r.message;
    if (r.reason === 'flagged') {
      inbox.part = undefined;
      say(id, `Not merged: ${r.message}`);
    }
    renderInbox();
    return focusItemAfterReload(id);
  }
  inbox.part = undefined;
  announce(`Merged ${quoted(id)} into “${target.title}”`);
  await focusItemAfterReload(next);
}

async function markReviewed(id: string): Promise<void> {
  const row = rowById(id);
  if (!row) return;
  const r = await attempt('Mark reviewed', () => request('memory/markReviewed', { id, revision: row.entry.revision }));
  if (!r.ok) {
    say(id, `Not marked reviewed: ${r.message}`);
    renderInbox();
    return;
  }
  inbox.notices.delete(id);
  announce(`Marked ${quoted(id)} reviewed — not a threat. It can be approved now.`);
  inbox.active = id;
  await loadInbox();
  focusInCard(id, '[data-action="inbox-approve"]');
}

// ---- the selection: inboxSelection.ts ----

export const inboxActions: Actions = {
  'inbox-approve': ({ id }) => approveOne(id),
  'inbox-edit': ({ id }) => openPart(id, 'edit'),
  'inbox-reject': ({ id }) => openPart(id, 'reject'),
  'inbox-merge': ({ id }) => openPart(id, 'merge'),
  'inbox-reviewed': ({ id }) => markReviewed(id),
  'inbox-cancel': () => closePart(),
  'inbox-edit-save': ({ id }) => saveEdit(id),
  'inbox-reject-confirm': ({ id }) => rejectOne(id),
  'inbox-merge-pick': ({ target }: ActionContext) => pickTarget(0, Number(target.dataset.index ?? 0)),
  'inbox-merge-confirm': ({ id }) => mergeOne(id),
  'inbox-accept-repository': ({ target }) => acceptRepository(target.dataset.folder ?? ''),
  'inbox-select-group': ({ target }) => {
    // The whole group: its items beyond the pages on show too (a bulk action then covers every one of them).
    const session = target.dataset.session ?? '';
    const group = inbox.page?.groups.find((g) => groupKey(g) === session);
    for (const id of group?.ids ?? []) setSelected(id, true);
    renderToolbar();
    announce(`${inbox.selected.size} selected`);
  },
  'inbox-bulk-approve': () => bulkApprove(),
  'inbox-bulk-reject': () => openBulkReject(),
  'inbox-bulk-reject-confirm': () => bulkReject(),
  'inbox-bulk-cancel': () => closeBulkReject(),
  'inbox-clear': () => clearSelection(),
  'inbox-more': async () => {
    inbox.moreError = undefined;
    const before = allRows().length;
    await loadMore();
    // Focus the first item that just appeared.
    const first = allRows()[before]?.entry.id;
    if (first) moveTo(first);
  },
};

// ---- typing and keys ----

/** Keeps what is typed in an inbox part or the bulk reason; a typed merge search asks again. True when it was one. */
export function onInboxInput(t: Control): boolean {
  if (t.id === 'inbox-bulk-reason') {
    if (inbox.bulkReject) inbox.bulkReject.reason = t.value ?? '';
    return true;
  }
  const cardEl = closest(t, '[data-where="inbox"]');
  const part = inbox.part;
  if (!cardEl || !part || cardEl.dataset.id !== part.id) return Boolean(cardEl);
  const field = t.dataset?.field;
  if (part.kind === 'edit' && (field === 'title' || field === 'body' || field === 'tags')) part[field] = t.value ?? '';
  if (part.kind === 'edit' && field === 'asNew') part.asNew = Boolean(t.checked);
  if (part.kind === 'reject' && field === 'reason') part.reason = t.value ?? '';
  if (part.kind === 'merge' && field === 'merge-query') {
    part.query = t.value ?? '';
    window.clearTimeout(searchTimer);
    const id = part.id;
    const query = part.query;
    searchTimer = window.setTimeout(() => void searchTargets(id, query), 200);
  }
  return true;
}

/** A checkbox in the inbox changed (an item's selection, "approve as new"). True when it was one. */
export function onInboxChange(t: Control): boolean {
  if (t.dataset?.action === 'inbox-select') {
    const id = closest(t, '[data-where="inbox"]')?.dataset.id;
    if (id) {
      setSelected(id, Boolean(t.checked));
      renderToolbar();
    }
    return true;
  }
  if (t.dataset?.field === 'asNew' && closest(t, '[data-where="inbox"]')) {
    onInboxInput(t);
    return true;
  }
  return false;
}

const MOVES: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10, Home: -Infinity, End: Infinity };

/** Keys in the inbox. True when the key was the inbox's (its default is then prevented). */
export function onInboxKey(ev: KeyboardEvent): boolean {
  if (ev.isComposing || ev.defaultPrevented) return false;
  const t = ev.target as HTMLElement | null;
  if (!t) return false;
  /** The key is ours: nothing else acts on it (no scroll, no typed letter, no workbench shortcut). */
  const run = (fn: () => unknown): true => {
    ev.preventDefault();
    ev.stopPropagation();
    void fn();
    return true;
  };
  if (t.id === 'inbox-bulk-reason') {
    if (ev.key === 'Enter' && !ev.shiftKey) return run(bulkReject);
    if (ev.key === 'Escape') return run(closeBulkReject);
    return false;
  }
  const cardEl = closest(t, '#inbox-list article[data-where="inbox"]');
  if (!cardEl) return false;
  const id = cardEl.dataset.id ?? '';
  const part = inbox.part?.id === id ? inbox.part : undefined;
  if (closest(t, '.inline')) {
    if (ev.key === 'Escape') return run(closePart);
    const field = t.dataset?.field;
    if (part?.kind === 'reject' && field === 'reason' && ev.key === 'Enter' && !ev.shiftKey) return run(() => rejectOne(id));
    if (part?.kind === 'merge' && field === 'merge-query') {
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') return run(() => pickTarget(ev.key === 'ArrowDown' ? 1 : -1));
      if (ev.key === 'Enter') return run(() => mergeOne(id));
    }
    if (part?.kind === 'edit' && ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) return run(() => saveEdit(id));
    return false;
  }
  // On the item, or on one of its buttons: the item's keys.
  if (t !== cardEl && !(t instanceof HTMLButtonElement)) return false;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return false;
  const move = MOVES[ev.key];
  if (move !== undefined) {
    return run(async () => {
      // Past the last item on show (not End: that is the last one on show): the next page first.
      const ids = allRows().map((r) => r.entry.id);
      if (Number.isFinite(move) && move > 0 && ids.indexOf(id) + move >= ids.length) await loadMore();
      const to = neighbour(id, move);
      if (to) moveTo(to);
    });
  }
  if (ev.key === ' ' && t === cardEl) return run(() => toggle(id));
  // Esc clears a selection, or brings focus from a button back to its item; otherwise it is VS Code's.
  if (ev.key === 'Escape' && (inbox.selected.size > 0 || t !== cardEl)) {
    return run(() => {
      clearSelection();
      if (t !== cardEl) moveTo(id);
    });
  }
  const key = ev.key.toLowerCase();
  if (key === 'a') return run(() => (ev.shiftKey ? bulkApprove() : approveOne(id)));
  if (key === 'r') return run(() => (ev.shiftKey ? openBulkReject() : openPart(id, 'reject')));
  if (ev.shiftKey) return false;
  if (key === 'e') return run(() => openPart(id, 'edit'));
  if (key === 'm') return run(() => openPart(id, 'merge'));
  return false;
}

/** Focus reached an item by Tab or a click: it becomes the one in the tab order. */
export function onInboxFocus(ev: FocusEvent): void {
  const cardEl = closest(ev.target, '#inbox-list article[data-where="inbox"]');
  const id = cardEl?.dataset.id;
  if (id && id !== inbox.active) moveTo(id, { focus: false });
}
