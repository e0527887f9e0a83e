/**
 * DOM builders of the decision inbox: one card per waiting item (a distilled proposal, or an entry an agent
 * wrote or an import brought), grouped by session. Like render.ts, every stored string — titles, bodies,
 * rationales, diff chunks, rule messages, session labels, model names — becomes a text node; a diff's inserted
 * and deleted words are `<ins>`/`<del>` elements made with `document.createElement`, never markup from data.
 * The bench renders the inbox with these same functions (`renderInboxGroups`).
 */
import type { InboxGroupView, InboxItemRow, MergeTarget } from '../../src/shared/panelProtocol';
import type { DiffChunk, FieldDiff } from '../../src/shared/inboxSchemas';
import { appendMarked, badge, button, folderBadge, h, icon, withheldWarning } from './render';
import { countsBySource, itemSource } from './inboxSources';
import { SOURCE_TEXT } from '../../src/shared/memorySource';

/** Items per inbox page, as the memory list's page: the first page shows first, the next ones as the person scrolls. */
export const INBOX_PAGE = 50;

/** The keys of the inbox, shown once above the list and named on every item (`aria-keyshortcuts`). */
export const INBOX_KEYS: readonly [string, string][] = [
  ['↑ ↓', 'move'],
  ['Home End', 'first, last'],
  ['Space', 'select'],
  ['A', 'approve'],
  ['E', 'edit, then approve'],
  ['R', 'reject'],
  ['M', 'merge'],
  ['Shift+A', 'approve selected'],
  ['Shift+R', 'reject selected'],
  ['Esc', 'cancel'],
];

/** The inline part open on one item (at most one in the inbox at a time). */
export type InboxPart =
  | { kind: 'edit'; id: string; title: string; body: string; tags: string; asNew: boolean; error?: string }
  | { kind: 'reject'; id: string; reason: string }
  | { kind: 'merge'; id: string; query: string; targets: MergeTarget[] | null; active: number; error?: string };

export interface InboxUi {
  warning: string;
  selected: ReadonlySet<string>;
  /** The item in the tab order (roving focus); the others are reached with the arrow keys. */
  active: string | undefined;
  part: InboxPart | undefined;
  /** A line said on one item after an action (a refusal, why Approve waits). */
  notices: ReadonlyMap<string, string>;
}

/** One formatter for every card (`toLocaleString` builds a new one per call: a tenth of a 1k inbox's render). */
const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });

const KIND_TEXT = { new: 'new', update: 'update', conflict: 'conflict' } as const;

/** What an item is, in words: "proposal (update)", "entry from an agent", "entry from an import". */
export function itemKind(row: InboxItemRow): string {
  if (row.origin === 'repository') return 'from the repository';
  if (row.origin === 'proposal') return `proposal (${KIND_TEXT[row.entry.proposal?.kind ?? 'new']})`;
  return `entry ${SOURCE_TEXT[itemSource(row)]}`;
}

/** Whether Approve may be offered: an item that reads as an instruction waits for "Reviewed — not a threat". */
export function approvable(row: InboxItemRow): boolean {
  return !row.entry.flagged;
}

/** The key a group's "Select" button and section carry: its session, or its repository folder. */
export function groupKey(g: Pick<InboxGroupView, 'sessionKey' | 'repository'>): string {
  return g.repository ? `repository:${g.repository.folder}` : (g.sessionKey ?? '');
}

/** The session a group stands for, for people. */
export function groupName(g: Pick<InboxGroupView, 'sessionKey' | 'label' | 'repository'>): string {
  if (g.repository) return `From the repository (${g.repository.folder})`;
  if (g.sessionKey === null) return 'No session';
  return g.label ? `Session “${g.label}”` : `Session ${g.sessionKey}`;
}

