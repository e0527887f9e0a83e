// Remember… in the memory section: a small form (type, title, body, where it is kept) that writes a person's own
// entry through the host's `memory/remember`, the same write path and trust rules as every memory write (the server
// refuses secrets and scans it; an entry that reads as an instruction is stored, flagged and withheld). What is
// typed survives live re-renders (kept here); the outcome is said under the form and in the live region.
import type { MemoryEntryView } from '../../src/shared/memorySchemas';
import { controlValue, type Actions, type Control } from './dom';
import { act, announce } from './feedback';
import { focusWhenReady } from './focus';
import { button, h } from './render';
import { request } from './panelRpc';
import { rememberedMessage } from '../../src/shared/rememberedText';

const TYPES = ['fact', 'decision', 'lesson', 'preference', 'reference'] as const;
const SCOPES = [
  ['project', 'Project (this workspace, shared through git)'],
  ['personal', 'Personal (you, in every workspace)'],
] as const;

type HandType = (typeof TYPES)[number];
type HandScope = (typeof SCOPES)[number][0];

const draft: { type: HandType; scope: HandScope; title: string; body: string } = { type: 'fact', scope: 'project', title: '', body: '' };
/** The line under the form: what happened to the last entry, or what is missing. */
let outcome: { text: string; kind: 'done' | 'flagged' | 'error' } | undefined;

function chooser(id: string, label: string, options: readonly (readonly [string, string])[], current: string): HTMLElement {
  const el = h('vscode-single-select', { id, label, 'aria-label': label, 'data-remember': id });
  for (const [value, text] of options) el.append(h('vscode-option', { value, selected: current === value }, text));
  return el;
}

/** The form, as the memory section shows it (rebuilt with the section; the draft is kept). */
export function rememberForm(): HTMLElement {
  const form = h('div', { id: 'remember', class: 'remember', role: 'group', 'aria-labelledby': 'remember-heading' });
  form.append(
    h('h3', { id: 'remember-heading' }, 'Remember something'),
    h(
      'div',
      { class: 'remember-row' },
      h('label', { class: 'field' }, 'Type', chooser('remember-type', 'Type of the entry', TYPES.map((t) => [t, t] as const), draft.type)),
      h('label', { class: 'field' }, 'Keep in', chooser('remember-scope', 'Where the entry is kept', SCOPES, draft.scope)),
    ),
    h('label', { class: 'field' }, 'Title', h('vscode-textfield', { id: 'remember-title', value: draft.title, maxlength: 80, label: 'Title of the entry', 'aria-label': 'Title of the entry (what the agent sees in its index)', invalid: outcome?.kind === 'error' && !draft.title.trim() })),
    h('label', { class: 'field' }, 'Body', h('vscode-textarea', { id: 'remember-body', value: draft.body, rows: 3, maxlength: 2000, label: 'Body of the entry', 'aria-label': 'Body of the entry (read through the memory tool)' })),
    h('div', { class: 'actions' }, button('Remember', { icon: 'add', action: 'remember', label: 'Remember this entry' })),
  );
  if (outcome) form.append(h('p', { id: 'remember-outcome', class: outcome.kind === 'done' ? 'muted' : 'error', role: outcome.kind === 'done' ? 'status' : 'alert' }, outcome.text));
  return form;
}

function redraw(): void {
  document.getElementById('remember')?.replaceWith(rememberForm());
}

function said(e: MemoryEntryView): { text: string; kind: 'done' | 'flagged' } {
  return { text: rememberedMessage(e), kind: e.flagged ? 'flagged' : 'done' };
}

export const rememberActions: Actions = {
  remember: async () => {
    draft.title = controlValue('remember-title');
    draft.body = controlValue('remember-body');
    if (!draft.title.trim()) {
      outcome = { text: 'Give the entry a title: it is what the agent sees in its memory index.', kind: 'error' };
      redraw();
      const title = document.getElementById('remember-title');
      if (title) void focusWhenReady(title);
      return;
    }
    let stored: MemoryEntryView | undefined;
    const ok = await act('Remember', async () => {
      stored = await request('memory/remember', { type: draft.type, scope: draft.scope, title: draft.title.trim(), body: draft.body });
    });
    if (ok && stored) {
      outcome = said(stored);
      announce(outcome.text);
      draft.title = '';
      draft.body = '';
    } else outcome = undefined; // the error box above the sections says why (and that nothing was stored)
    redraw();
    const title = document.getElementById('remember-title');
    if (title) void focusWhenReady(title);
  },
};

/** Typing in the form: kept across re-renders. True when it was the form. */
export function onRememberInput(t: Control): boolean {
  if (t.id === 'remember-title') draft.title = t.value ?? '';
  else if (t.id === 'remember-body') draft.body = t.value ?? '';
  else return false;
  return true;
}

/** The type or the scope chosen. True when it was the form. */
export function onRememberChange(t: Control): boolean {
  if (t.id === 'remember-type' && TYPES.includes(t.value as HandType)) draft.type = t.value as HandType;
  else if (t.id === 'remember-scope' && SCOPES.some(([s]) => s === t.value)) draft.scope = t.value as HandScope;
  else return false;
  return true;
}
