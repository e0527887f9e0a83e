// Dropdowns that fit: a vscode-single-select opens its list below itself by default, and near the bottom
// of the panel the webview's edge cut it off. Just before one opens (a click or a key on it), it is told
// to open above when there is not room for its list below and there is more room above.
import { closest } from './dom';

/** vscode-elements' option height and the most options its list shows at once (VISIBLE_OPTS, OPT_HEIGHT). */
const OPTION_HEIGHT = 22;
const VISIBLE_OPTIONS = 10;
/** Borders and the description line under the options. */
const LIST_CHROME = 30;
const OPENING_KEYS = new Set(['Enter', ' ', 'ArrowDown', 'ArrowUp', 'Alt']);

type Select = HTMLElement & { open?: boolean; position?: 'above' | 'below' };

/** Sets `position` from the room below and above the select in the viewport. */
export function placeDropdown(select: Select): void {
  const options = Math.max(1, Math.min(VISIBLE_OPTIONS, select.querySelectorAll('vscode-option').length));
  const need = options * OPTION_HEIGHT + LIST_CHROME;
  const r = select.getBoundingClientRect();
  const below = document.documentElement.clientHeight - r.bottom;
  const above = r.top;
  select.position = below < need && above > below ? 'above' : 'below';
}

/** Installs the capture-phase listeners that place a dropdown before its own handlers open it. */
export function fitDropdowns(): void {
  const before = (ev: Event) => {
    const select = closest(ev.target, 'vscode-single-select') as Select | null;
    if (!select || select.open) return;
    if (ev instanceof KeyboardEvent && !OPENING_KEYS.has(ev.key)) return;
    placeDropdown(select);
  };
  document.addEventListener('click', before, true);
  document.addEventListener('keydown', before, true);
}
