// The collapsible frame each section sits in (`#section-<id>`): its title, its count badge, and whether it
// is open, remembered in the view state.
import { h } from './render';
import { saveView, view } from './store';

export function section(id: 'sessions' | 'memory' | 'flagged', title: string, count: number | undefined, ...children: Node[]): HTMLElement {
  const details = h('details', { id: `section-${id}`, open: view.open[id] }) as HTMLDetailsElement;
  details.append(h('summary', {}, h('h2', {}, title, count !== undefined ? ' ' : '', count !== undefined ? h('vscode-badge', { variant: 'counter', 'aria-label': `${count}` }, String(count)) : '')));
  details.append(h('div', { class: 'section-body' }, ...children));
  details.addEventListener('toggle', () => {
    view.open[id] = details.open;
    saveView();
  });
  return details;
}
