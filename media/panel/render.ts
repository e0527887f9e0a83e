/**
 * DOM builders of the knowledge panel. Stored text (titles, bodies, tags, note text, rule messages) is
 * ALWAYS set with `textContent` or as a text node — never parsed as HTML — and the matched span of a
 * finding is wrapped in a `<mark>` created with `document.createElement`. The bench renders a memory page
 * with these same functions (`renderMemoryRows`).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import type { ForgetPreview, MemoryEntryRow, SpanView } from '../../src/shared/panelProtocol';
import { SOURCE_TEXT, memorySource } from '../../src/shared/memorySource';

type Attrs = Record<string, string | boolean | number | undefined>;

/** Creates an element. `text` becomes a text node; there is no way to pass markup. */
export function h<K extends string>(tag: K, attrs: Attrs = {}, ...children: (Node | string | null | undefined | false)[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

/**
 * A plain `<button>` styled with VS Code's button theme variables, with a codicon and an accessible name
 * (the visible text, or `label` when icon-only). Plain, not `vscode-button`: a memory page has ~200 of
 * them, and a custom element's start-up (shadow root, styles, a lit update) per button was the slow part
 * of showing the first page. Keyboard behaviour is the native button's (Tab, Enter, Space).
 */
export function button(text: string, opts: { icon?: string; label?: string; secondary?: boolean; action?: string; disabled?: boolean } = {}): HTMLElement {
  const el = document.createElement('button');
  el.type = 'button';
  el.className = `btn${opts.secondary ? ' secondary' : ''}${text ? '' : ' icon-only'}`;
  el.setAttribute('aria-label', opts.label ?? text);
  el.title = opts.label ?? text;
  if (opts.action) el.dataset.action = opts.action;
  if (opts.disabled) el.disabled = true;
  if (opts.icon) el.append(icon(opts.icon));
  if (text) el.append(document.createTextNode(text));
  return el;
}

/** A codicon (from dist/codicon.css): decorative unless `label` is given. */
export function icon(name: string, label?: string): HTMLElement {
  const el = document.createElement('span');
  el.className = `codicon codicon-${name}`;
  if (label) {
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', label);
  } else {
    el.setAttribute('aria-hidden', 'true');
  }
  return el;
}

export function badge(text: string, kind: string): HTMLElement {
  return h('span', { class: `tag tag-${kind}` }, text);
}

/** A project entry of a multi-root workspace: the folder whose memory.jsonl keeps it (none otherwise). */
export function folderBadge(e: { folder?: string }): HTMLElement[] {
  return e.folder !== undefined ? [h('span', { class: 'tag tag-folder', title: `In ${e.folder}/.knowledge/memory.jsonl` }, icon('folder'), ` ${e.folder}`)] : [];
}

/** `text` into `el` as text nodes, each range (UTF-16, half-open; overlapping ones merged) in a `<mark>`. */
export function appendMarked(el: HTMLElement, text: string, ranges: { start: number; end: number }[]): HTMLElement {
  const clamp = (n: number) => Math.max(0, Math.min(n, text.length));
  const sorted = ranges.map((r) => ({ start: clamp(r.start), end: clamp(Math.max(r.start, r.end)) })).sort((a, b) => a.start - b.start);
  let at = 0;
  for (const r of sorted) {
    const start = Math.max(at, r.start);
    if (r.end <= start) continue;
    el.append(document.createTextNode(text.slice(at, start)));
    const mark = document.createElement('mark');
    mark.textContent = text.slice(start, r.end);
    el.append(mark);
    at = r.end;
  }
  el.append(document.createTextNode(text.slice(at)));
  return el;
}

/** `excerpt before <mark>match</mark> after`, built from text nodes. */
export function highlighted(span: Pick<SpanView, 'text' | 'start' | 'end'>): HTMLElement {
  return appendMarked(h('blockquote', { class: 'span' }), span.text, [span]);
}

/**
 * The warning every flagged entry carries: the sentence, each rule that matched, the highlighted span.
 * `bodyShown`: the card shows its body with the matches marked, so a match in the body is not quoted again.
 */
export function withheldWarning(warning: string, rules: string[], spans: SpanView[], bodyShown = false): HTMLElement {
  const box = h('div', { class: 'withheld', role: 'note' });
  box.append(h('p', { class: 'withheld-title' }, icon('shield'), h('strong', {}, warning)));
  const ruleIds = rules.length > 0 ? rules : [...new Set(spans.map((s) => s.ruleId))];
  box.append(h('p', { class: 'rules' }, 'Rule: ', ...ruleIds.flatMap((r, i) => [i > 0 ? ', ' : '', h('code', { class: 'rule' }, r)])));
  for (const s of spans) {
    const inBody = bodyShown && s.field === 'body';
    box.append(h('p', { class: 'rule-message muted' }, `${s.ruleId} (${s.category})${s.field ? ` in the ${s.field}` : ''}: ${s.message}${inBody ? ' (marked in the body below)' : ''}`));
    if (!inBody) box.append(highlighted(s));
  }
  return box;
}

export interface RowUi {
  warning: string;
  selected: ReadonlySet<string>;
  /** The inline part open on an entry (editor, flag-wrong reason, forget preview), by id. */
  inline: ReadonlyMap<string, InlinePart>;
  /** Flagged entries shown in full in the Flagged section: the list shows them as a compact row pointing there. */
  inFlagged?: ReadonlySet<string>;
}

export type InlinePart =
  | { kind: 'edit'; title: string; body: string; tags: string }
  | { kind: 'flagWrong'; reason: string }
  | { kind: 'forget'; preview: ForgetPreview | null; error?: string };

const when = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
};

/** Whether an entry counts as active, as the scope counts do: not superseded, consolidated or archived. */
export function isActiveEntry(e: MemoryEntryRow['entry']): boolean {
  return !e.supersededBy && !e.consolidatedInto && e.status !== 'archived' && e.status !== 'superseded';
}

/** The entry another one names, by its title (resolved by the host); the id only when it is gone. */
function linked(row: MemoryEntryRow, id: string): string {
  const title = row.links?.[id];
  if (title !== undefined) return `“${title}”`;
  return row.links ? `${id} (no longer stored)` : id;
}

function entryHead(row: MemoryEntryRow, ui: RowUi, selectable: boolean): HTMLElement {
  const e = row.entry;
  const head = h('div', { class: 'entry-head' });
  if (selectable) head.append(h('input', { type: 'checkbox', class: 'select', 'data-action': 'select', checked: ui.selected.has(e.id), 'aria-label': `Select ${e.title} for consolidation`, title: 'Select for consolidation' }));
  head.append(h('span', { class: 'entry-title' }, e.title));
  if (row.badge) head.append(badge(row.badge, row.badge));
  head.append(badge(e.type, 'type'), badge(e.scope, 'scope'), ...folderBadge(e), e.repositoryClaim ? badge('from the repository', 'trust-repository') : badge(e.trust.state, `trust-${e.trust.state}`));
  if (e.status && e.status !== 'active') head.append(badge(e.status, 'status'));
  else if (!isActiveEntry(e)) head.append(badge(e.consolidatedInto ? 'consolidated' : 'superseded', 'status'));
  if (e.flagged) head.append(badge('flagged', 'flagged'));
  if (e.reviewed) head.append(badge('reviewed', 'reviewed'));
  if (e.aged) head.append(badge('aged', 'aged'));
  if (e.wrongFlags.length > 0) head.append(badge(`wrong ×${e.wrongFlags.length}`, 'wrong'));
  if (e.conflictWith) head.append(badge('sync conflict', 'conflict'));
  return head;
}

/** A flagged entry in the memory list when the Flagged section shows it in full: one line pointing there. */
function flaggedPointer(row: MemoryEntryRow, ui: RowUi): HTMLElement {
  const e = row.entry;
  return h(
    'article',
    { class: 'entry flagged compact', 'data-id': e.id, 'data-revision': e.revision, 'data-where': 'list', 'aria-label': `Flagged memory entry: ${e.title} (shown in full under Flagged)` },
    entryHead(row, ui, false),
    h('p', { class: 'pointer' }, icon('shield'), h('span', { class: 'muted' }, 'Withheld from the agent: review it in the Flagged section.'), button('Show in Flagged', { icon: 'arrow-down', secondary: true, action: 'mem-show-flagged', label: `Show ${e.title} in the Flagged section` })),
  );
}

/** One memory entry. Actions carry `data-action` and the card `data-id`; main.ts delegates the clicks. */
export function memoryRow(row: MemoryEntryRow, ui: RowUi, where: 'list' | 'flagged' = 'list'): HTMLElement {
  const e = row.entry;
  if (where === 'list' && e.flagged && ui.inFlagged?.has(e.id)) return flaggedPointer(row, ui);
  const card = h('article', { class: `entry${e.flagged ? ' flagged' : ''}`, 'data-id': e.id, 'data-revision': e.revision, 'data-where': where, 'aria-label': `Memory entry: ${e.title}` });
  card.append(entryHead(row, ui, where === 'list'));
  // The body once: a match in it is marked in place, not quoted again in the warning.
  if (e.flagged) card.append(withheldWarning(ui.warning, [...new Set(e.findings.map((f) => f.ruleId))], row.spans, Boolean(e.body)));
  if (e.body) card.append(appendMarked(h('p', { class: 'entry-body' }), e.body, e.flagged ? e.findings.filter((f) => f.field === 'body') : []));
  const meta = [`${SOURCE_TEXT[memorySource(e)]} (${e.provenance.identity})`, `updated ${when(e.updatedAt)}`];
  if (e.tags.length > 0) meta.push(`tags: ${e.tags.join(', ')}`);
  if (e.supersededBy) meta.push(`superseded by ${linked(row, e.supersededBy)}`);
  if (e.consolidatedInto) meta.push(`consolidated into ${linked(row, e.consolidatedInto)}`);
  if (e.consolidatedFrom?.length) meta.push(`consolidated from ${e.consolidatedFrom.map((id) => linked(row, id)).join(', ')}`);
  if (e.repositoryClaim) meta.push(`approved by ${e.repositoryClaim.approvedBy} in the repository, not by you yet: no model sees it until you accept it`);
  if (e.conflictWith) meta.push(`edited on two machines at once: the other revision is ${linked(row, e.conflictWith)} (both kept; keep one and forget the other)`);
  card.append(h('p', { class: 'entry-meta muted' }, meta.join(' — ')));
  for (const w of e.wrongFlags.slice(-3)) card.append(h('p', { class: 'entry-meta muted' }, `Flagged wrong by ${w.by}: ${w.reason}`));

  const actions = h('div', { class: 'actions', role: 'group', 'aria-label': `Actions on ${e.title}` });
  actions.append(button('Edit', { icon: 'edit', secondary: true, action: 'mem-edit', label: `Edit ${e.title}` }));
  // Approving a flagged entry would not clear its flag: only "Mark reviewed" does, so Approve is not offered.
  if (!e.flagged && e.trust.state !== 'approved') actions.append(button('Approve', { icon: 'check', action: 'mem-approve', label: `Approve ${e.title}` }));
  // Approved in the repository's file only (the team's claim): it reaches no model until this person accepts it.
  if (!e.flagged && e.repositoryClaim) actions.append(button('Accept', { icon: 'check', action: 'mem-approve', label: `Accept ${e.title} from the repository (approved there by ${e.repositoryClaim.approvedBy})` }));
  if (e.flagged) actions.append(button('Mark reviewed — not a threat', { icon: 'pass', secondary: true, action: 'mem-reviewed', label: `Mark ${e.title} reviewed — not a threat` }));
  actions.append(button('Flag wrong', { icon: 'report', secondary: true, action: 'mem-flag', label: `Flag ${e.title} as wrong` }));
  actions.append(button('Forget', { icon: 'trash', secondary: true, action: 'mem-forget', label: `Forget ${e.title}` }));
  card.append(actions);
  if (e.flagged) card.append(h('p', { class: 'hint muted' }, 'Approving does not clear a flag. If this text is safe, mark it reviewed: this exact content is no longer withheld, and any edit is judged again.'));

  const part = ui.inline.get(e.id);
  if (part) card.append(inlinePart(e.title, part));
  return card;
}

function inlinePart(title: string, part: InlinePart): HTMLElement {
  if (part.kind === 'edit') {
    return h(
      'div',
      { class: 'inline', role: 'group', 'aria-label': `Edit ${title}` },
      h('label', { class: 'field' }, 'Title', h('vscode-textfield', { 'data-field': 'title', value: part.title, maxlength: 80, label: 'Title', 'aria-label': 'Title' })),
      h('label', { class: 'field' }, 'Body', h('vscode-textarea', { 'data-field': 'body', value: part.body, rows: 4, label: 'Body', 'aria-label': 'Body' })),
      h('label', { class: 'field' }, 'Tags (comma-separated)', h('vscode-textfield', { 'data-field': 'tags', value: part.tags, label: 'Tags', 'aria-label': 'Tags' })),
      h('div', { class: 'actions' }, button('Save', { icon: 'save', action: 'mem-edit-save', label: `Save ${title}` }), button('Cancel', { secondary: true, action: 'inline-cancel' })),
    );
  }
  if (part.kind === 'flagWrong') {
    return h(
      'div',
      { class: 'inline', role: 'group', 'aria-label': `Flag ${title} as wrong` },
      h('label', { class: 'field' }, 'What is wrong?', h('vscode-textfield', { 'data-field': 'reason', value: part.reason, maxlength: 500, label: 'Reason it is wrong', 'aria-label': 'Reason it is wrong' })),
      h('div', { class: 'actions' }, button('Flag as wrong', { icon: 'report', action: 'mem-flag-save' }), button('Cancel', { secondary: true, action: 'inline-cancel' })),
    );
  }
  const box = h('div', { class: 'inline confirm', role: 'alertdialog', 'aria-label': `Forget ${title}?` });
  if (part.error) box.append(h('p', { class: 'error' }, part.error));
  if (!part.preview) {
    box.append(h('p', { class: 'muted' }, 'Working out what else forgetting deletes…'));
  } else {
    box.append(forgetPreview(part.preview));
    box.append(h('div', { class: 'actions' }, button('Forget permanently', { icon: 'trash', action: 'mem-forget-confirm', label: `Confirm: forget ${title} permanently` }), button('Cancel', { secondary: true, action: 'inline-cancel' })));
  }
  return box;
}

export function forgetPreview(plan: ForgetPreview): HTMLElement {
  const name = (id: string) => plan.titles[id] ?? id;
  const box = h('div', { class: 'forget-preview' });
  box.append(h('p', {}, `Deletes ${plan.deleted.length} ${plan.deleted.length === 1 ? 'entry' : 'entries'} permanently:`));
  box.append(h('ul', {}, ...plan.deleted.map((id) => h('li', {}, name(id)))));
  if (plan.restored.length > 0) {
    box.append(h('p', {}, `Restores ${plan.restored.length} ${plan.restored.length === 1 ? 'entry' : 'entries'} it had superseded:`));
    box.append(h('ul', {}, ...plan.restored.map((id) => h('li', {}, name(id)))));
  }
  return box;
}

/** Replaces `container`'s children with the rows of one memory page. */
export function renderMemoryRows(container: HTMLElement, rows: MemoryEntryRow[], ui: RowUi, where: 'list' | 'flagged' = 'list'): void {
  const frag = document.createDocumentFragment();
  for (const row of rows) frag.append(memoryRow(row, ui, where));
  container.replaceChildren(frag);
}
