// The whole panel: the header (memory switch, refresh), the error box, problems and the three sections,
// rebuilt on each host state keeping focus; and the panel-wide refresh, dismiss-error and switch.
import type { PanelState } from '../../src/shared/panelProtocol';
import type { Actions, Control } from './dom';
import { act, dismissError, errorBox } from './feedback';
import { flaggedSection } from './flaggedView';
import { keepingFocus } from './focus';
import { inbox, inboxSection, loadInbox, renderInboxNow } from './inboxView';
import { loadPage, renderMemoryListNow } from './memoryList';
import { memorySection } from './memorySection';
import { button, h } from './render';
import { request } from './panelRpc';
import { sessionsSection } from './sessionsView';
import { panel } from './panelStore';

export function render(): void {
  const app = document.getElementById('app');
  if (!app || !panel.state) return;
  const s = panel.state;
  app.removeAttribute('aria-busy');
  const header = h(
    'header',
    { class: 'panel-header' },
    h('vscode-checkbox', { id: 'memory-switch', toggle: true, checked: s.memory.on, label: 'Agent memory', 'aria-label': s.memory.on ? 'Agent memory is on — turn it off' : 'Agent memory is off — turn it on' }),
    h('p', { class: 'muted', id: 'memory-switch-help' }, s.memory.on ? 'On: the agent may remember, and approved memory is indexed in each session.' : 'Memory is off: nothing is remembered and no memory reaches the agent. Turn the switch on to review and manage memory here.'),
    button('', { icon: 'refresh', secondary: true, action: 'refresh', label: 'Refresh the panel' }),
  );
  const problems = s.problems.length > 0 ? h('div', { class: 'problems', role: 'alert' }, ...s.problems.map((p) => h('p', { class: 'error' }, p))) : '';

  const parts: Node[] = [header, errorBox()];
  if (problems) parts.push(problems);
  // The inbox first: it is what waits for the person.
  const inboxShown = s.memory.on && s.memory.available;
  if (inboxShown) parts.push(inboxSection(s));
  parts.push(sessionsSection(s));
  if (s.memory.on) parts.push(memorySection(s));
  parts.push(flaggedSection(s));
  // A live update rebuilds everything: the focused control (a half-typed search, an inline edit) is found
  // again by its key and keeps its text, focus and caret.
  keepingFocus(() => {
    app.replaceChildren(...parts);
    if (inboxShown) renderInboxNow();
    if (s.memory.on) renderMemoryListNow();
  });
}

/** The host's state arrived: show it, and load the first memory page if there is none yet. */
export function showState(state: PanelState): void {
  panel.state = state;
  render();
  if (state.memory.on && state.memory.available && !panel.page) void loadPage();
  if (state.memory.on && state.memory.available && !inbox.page) void loadInbox();
  if (!state.memory.on) inbox.page = undefined;
}

export const panelActions: Actions = {
  refresh: () =>
    act('Refresh', async () => {
      const state = await request('state/get', {});
      panel.state = state;
      render();
      if (state.memory.on) await Promise.all([loadPage(), loadInbox()]);
    }),
  'dismiss-error': dismissError,
};

/** The memory switch flipped. True when it was the switch. */
export function onSwitchChange(t: Control): boolean {
  if (t.id !== 'memory-switch') return false;
  const on = Boolean(t.checked);
  void act('Memory switch', async () => {
    await request('memory/setOn', { on });
    panel.page = undefined;
  }, on ? 'Agent memory is on' : 'Agent memory is off');
  return true;
}
