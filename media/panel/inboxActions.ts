// What a person does in the decision inbox, by mouse or by keyboard: approve, edit then approve, reject with
// an optional reason, merge into an existing entry, "Reviewed — not a threat" on a flagged item, and approve or
// reject a selection. Keys on an item (or on one of its buttons): ↑ ↓ Home End move, Space selects, A E R M act,
// Shift+A / Shift+R act on the selection, Esc clears it; in an open part Esc cancels and gives focus back to the
// item. After an item leaves the inbox, focus goes to the next one (else the previous, else the "nothing waits"
// line); a refused item keeps focus and says why on its card.
import { closest, type ActionContext, type Actions, type Control } from './dom';
import { announce } from './feedback';
import { focusWhenReady } from './focus';
import { afterRemoval, allRows, card, focusItemAfterReload, inbox, itemSelector, loadInbox, loadMore, moveTo, neighbour, renderInbox, renderToolbar, rowById } from './inboxView';
import { approvable, groupKey, type InboxPart } from './inboxRender';
import { failureReason, request } from './panelRpc';

const title = (id: string) => rowById(id)?.entry.title ?? id;
const quoted = (id: string) => `“${title(id)}”`;

/** Runs a request; a failure is said (error box and live region) and answered as undefined. */
async function attempt<T>(what: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; reason: string | undefined; message: string }> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    announce(`${what} failed: ${message}`);
    return { ok: false, reason: failureReason(err), message };
  }
}

/** Focuses a control inside the item's card once its custom element has rendered. */
function focusInCard(id: string, selector: string): void {
  const el = document.querySelector(`${itemSelector(id)} ${selector}`);
  if (el instanceof HTMLElement) void focusWhenReady(el);
}

/** A single-item action started: what the last bulk action said is stale now. */
function clearStatus(): void {
  inbox.status = '';
}

function say(id: string, notice: string): void {
  inbox.notices.set(id, notice);
  announce(notice);
}

/** Why a flagged item's Approve waits; focus goes to the button that lifts it. */
function refuseFlagged(id: string): void {
  say(id, `${quoted(id)} reads as an instruction and is withheld: look at the matched text, then choose “Reviewed — not a threat” (or edit it) before approving.`);
  renderInbox();
  focusInCard(id, '[data-action="inbox-reviewed"]');
}

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

// ---- the selection ----

function setSelected(id: string, on: boolean): void {
  if (on) inbox.selected.add(id);
  else inbox.selected.delete(id);
  const el = card(id);
  if (el) {
    el.classList.toggle('selected', on);
    const box = el.querySelector('input[data-action="inbox-select"]') as HTMLInputElement | null;
    if (box) box.checked = on;
    const label = (el.getAttribute('aria-label') ?? '').replace(/ — selected$/, '');
    el.setAttribute('aria-label', on ? `${label} — selected` : label);
  }
}

function toggle(id: string): void {
  setSelected(id, !inbox.selected.has(id));
  if (inbox.selected.size === 0) inbox.bulkReject = undefined;
  renderToolbar();
  announce(`${inbox.selected.has(id) ? 'Selected' : 'Unselected'} ${quoted(id)}: ${inbox.selected.size} selected`);
}

function clearSelection(): void {
  if (inbox.selected.size === 0) return;
  clearStatus();
  for (const id of [...inbox.selected]) setSelected(id, false);
  inbox.bulkReject = undefined;
  renderToolbar();
  announce('Selection cleared');
}

/** Said after a bulk action: what was done, and each refusal by title. */
function bulkStatus(verb: string, done: number, refused: { id: string; message: string }[]): string {
  const head = `${verb} ${done} ${done === 1 ? 'item' : 'items'}.`;
  if (refused.length === 0) return head;
  return `${head} Not ${verb.toLowerCase()} (still selected): ${refused.map((x) => `${quoted(x.id)} — ${x.message}`).join(' ')}`;
}

type BulkAnswer = { done: { id: string }[]; refused: { id: string; message: string }[] };

/** The protocol takes at most 1,000 ids a request: a larger selection (a whole group) goes in turns, answered as one. */
async function inTurns(ids: readonly string[], call: (ids: string[]) => Promise<BulkAnswer>): Promise<BulkAnswer> {
  const out: BulkAnswer = { done: [], refused: [] };
  for (let i = 0; i < ids.length; i += 1000) {
    const r = await call(ids.slice(i, i + 1000));
    out.done.push(...r.done);
    out.refused.push(...r.refused);
  }
  return out;
}

/**
 * One bulk action: the request, then its outcome said once — failed (in the toolbar), or done and refused (each
 * refused card says why) — and focus on the item after those that left. Answers whether the request went through.
 */
async function runBulk(label: string, verb: string, call: () => Promise<BulkAnswer>): Promise<boolean> {
  const r = await attempt(label, call);
  if (!r.ok) {
    inbox.status = `${label} failed: ${r.message}`;
    renderToolbar();
    return false;
  }
  const done = new Set(r.value.done.map((e) => e.id));
  for (const x of r.value.refused) inbox.notices.set(x.id, `Not ${verb.toLowerCase()}: ${x.message}`);
  inbox.status = bulkStatus(verb, done.size, r.value.refused);
  announce(inbox.status);
  await focusItemAfterReload(afterRemoval(done, inbox.active));
  return true;
}

/** "Accept all from the repository" of one folder: flagged ones are refused and say why on their card. */
async function acceptRepository(folder: string): Promise<void> {
  if (!folder) return;
  clearStatus();
  await runBulk('Accept all from the repository', 'Accepted', () => request('inbox/acceptRepository', { folder }));
}

async function bulkApprove(): Promise<void> {
  const ids = [...inbox.selected];
  if (ids.length === 0) {
    announce('Nothing selected: Space selects the item in focus.');
    return;
  }
  await runBulk('Approve selected', 'Approved', () => inTurns(ids, (part) => request('inbox/approve', { ids: part })));
}

function openBulkReject(): void {
  if (inbox.selected.size === 0) {
    announce('Nothing selected: Space selects the item in focus.');
    return;
  }
  inbox.bulkReject = { reason: '' };
  renderToolbar();
  const field = document.getElementById('inbox-bulk-reason');
  if (field) void focusWhenReady(field);
}

async function bulkReject(): Promise<void> {
  const ids = [...inbox.selected];
  if (ids.length === 0) return;
  const reason = inbox.bulkReject?.reason.trim() ?? '';
  // The reason field closes once the request went through, before the outcome is rendered.
  await runBulk('Reject selected', 'Rejected', async () => {
    const answer = await inTurns(ids, (part) => request('inbox/reject', { ids: part, ...(reason ? { reason } : {}) }));
    inbox.bulkReject = undefined;
    return answer;
  });
}

function closeBulkReject(): void {
  inbox.bulkReject = undefined;
  renderToolbar();
  if (inbox.active) moveTo(inbox.active);
}

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
