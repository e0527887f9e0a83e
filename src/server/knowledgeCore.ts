/**
 * The core that the language server and the CLI share: the note/plan index and the store documents.
 * No `vscode` import and no connection: callers pass paths in and read results out.
 */
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { JsonDocument } from './store/jsonDocument';
import { SESSIONS_SCHEMA_VERSION, SessionsDocSchema, sessionsDefaults, sessionsMigrations, type SessionsDoc } from './store/schemas';
import { NoteIndex, createKnowledgeFile, toId } from './notes/noteIndex';
import type { KnowledgeItem, KnowledgeKind, Stats, StoreProblem, UpdateDraftPinsResult } from '../shared/schemas';
import { checkPinnable } from './pinPolicy';
import { SessionService } from './delivery/sessionService';
import { PinnedFileReader, type ScanFn } from './delivery/knowledgeBlock';
import { defaultScan } from './threat/scanForBlock';

export interface CoreOptions {
  workspaceFolder: string | null;
  globalStoragePath: string;
  onProblem?: (problem: StoreProblem) => void;
  /** Judges text on every read; a finding withholds it from the model. */
  scan?: ScanFn;
  /** Token budget of a knowledge block when the caller names none. */
  defaultBudgetTokens?: number;
}

export const DEFAULT_BUDGET_TOKENS = 8000;

/**
 * Session metadata is kept in global storage (it must not land in git), one file per workspace folder so
 * that pins, which are workspace-relative ids, never leak between projects.
 */
export function sessionsPath(globalStoragePath: string, workspaceFolder: string | null): string {
  const key = workspaceFolder ? createHash('sha256').update(workspaceFolder).digest('hex').slice(0, 16) : 'no-folder';
  return join(globalStoragePath, 'workspaces', key, 'sessions.json');
}

export class KnowledgeCore {
  readonly notes: NoteIndex | null;
  readonly sessions: JsonDocument<SessionsDoc>;
  readonly sessionService: SessionService;
  private readonly problems: StoreProblem[] = [];

  constructor(readonly options: CoreOptions) {
    this.notes = options.workspaceFolder ? new NoteIndex(options.workspaceFolder) : null;
    this.sessions = new JsonDocument<SessionsDoc>({
      source: 'sessions',
      path: sessionsPath(options.globalStoragePath, options.workspaceFolder),
      schema: SessionsDocSchema,
      currentVersion: SESSIONS_SCHEMA_VERSION,
      defaults: sessionsDefaults,
      migrations: sessionsMigrations,
      onProblem: (p) => this.problem(p),
    });
    this.sessionService = new SessionService({
      doc: this.sessions,
      workspaceFolder: options.workspaceFolder,
      reader: options.workspaceFolder ? new PinnedFileReader(options.workspaceFolder) : null,
      scan: options.scan ?? defaultScan,
      memoryIndex: async () => null,
      defaultBudgetTokens: options.defaultBudgetTokens ?? DEFAULT_BUDGET_TOKENS,
    });
  }

  /** Loads every source. A source that fails is reported and left out; it never blanks the others. */
  async load(): Promise<void> {
    const results = await Promise.allSettled([this.sessions.load(), this.notes?.rebuild()]);
    const names = ['sessions', 'notes'];
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        this.problem({
          source: names[i] ?? 'unknown',
          path: i === 0 ? this.sessions.spec.path : (this.options.workspaceFolder ?? ''),
          message: `Could not load ${names[i]}: ${(r.reason as Error)?.message ?? String(r.reason)}`,
          at: new Date().toISOString(),
        });
      }
    });
    for (const p of this.notes?.problems ?? []) this.problem(p);
  }

  listItems(kind?: KnowledgeKind): KnowledgeItem[] {
    return this.notes?.list(kind) ?? [];
  }

  async createItem(kind: KnowledgeKind, title: string): Promise<KnowledgeItem> {
    if (!this.notes || !this.options.workspaceFolder) {
      throw new Error('Open a folder first: notes and plans live in the workspace folder under .knowledge/.');
    }
    const path = await createKnowledgeFile(this.options.workspaceFolder, kind, title);
    await this.notes.refreshPath(path);
    const item = this.notes.get(toId(this.options.workspaceFolder, path));
    if (!item) throw new Error(`Created ${path} but could not index it.`);
    return item;
  }

  /** Adds and removes draft pins atomically (another window may be pinning too). Refuses secrets and outside files. */
  async updateDraftPins(add: string[], remove: string[]): Promise<UpdateDraftPinsResult> {
    const refused: UpdateDraftPinsResult['refused'] = [];
    const accepted: string[] = [];
    for (const pin of add) {
      if (!this.options.workspaceFolder) {
        refused.push({ pin, reason: 'no workspace folder is open' });
        continue;
      }
      const check = checkPinnable(this.options.workspaceFolder, pin);
      if (check.ok) accepted.push(check.id);
      else refused.push({ pin, reason: check.reason });
    }
    const removeIds = new Set(
      remove.map((pin) => {
        if (!this.options.workspaceFolder) return pin;
        const check = checkPinnable(this.options.workspaceFolder, pin);
        return check.ok ? check.id : pin;
      }),
    );
    const doc = await this.sessions.update((d) => {
      const next = d.draftPins.filter((p) => !removeIds.has(p));
      for (const id of accepted) if (!next.includes(id)) next.push(id);
      d.draftPins = next;
    });
    return { pins: doc.draftPins, refused };
  }

  /** Replaces the whole draft (tests, migration tools). Same checks as `updateDraftPins`. */
  async setDraftPins(pins: string[]): Promise<string[]> {
    const current = (await this.sessions.load()).draftPins;
    return (await this.updateDraftPins(pins, current.filter((p) => !pins.includes(p)))).pins;
  }

  async getDraftPins(): Promise<string[]> {
    return (await this.sessions.load()).draftPins;
  }

  async stats(): Promise<Stats> {
    const sessions = this.sessions.data;
    const notes = this.listItems('note').length;
    const plans = this.listItems('plan').length;
    return {
      workspaceFolder: this.options.workspaceFolder,
      notes,
      plans,
      sessions: Object.keys(sessions.sessions).length,
      draftPins: sessions.draftPins.length,
      stores: [this.sessions.health()],
      problems: [...this.problems],
    };
  }

  private problem(p: StoreProblem): void {
    this.problems.push(p);
    this.options.onProblem?.(p);
  }
}