/** Where the item came from: distilled from session X, turn N, by model M — or who wrote it. */
function provenanceLine(row: InboxItemRow, sessionName: string): HTMLElement {
  const e = row.entry;
  const from = e.proposal?.distilledFrom ?? e.provenance.distilledFrom;
  const line = h('p', { class: 'entry-meta muted inbox-provenance' });
  if (row.origin === 'repository') {
    // The committed line's approval is the team's claim: it counts for this person only once they accept it.
    const claim = e.repositoryClaim;
    line.append(icon('repo'), ` Approved by ${claim?.approvedBy ?? e.provenance.identity} in the repository — not by you yet; it reaches no model until you accept it`);
  } else if (from) {
    line.append(icon('sparkle'), ' Distilled from ', h('span', { class: 'prov-session' }, sessionName), ', turn ', h('span', { class: 'prov-turn' }, String(from.turn)), ', by model ', h('code', { class: 'prov-model' }, from.model));
  } else if (row.origin === 'import') {
    line.append(icon('cloud-download'), ` Imported by ${e.provenance.identity}`);
  } else {
    line.append(icon('hubot'), ` Written by ${e.provenance.identity} (${e.provenance.sourceKind})${e.provenance.sessionKey ? ` in ${sessionName}` : ''}`);
  }
  const at = new Date(e.createdAt);
  line.append(` — ${Number.isNaN(at.getTime()) ? e.createdAt : DATE.format(at)}`);
  return line;
}

/**
 * The chunks as people read a change: within each run of changes, what goes before what comes, and the single
 * spaces the word diff matched between changed words kept inside the change ("[-Every service keeps][+One file
 * has]", not "[+One][-Every] [+file][-service] …"). Joining either side still gives that side back.
 */
export function readableChunks(chunks: readonly DiffChunk[]): DiffChunk[] {
  const out: DiffChunk[] = [];
  let removed = '';
  let added = '';
  const flush = () => {
    if (removed) out.push({ op: 'delete', text: removed });
    if (added) out.push({ op: 'insert', text: added });
    removed = added = '';
  };
  chunks.forEach((c, k) => {
    if (c.op === 'delete') removed += c.text;
    else if (c.op === 'insert') added += c.text;
    else if ((removed || added) && /^\s+$/.test(c.text) && chunks[k + 1] !== undefined && chunks[k + 1]!.op !== 'equal') {
      removed += c.text;
      added += c.text;
    } else {
      flush();
      out.push(c);
    }
  });
  flush();
  return out;
}

/** Word chunks as text, the inserted ones in `<ins>`, the deleted ones in `<del>` (with words for screen readers). */
export function appendChunks(el: HTMLElement, chunks: readonly DiffChunk[]): HTMLElement {
  for (const c of readableChunks(chunks)) {
    if (c.op === 'equal') {
      el.append(document.createTextNode(c.text));
      continue;
    }
    const mark = document.createElement(c.op === 'insert' ? 'ins' : 'del');
    mark.className = c.op === 'insert' ? 'diff-insert' : 'diff-delete';
    const said = document.createElement('span');
    said.className = 'visually-hidden';
    said.textContent = c.op === 'insert' ? '[added] ' : '[removed] ';
    mark.append(said, document.createTextNode(c.text));
    el.append(mark);
  }
  return el;
}

/** One field's change: its chunks, or the whole before (deleted) and after (inserted). */
function fieldDiff(d: FieldDiff): HTMLElement {
  const row = h('div', { class: 'diff-field', 'data-diff-field': d.field });
  row.append(h('span', { class: 'diff-name' }, d.field));
  const text = h('p', { class: 'diff-text' });
  if (d.chunks && d.chunks.length > 0) appendChunks(text, d.chunks);
  else appendChunks(text, [...(d.before ? [{ op: 'delete' as const, text: d.before }] : []), ...(d.before && d.after ? [{ op: 'equal' as const, text: ' → ' }] : []), ...(d.after ? [{ op: 'insert' as const, text: d.after }] : [])]);
  row.append(text);
  return row;
}

