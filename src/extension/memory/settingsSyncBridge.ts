/**
 * Personal memory on every machine, through Settings Sync (memory shipped dark: only with the flag, and only when
 * the person turns it on in Memory Settings). The approved, unflagged personal entries are written to one global-state
 * key registered with `setKeysForSync`; Settings Sync carries it to the person's other machines, where it is merged
 * into personal memory by the server (`knowledge/memory/syncPersonal`: by id and revision, every arrival judged at
 * once, conflicts kept as two entries). Pending and flagged entries never leave a machine.
 *
 * Forgetting is per machine: an entry forgotten here is not sent from here and is never brought back here, but the
 * other machines keep their copy until it is forgotten there too (a sync never deletes).
 *
 * Limits, said out loud: the synced value is at most PERSONAL_SYNC_MAX_BYTES (128 KiB). Past it nothing more is
 * written (what was synced stays as it was, memory on this machine is untouched) and the person is told once, with
 * the size; an arriving value past it is refused, not merged. A Memento has no change event, so arrivals are noticed
 * when the window gets focus, after memory changes, and by a cheap comparison every minute.
 *
 * No `vscode` import: the global state and the server are passed in (tests drive two of these with two storages).
 */
import {
  PERSONAL_SYNC_MAX_BYTES,
  SyncedStateSchema,
  type PersonalSyncParams,
  type PersonalSyncResult,
  type SyncedState,
} from '../../shared/personalSyncSchemas';

/** The synced key (registered with `setKeysForSync` while sync is on). */
export const PERSONAL_SYNC_KEY = 'sessionKnowledge.memory.personalSync';
/** This machine's switch (not synced: each machine opts in). */
export const PERSONAL_SYNC_ON_KEY = 'sessionKnowledge.memory.personalSync.on';
/** Per entry id, the revisions this machine has had of it through sync (not synced). */
export const PERSONAL_SYNC_KNOWN_KEY = 'sessionKnowledge.memory.personalSync.known';

/** What this needs of `context.globalState`. */
export interface SyncState {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
  setKeysForSync(keys: readonly string[]): void;
}

export interface PersonalSyncDeps {
  state: SyncState;
  /** The server's merge (`MemorySyncPersonalRequest`). */
  sync(params: PersonalSyncParams): Promise<PersonalSyncResult>;
  /** Whether agent memory is on (the person's switch): sync does nothing while it is off. */
  memoryOn(): boolean;
  /** Tells the person (a notification, and the output channel). */
  tell(level: 'info' | 'warn', message: string): void;
}

export type SyncOutcome =
  | { state: 'off' | 'unchanged' }
  | { state: 'refused'; reason: string }
  | { state: 'synced'; written: boolean; bytes: number; result: PersonalSyncResult }
  | { state: 'over-limit'; bytes: number; result: PersonalSyncResult };

const kib = (n: number) => `${Math.ceil(n / 1024)} KiB`;

export class PersonalSync {
  private chain: Promise<SyncOutcome> = Promise.resolve({ state: 'off' });
  /** The synced value as last merged or written here (JSON): an equal value means nothing arrived. */
  private lastSeen: string | undefined;
  /** Told once until the size is back under the limit. */
  private toldOverLimit = false;
  private toldRefused = '';
  private localChanged = true;

  constructor(private readonly deps: PersonalSyncDeps) {
    this.register();
  }

  isOn(): boolean {
    return this.deps.state.get<boolean>(PERSONAL_SYNC_ON_KEY) === true;
  }

  /** The key is registered for sync only while sync is on (VS Code remembers nothing: called on every start). */
  private register(): void {
    this.deps.state.setKeysForSync(this.isOn() ? [PERSONAL_SYNC_KEY] : []);
  }

  async setOn(on: boolean): Promise<SyncOutcome> {
    await this.deps.state.update(PERSONAL_SYNC_ON_KEY, on);
    this.register();
    return on ? this.run(true) : { state: 'off' };
  }

  /** Memory changed on this machine: the next run sends it. */
  noteLocalChange(): void {
    this.localChanged = true;
  }

  /** Whether the synced value differs from what was last merged or written here (no server call). */
  arrived(): boolean {
    const raw = this.deps.state.get<unknown>(PERSONAL_SYNC_KEY);
    return (raw === undefined ? '' : JSON.stringify(raw)) !== this.lastSeen;
  }

  /** Merges what arrived and writes what to send; runs one at a time. `force`: even when nothing seems to have changed. */
  run(force = false): Promise<SyncOutcome> {
    this.chain = this.chain.then(
      () => this.runOnce(force),
      () => this.runOnce(force),
    );
    return this.chain;
  }

