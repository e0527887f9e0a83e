// Entry of the knowledge panel's webview: installs the host listener and the delegated click, input and
// change handlers that route to each section's module, then says `ready` (the host posts nothing before).
import { onSwitchChange, panelActions, showState } from './app';
import { consolidateActions, onDraftInput, onSelectChange } from './consolidate';
import { actionContext, closest, type ActionContext, type Actions, type Control } from './dom';
import { draftActions } from './draft';
import { fitDropdowns } from './dropdown';
import { exchangeActions, onExchangeChange } from './exchangeView';
import { cancelItemPart, flaggedActions } from './flaggedActions';
import { loadInbox } from './inboxView';
import { inboxActions, onInboxChange, onInboxFocus, onInboxInput, onInboxKey } from './inboxActions';
import { cancelEntryPart, memoryActions, onInlineEnter, onInlineInput } from './memoryActions';
import { loadPage, pagerActions } from './memoryList';
import { onFilterChange, onSearchInput } from './memorySection';
import { listenToHost, sayReady } from './panelRpc';
import { sessionActions } from './sessionsView';
import { panel } from './panelStore';
import { onRememberChange, onRememberInput, rememberActions } from './rememberForm';

const actions = new Map<string, Actions[string]>(
  Object.entries({
    ...panelActions,
    ...sessionActions,
    ...draftActions,
    ...pagerActions,
    ...memoryActions,
    ...consolidateActions,
    ...exchangeActions,
    ...flaggedActions,
    ...inboxActions,
    ...rememberActions,
    'inline-cancel': (c: ActionContext) => (c.itemId ? cancelItemPart(c) : cancelEntryPart(c)),
  }),
);

listenToHost({
  state: showState,
  changed: () => {
    if (!panel.state?.memory.on) return;
    void loadPage();
    void loadInbox();
  },
});

// ---- events (delegated; no inline handlers) ----
document.addEventListener('click', (ev) => {
  const el = closest(ev.target, '[data-action]');
  if (!el || el.tagName === 'VSCODE-CHECKBOX' || (el instanceof HTMLInputElement && el.type === 'checkbox') || el.hasAttribute('disabled')) return;
  const c = actionContext(el.dataset.action ?? '', el);
  void actions.get(c.action)?.(c);
});

// Keep in-progress text across re-renders caused by live updates.
document.addEventListener('input', (ev) => {
  const t = ev.target as Control | null;
  if (!t) return;
  if (onSearchInput(t) || onInboxInput(t) || onRememberInput(t)) return;
  onDraftInput(t);
  onInlineInput(t);
});

// The inbox's keys (arrows, Space, A E R M, Esc); Enter submits a one-line inline field (the "What is wrong?" reason).
document.addEventListener('keydown', (ev) => {
  const t = ev.target as Control | null;
  if (!t || onInboxKey(ev)) return;
  onInlineEnter(ev, t);
});
document.addEventListener('focusin', onInboxFocus);

// Capture phase: vscode-single-select's `change` does not bubble, so a bubbling listener never saw the filters change.
document.addEventListener(
  'change',
  (ev) => {
    const t = ev.target as Control | null;
    if (!t) return;
    if (onSwitchChange(t) || onInboxChange(t) || onSelectChange(t) || onExchangeChange(t) || onRememberChange(t)) return;
    onFilterChange(t);
  },
  true,
);

fitDropdowns();

sayReady();
