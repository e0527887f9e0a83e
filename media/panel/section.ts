// The collapsible frame each section sits in (`#section-<id>`): its title, its count badge, and whether it
// is open, remembered in the view state.
import { h } from './render';
import { saveView, view } from './panelStore';

/** A section's count: the number on its badge, and what it counts (its accessible name and tooltip). */
export interface SectionCount {
  n: number;
  label: string;
}

export function section(id: 'inbox' | 'sessions' | 'memory' | 'flagged', title: string, count: SectionCount | undefined, ...children: Node[]): HTMLElement {
  const details = h('details', { id: `section-${id}`, open: view.open[id] ?? true }) as HTMLDetailsElement;
  const counter = count ? h('vscode-badge', { variant: 'counter', 'aria-label': count.label, title: count.label }, String(count.n)) : '';
  details.append(h('summary', {}, h('h2', {}, title, count ? ' ' : '', counter)));
  details.append(h('div', { class: 'section-body' }, ...children));
  details.addEventListener('toggle', () => {
    view.open[id] = details.open;
    saveView();
  });
  return details;
}
