// Shared state, a leaf every section imports: the VS Code API, the view state kept across hiding and reloads
// (getState/setState), the host's last state, the memory page on show, the open inline parts and the selection.
import type { MemoryPage, PanelState, PanelViewState } from '../../src/shared/panelProtocol';
import type { InlinePart, RowUi } from './render';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export const vscode = acquireVsCodeApi();
export const PAGE_SIZE = 50;
export const SCOPES = ['session', 'project', 'personal'];

function loadViewState(): PanelViewState {
  const s = vscode.getState() as Partial<PanelViewState> | undefined;
  const base: PanelViewState = { v: 1, open: { sessions: true, memory: true, flagged: true, inbox: true }, filters: {}, offset: 0, selected: [] };
  if (!s || s.v !== 1) return base;
  return {
    ...base,
    ...s,
    open: { ...base.open, ...(s.open ?? {}) },
    filters: { ...(s.filters ?? {}) },
    selected: Array.isArray(s.selected) ? s.selected.filter((x) => typeof x === 'string') : [],
    exchange: { ...(s.exchange ?? {}) },
  };
}

export const view = loadViewState();
export const saveView = () => vscode.setState(view);

/** What the host said last and the memory page on show: fields of one object, so every module sees the same. */
export const panel: {
  state: PanelState | undefined;
  page: MemoryPage | undefined;
  pageError: string | undefined;
  consolidateDraft: { title: string; body: string };
  /** Why the last Consolidate was refused (shown in the form until the title is given). */
  consolidateError: string | undefined;
} = { state: undefined, page: undefined, pageError: undefined, consolidateDraft: { title: '', body: '' }, consolidateError: undefined };

export const inline = new Map<string, InlinePart>();
export const selected = new Set<string>(view.selected);

/** Remembers the selection in the view state. */
export function saveSelection(): void {
  view.selected = [...selected];
  saveView();
}

export function rowUi(): RowUi {
  const memory = panel.state?.memory;
  const inFlagged = new Set(memory?.on ? memory.flagged.map((r) => r.entry.id) : []);
  return { warning: panel.state?.withheldWarning ?? 'Withheld from the agent — reads as an instruction', selected, inline, inFlagged };
}
