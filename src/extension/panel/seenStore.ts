/**
 * "New" and "changed" badges: what the person last looked at, kept in the extension's globalState.
 * Looking is the acknowledgement: entries shown in the panel are recorded with their revision, and the
 * badges of one viewing are computed against the record as it was when the panel became visible, so a
 * badge stays while the person is looking and is gone next time.
 */
import type * as vscode from 'vscode';

const KEY = 'sessionKnowledge.panel.seen';
/** Keeps globalState small: the oldest acknowledgements go first. */
const MAX_REMEMBERED = 20_000;

interface SeenRecord {
  /** When the person last opened the panel (ISO); null before the first look. */
  since: string | null;
  revisions: Record<string, string>;
}

export interface BadgeSubject {
  id: string;
  revision: string;
  createdAt: string;
  updatedAt: string;
}

export class SeenStore {
  private baseline: SeenRecord;

  constructor(private readonly memento: vscode.Memento) {
    this.baseline = this.read();
  }

  private read(): SeenRecord {
    const raw = this.memento.get<SeenRecord>(KEY);
    if (!raw || typeof raw !== 'object' || typeof raw.revisions !== 'object' || raw.revisions === null) return { since: null, revisions: {} };
    return { since: typeof raw.since === 'string' ? raw.since : null, revisions: { ...raw.revisions } };
  }

  /** The panel became visible: badges of this viewing are relative to the previous look. */
  async beginViewing(now = new Date()): Promise<void> {
    this.baseline = this.read();
    await this.memento.update(KEY, { ...this.read(), since: now.toISOString() });
  }

  badge(e: BadgeSubject): 'new' | 'changed' | null {
    const { since, revisions } = this.baseline;
    if (since === null) return null; // first look: nothing to compare with
    const seen = revisions[e.id];
    if (seen !== undefined) return seen === e.revision ? null : 'changed';
    if (e.createdAt > since) return 'new';
    if (e.updatedAt > since) return 'changed';
    return null;
  }

  async acknowledge(entries: readonly { id: string; revision: string }[]): Promise<void> {
    if (entries.length === 0) return;
    const current = this.read();
    for (const e of entries) {
      delete current.revisions[e.id]; // re-insert: insertion order is age order
      current.revisions[e.id] = e.revision;
    }
    const ids = Object.keys(current.revisions);
    for (const id of ids.slice(0, Math.max(0, ids.length - MAX_REMEMBERED))) delete current.revisions[id];
    await this.memento.update(KEY, current);
  }
}