/** An update's or a conflict's target and the diff against it. */
function targetBox(row: InboxItemRow): HTMLElement | null {
  const kind = row.entry.proposal?.kind;
  if (row.origin !== 'proposal' || (kind !== 'update' && kind !== 'conflict')) return null;
  const box = h('div', { class: `inbox-target inbox-${kind}`, role: 'group' });
  const t = row.target;
  if (!t) {
    box.setAttribute('aria-label', 'The entry it named is gone');
    box.append(h('p', { class: 'muted' }, icon('info'), ` The entry it ${kind === 'update' ? 'restates' : 'contradicts'} is no longer stored: approving adds this as a new entry.`));
    return box;
  }
  if (kind === 'conflict') {
    box.setAttribute('aria-label', `Contradicts the decision ${t.title}`);
    box.append(h('p', { class: 'inbox-target-title' }, icon('warning'), ' Contradicts the approved decision ', h('strong', { class: 'target-title' }, `“${t.title}”`), ':'));
    if (t.body) box.append(h('blockquote', { class: 'target-body' }, t.body));
    box.append(h('p', { class: 'muted hint' }, 'Approving it supersedes that decision, recording this session as the one that did.'));
  } else {
    box.setAttribute('aria-label', `Changes to ${t.title}`);
    box.append(h('p', { class: 'inbox-target-title' }, icon('diff'), ' Updates ', h('strong', { class: 'target-title' }, `“${t.title}”`), ` (${t.scope}, ${t.trust.state}):`));
  }
  if (row.targetChanged) box.append(h('p', { class: 'muted hint' }, `“${t.title}” changed since this was proposed: the changes below are against it as it is now.`));
  if (row.diff && row.diff.length > 0) box.append(h('div', { class: 'diff', role: 'group', 'aria-label': `Changes from “${t.title}” to the proposal` }, ...row.diff.map(fieldDiff)));
  else if (kind === 'update') box.append(h('p', { class: 'muted' }, 'Same text as the entry: approving only refreshes it.'));
  if (kind === 'update') box.append(h('p', { class: 'muted hint' }, 'Approving it supersedes that entry.'));
  return box;
}

function keyHint(text: string): HTMLElement {
  return h('kbd', { class: 'key', 'aria-hidden': 'true' }, text);
}

/** A button with its shortcut shown beside its text (the key is named in the accessible name's description). */
function keyed(text: string, key: string, opts: Parameters<typeof button>[1]): HTMLElement {
  const b = button(text, opts);
  b.append(keyHint(key));
  b.setAttribute('aria-keyshortcuts', key);
  b.title = `${opts?.label ?? text} (${key})`;
  return b;
}

