// The inbox's selection and what is done to it: select, toggle, clear, approve or reject the
// selection (in turns of 1,000 ids), accept a folder's repository items; each outcome said once, refusals on their cards.
import { announce } from './feedback';
import { focusWhenReady } from './focus';
import { afterRemoval, card, focusItemAfterReload, inbox, moveTo, renderToolbar } from './inboxView';
import { request } from './panelRpc';
import { attempt, clearStatus, quoted } from './inboxNotices';

export function setSelected(id: string, on: boolean): void {
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

export function toggle(id: string): void {
  setSelected(id, !inbox.selected.has(id));
  if (inbox.selected.size === 0) inbox.bulkReject = undefined;
  renderToolbar();
  announce(`${inbox.selected.has(id) ? 'Selected' : 'Unselected'} ${quoted(id)}: ${inbox.selected.size} selected`);
}

export function clearSelection(): void {
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
export async function acceptRepository(folder: string): Promise<void> {
  if (!folder) return;
  clearStatus();
  await runBulk('Accept all from the repository', 'Accepted', () => request('inbox/acceptRepository', { folder }));
}

export async function bulkApprove(): Promise<void> {
  const ids = [...inbox.selected];
  if (ids.length === 0) {
    announce('Nothing selected: Space selects the item in focus.');
    return;
  }
  await runBulk('Approve selected', 'Approved', () => inTurns(ids, (part) => request('inbox/approve', { ids: part })));
}

export function openBulkReject(): void {
  if (inbox.selected.size === 0) {
    announce('Nothing selected: Space selects the item in focus.');
    return;
  }
  inbox.bulkReject = { reason: '' };
  renderToolbar();
  const field = document.getElementById('inbox-bulk-reason');
  if (field) void focusWhenReady(field);
}

export async function bulkReject(): Promise<void> {
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

export function closeBulkReject(): void {
  inbox.bulkReject = undefined;
  renderToolbar();
  if (inbox.active) moveTo(inbox.active);
}