  private async runOnce(force: boolean): Promise<SyncOutcome> {
    if (!this.isOn() || !this.deps.memoryOn()) return { state: 'off' };
    const raw = this.deps.state.get<unknown>(PERSONAL_SYNC_KEY);
    const rawJson = raw === undefined ? '' : JSON.stringify(raw);
    const arrived = rawJson !== this.lastSeen;
    if (!arrived && !this.localChanged && !force) return { state: 'unchanged' };
    // A value refused before is still there: nothing is merged from it, and nothing is written over it.
    if (!arrived && this.toldRefused !== '' && this.toldRefused === rawJson) return { state: 'refused', reason: 'the value that arrived was refused; it is still there' };
    let incoming: SyncedState['entries'] | undefined;
    if (arrived && raw !== undefined) {
      if (rawJson.length > PERSONAL_SYNC_MAX_BYTES) return this.refuse(rawJson, `The personal memory that arrived through Settings Sync is ${kib(rawJson.length)}, over the ${kib(PERSONAL_SYNC_MAX_BYTES)} limit: it was not merged, and nothing was written back. Make the personal memory smaller on the machine that sent it (consolidate or forget entries).`);
      const parsed = SyncedStateSchema.safeParse(raw);
      if (!parsed.success) return this.refuse(rawJson, `The personal memory that arrived through Settings Sync could not be read (${parsed.error.issues[0]?.path.join('.') || 'value'}: ${parsed.error.issues[0]?.message}); it was not merged. A newer version of the extension may have written it.`);
      incoming = parsed.data.entries;
    }
    this.toldRefused = '';
    const known = this.deps.state.get<Record<string, string[]>>(PERSONAL_SYNC_KNOWN_KEY) ?? {};
    const result = await this.deps.sync({ ...(incoming ? { incoming } : {}), known });
    await this.deps.state.update(PERSONAL_SYNC_KNOWN_KEY, result.known);
    this.localChanged = false;
    this.tellArrivals(result);
    const out: SyncedState = { version: 1, entries: result.outgoing };
    const outJson = JSON.stringify(out);
    if (outJson.length > PERSONAL_SYNC_MAX_BYTES) {
      this.lastSeen = rawJson;
      if (!this.toldOverLimit) {
        this.toldOverLimit = true;
        this.deps.tell(
          'warn',
          `Your approved personal memory is ${kib(outJson.length)}; Settings Sync carries at most ${kib(PERSONAL_SYNC_MAX_BYTES)} of it. Nothing more is synced until it is smaller (consolidate or forget personal entries): your other machines keep what they had, and memory on this machine is unchanged.`,
        );
      }
      return { state: 'over-limit', bytes: outJson.length, result };
    }
    this.toldOverLimit = false;
    const written = outJson !== rawJson;
    if (written) await this.deps.state.update(PERSONAL_SYNC_KEY, out);
    this.lastSeen = outJson;
    return { state: 'synced', written, bytes: outJson.length, result };
  }

  private refuse(rawJson: string, message: string): SyncOutcome {
    // Said once per arriving value; nothing is written back over it (the sender's entries are not lost).
    if (this.toldRefused !== rawJson) this.deps.tell('warn', message);
    this.toldRefused = rawJson;
    this.lastSeen = rawJson;
    return { state: 'refused', reason: message };
  }

  private tellArrivals(r: PersonalSyncResult): void {
    const n = r.added.length + r.updated.length;
    const parts: string[] = [];
    if (n > 0) parts.push(`${n} approved personal memory entr${n === 1 ? 'y' : 'ies'} arrived through Settings Sync`);
    if (r.flagged.length > 0) parts.push(`${r.flagged.length} of them read${r.flagged.length === 1 ? 's' : ''} as an instruction and ${r.flagged.length === 1 ? 'is' : 'are'} withheld (see Flagged in the Knowledge Panel)`);
    if (r.conflicts.length > 0) parts.push(`${r.conflicts.length} entr${r.conflicts.length === 1 ? 'y was' : 'ies were'} edited on two machines: both revisions are kept, marked "sync conflict" in the Knowledge Panel — keep one and forget the other`);
    if (r.skipped.length > 0) parts.push(`not stored: ${r.skipped.slice(0, 3).join('; ')}${r.skipped.length > 3 ? '; …' : ''}`);
    if (parts.length > 0) this.deps.tell(r.flagged.length > 0 || r.conflicts.length > 0 || r.skipped.length > 0 ? 'warn' : 'info', `Session Knowledge: ${parts.join('; ')}.`);
  }
}