function inlinePart(row: InboxItemRow, part: InboxPart): HTMLElement {
  const title = row.entry.title;
  if (part.kind === 'edit') {
    const kind = row.entry.proposal?.kind;
    return h(
      'div',
      { class: 'inline', role: 'group', 'aria-label': `Edit ${title}, then approve` },
      h('label', { class: 'field' }, 'Title', h('vscode-textfield', { 'data-field': 'title', value: part.title, maxlength: 80, label: 'Title', 'aria-label': 'Title' })),
      h('label', { class: 'field' }, 'Body', h('vscode-textarea', { 'data-field': 'body', value: part.body, rows: 4, label: 'Body', 'aria-label': 'Body' })),
      h('label', { class: 'field' }, 'Tags (comma-separated)', h('vscode-textfield', { 'data-field': 'tags', value: part.tags, label: 'Tags', 'aria-label': 'Tags' })),
      row.target && (kind === 'update' || kind === 'conflict')
        ? h('label', { class: 'check' }, h('input', { type: 'checkbox', 'data-field': 'asNew', checked: part.asNew }), ` Approve as a new entry (leave “${row.target.title}” as it is)`)
        : '',
      part.error ? h('p', { class: 'error', role: 'alert' }, part.error) : '',
      h(
        'div',
        { class: 'actions' },
        keyed('Approve as edited', 'Ctrl+Enter', { icon: 'check', action: 'inbox-edit-save', label: `Approve ${title} as edited` }),
        keyed('Cancel', 'Esc', { secondary: true, action: 'inbox-cancel', label: 'Cancel the edit' }),
      ),
    );
  }
  if (part.kind === 'reject') {
    return h(
      'div',
      { class: 'inline', role: 'group', 'aria-label': `Reject ${title}` },
      h('label', { class: 'field' }, 'Why? (optional, kept with the item)', h('vscode-textfield', { 'data-field': 'reason', value: part.reason, maxlength: 500, label: 'Reason for rejecting (optional)', 'aria-label': 'Reason for rejecting (optional)' })),
      h(
        'div',
        { class: 'actions' },
        keyed('Reject', 'Enter', { icon: 'close', action: 'inbox-reject-confirm', label: `Confirm: reject ${title}` }),
        keyed('Cancel', 'Esc', { secondary: true, action: 'inbox-cancel', label: 'Cancel rejecting' }),
      ),
    );
  }
  const listId = 'inbox-merge-list';
  const box = h('div', { class: 'inline merge', role: 'group', 'aria-label': `Merge ${title} into an existing entry` });
  const active = part.targets?.[part.active];
  box.append(
    h(
      'label',
      { class: 'field' },
      'Merge into (type to search; ↑ ↓ choose, Enter merges)',
      h('input', {
        type: 'text',
        class: 'text-input',
        'data-field': 'merge-query',
        value: part.query,
        role: 'combobox',
        'aria-expanded': 'true',
        'aria-controls': listId,
        'aria-autocomplete': 'list',
        'aria-activedescendant': active ? `inbox-merge-opt-${part.active}` : undefined,
        'aria-label': 'Search the entry to merge into',
        autocomplete: 'off',
        spellcheck: 'false',
      }),
    ),
  );
  box.append(mergeOptions(part));
  if (part.error) box.append(h('p', { class: 'error', role: 'alert' }, part.error));
  box.append(
    h(
      'div',
      { class: 'actions' },
      keyed(active ? `Merge into “${active.title}”` : 'Merge', 'Enter', { icon: 'merge', action: 'inbox-merge-confirm', label: active ? `Confirm: merge ${title} into ${active.title}` : 'Merge', disabled: !active }),
      keyed('Cancel', 'Esc', { secondary: true, action: 'inbox-cancel', label: 'Cancel merging' }),
    ),
  );
  return box;
}

/** The merge candidates as a listbox (the combobox's popup, always shown). */
export function mergeOptions(part: Extract<InboxPart, { kind: 'merge' }>): HTMLElement {
  const list = h('ul', { id: 'inbox-merge-list', class: 'merge-options', role: 'listbox', 'aria-label': 'Entries to merge into' });
  if (part.targets === null) {
    list.append(h('li', { class: 'muted', role: 'presentation' }, 'Searching…'));
    return list;
  }
  if (part.targets.length === 0) list.append(h('li', { class: 'muted', role: 'presentation' }, 'No live entry matches. Only approved entries that are not themselves waiting can take a merge.'));
  part.targets.forEach((t, i) => {
    list.append(
      h(
        'li',
        { id: `inbox-merge-opt-${i}`, role: 'option', class: `merge-option${i === part.active ? ' active' : ''}`, 'aria-selected': i === part.active ? 'true' : 'false', 'data-action': 'inbox-merge-pick', 'data-index': i, 'data-target': t.id },
        h('span', { class: 'entry-title' }, t.title),
        ' ',
        h('span', { class: 'muted' }, `${t.scope} · ${t.type}`),
      ),
    );
  });
  return list;
}

/** One waiting item. The card is the roving focus stop; its `data-id` is the entry's id. */
export function inboxItemCard(row: InboxItemRow, ui: InboxUi, sessionName: string): HTMLElement {
  const e = row.entry;
  const active = ui.active === e.id;
  const selected = ui.selected.has(e.id);
  const kind = itemKind(row);
  const card = h('article', {
    class: `entry inbox-item${e.flagged ? ' flagged' : ''}${selected ? ' selected' : ''}`,
    'data-where': 'inbox',
    'data-id': e.id,
    'data-revision': e.revision,
    'data-origin': row.origin,
    'data-kind': e.proposal?.kind ?? row.origin,
    tabindex: active ? 0 : -1,
    'aria-label': `${kind}: ${e.title}${e.flagged ? ' — flagged, withheld' : ''}${selected ? ' — selected' : ''}`,
    'aria-describedby': 'inbox-keys',
    'aria-keyshortcuts': 'A E R M Space Shift+A Shift+R',
  });
  const head = h('div', { class: 'entry-head' });
  head.append(h('input', { type: 'checkbox', class: 'select', 'data-action': 'inbox-select', checked: selected, tabindex: -1, 'aria-label': `Select ${e.title}`, title: 'Select (Space)' }));
  head.append(h('span', { class: 'entry-title' }, e.title));
  head.append(badge(e.type, 'type'), badge(row.origin === 'proposal' ? (e.proposal?.kind ?? 'new') : row.origin === 'repository' ? 'from the repository' : itemSource(row), `kind-${e.proposal?.kind ?? row.origin}`), badge(e.scope, 'scope'), ...folderBadge(e));
  if (e.flagged) head.append(badge('flagged', 'flagged'));
  if (e.reviewed) head.append(badge('reviewed', 'reviewed'));
  card.append(head);
  if (e.flagged) card.append(withheldWarning(ui.warning, [...new Set(e.findings.map((f) => f.ruleId))], row.spans, Boolean(e.body)));
  else if (e.reviewed && e.findings.length > 0) card.append(h('p', { class: 'muted hint' }, icon('pass'), ` Marked “Reviewed — not a threat” (${[...new Set(e.findings.map((f) => f.ruleId))].join(', ')} matched).`));
  if (e.body) card.append(appendMarked(h('p', { class: 'entry-body' }), e.body, e.flagged ? e.findings.filter((f) => f.field === 'body') : []));
  if (e.tags.length > 0) card.append(h('p', { class: 'entry-meta muted' }, `tags: ${e.tags.join(', ')}`));
  const rationale = e.proposal?.rationale;
  if (rationale) card.append(h('div', { class: 'rationale' }, h('span', { class: 'rationale-label muted' }, 'Why, from the conversation:'), h('blockquote', { class: 'rationale-text' }, rationale)));
  const target = targetBox(row);
  if (target) card.append(target);
  card.append(provenanceLine(row, sessionName));

  const can = approvable(row);
  const buttons = h('div', { class: 'actions', role: 'group', 'aria-label': `Actions on ${e.title}` });
  buttons.append(
    row.origin === 'repository'
      ? keyed('Accept', 'A', { icon: 'check', action: 'inbox-approve', label: `Accept ${e.title} from the repository`, disabled: !can })
      : keyed('Approve', 'A', { icon: 'check', action: 'inbox-approve', label: `Approve ${e.title}`, disabled: !can }),
    keyed('Edit', 'E', { icon: 'edit', secondary: true, action: 'inbox-edit', label: `Edit ${e.title}, then approve` }),
    keyed('Reject', 'R', { icon: 'close', secondary: true, action: 'inbox-reject', label: `Reject ${e.title}` }),
    keyed('Merge', 'M', { icon: 'merge', secondary: true, action: 'inbox-merge', label: `Merge ${e.title} into an existing entry` }),
  );
  if (e.flagged) buttons.append(button('Reviewed — not a threat', { icon: 'pass', secondary: true, action: 'inbox-reviewed', label: `Mark ${e.title} reviewed — not a threat` }));
  // Roving focus: only the active item's buttons are in the tab order.
  if (!active) for (const b of buttons.querySelectorAll('button')) b.setAttribute('tabindex', '-1');
  card.append(buttons);
  if (!can) card.append(h('p', { class: 'hint muted' }, 'Approve waits until you look at the matched text and mark it “Reviewed — not a threat” (or edit it).'));
  const notice = ui.notices.get(e.id);
  if (notice) card.append(h('p', { class: 'inbox-notice error', role: 'alert' }, notice));
  if (ui.part?.id === e.id) card.append(inlinePart(row, ui.part));
  return card;
}

/** The groups of one inbox page into `container`: a heading per session, then its items (an ARIA feed of articles). */
export function renderInboxGroups(container: HTMLElement, groups: readonly InboxGroupView[], ui: InboxUi, total = -1): void {
  const frag = document.createDocumentFragment();
  appendGroups(frag, null, groups, ui, 0, total);
  container.replaceChildren(frag);
}

/**
 * The next page's groups after the ones `container` shows (the items before it: `shown`): a group the page continues
 * gets its items in its own feed; nothing on show is built again.
 */
export function appendInboxGroups(container: HTMLElement, groups: readonly InboxGroupView[], ui: InboxUi, shown: number, total = -1): void {
  const sections = container.querySelectorAll<HTMLElement>(':scope > section.inbox-group');
  const last = sections[sections.length - 1] ?? null;
  const frag = document.createDocumentFragment();
  appendGroups(frag, last, groups, ui, shown, total);
  container.append(frag);
}

function appendGroups(into: DocumentFragment, last: HTMLElement | null, groups: readonly InboxGroupView[], ui: InboxUi, shown: number, total: number): void {
  let position = shown;
  groups.forEach((g, i) => {
    const name = groupName(g);
    const cards = g.items.map((row) => {
      const card = inboxItemCard(row, ui, name);
      card.setAttribute('aria-posinset', String(++position));
      card.setAttribute('aria-setsize', String(total));
      return card;
    });
    const feed = i === 0 && last?.dataset.session === groupKey(g) ? last.querySelector(':scope > .inbox-items') : null;
    if (feed) feed.append(...cards);
    else into.append(groupSection(g, name, cards));
  });
}

/** A group's heading (its counts, "Select all" of the whole group, a repository's "Accept all") and its feed. */
function groupSection(g: InboxGroupView, name: string, cards: HTMLElement[]): HTMLElement {
  const c = g.counts;
  const parts = countsBySource(c);
  // The whole group, the items not on show yet too (their ids come with the page).
  const n = g.ids.length;
  const selectAll = button(n === 1 ? 'Select 1' : `Select all ${n}`, { icon: 'check-all', secondary: true, action: 'inbox-select-group', label: `Select ${n === 1 ? 'the item' : `all ${n} items`} waiting from ${name}` });
  selectAll.dataset.session = groupKey(g);
  const groupEl = h('section', { class: `inbox-group${g.repository ? ' inbox-repository' : ''}`, 'data-session': groupKey(g), 'aria-label': `${name}: ${c.total} waiting` });
  const head = h('div', { class: 'inbox-group-head' }, h('h3', {}, icon(g.repository ? 'repo' : g.sessionKey === null ? 'inbox' : 'comment-discussion'), ' ', name), h('span', { class: 'muted' }, `${c.total} waiting${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`), selectAll);
  if (g.repository) {
    const accept = button('Accept all from the repository', { icon: 'check-all', action: 'inbox-accept-repository', label: `Accept all ${c.total} from the repository of ${g.repository.folder} (flagged ones wait for a review)` });
    accept.dataset.folder = g.repository.folder;
    head.append(accept);
    groupEl.append(head, h('p', { class: 'muted hint' }, 'Committed to the repository as approved. Whoever can commit chooses these lines and the name on them, so they reach no model until you accept them.'));
  } else groupEl.append(head);
  const feed = h('div', { class: 'inbox-items', role: 'feed', 'aria-label': `Waiting from ${name}` });
  feed.append(...cards);
  groupEl.append(feed);
  return groupEl;
}
