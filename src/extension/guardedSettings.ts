/**
 * The settings a repository must not turn on by itself: `sessionKnowledge.shareWithCopilot` (writes the pinned
 * knowledge into a file Copilot attaches to every request) and `sessionKnowledge.scheduledPrompts` (spends the
 * person's model on a schedule, with pins). Both are read here and nowhere else.
 *
 * A value from the person's own (user) settings works as it always did. A workspace value — the repository's
 * `.vscode/settings.json`, a `.code-workspace` file — takes effect only once this person confirmed it for this
 * workspace: they are asked once, with the value named, and the decision is kept in the extension's global state
 * (per-user storage a repository cannot write), keyed by the workspace and the setting and holding the value's
 * hash, so a changed value asks again. Until then, and in Restricted Mode (where VS Code ignores workspace values
 * of `restrictedConfigurations` anyway), the user value applies. A workspace value that only turns something off
 * (`false`, `[]`) or equals the user value needs no confirmation.
 */
import * as vscode from 'vscode';
import { sha256Hex } from '../server/core/sha256Hex';
import { isDeepStrictEqual } from 'node:util';

export type GuardedSetting = 'shareWithCopilot' | 'scheduledPrompts';

/** What is kept per workspace and setting: the hash of the workspace value decided on, and the decision. */
interface Decision {
  hash: string;
  allowed: boolean;
}

/** One question to the person: answers true (allow), false (keep off), undefined (dismissed: asked again next window). */
export type AskWorkspaceSetting = (question: { setting: GuardedSetting; message: string }) => Thenable<boolean | undefined>;

const ALLOW = 'Allow in This Workspace';
const KEEP_OFF = 'Keep Off';

const defaultAsk: AskWorkspaceSetting = async ({ message }) => {
  const choice = await vscode.window.showWarningMessage(message, ALLOW, KEEP_OFF);
  return choice === ALLOW ? true : choice === KEEP_OFF ? false : undefined;
};

const hashOf = (value: unknown) => sha256Hex(JSON.stringify(value) ?? 'undefined');

/** "`nightly` every 60 min with pins a.md, b.md" — a scheduled prompt as the question names it. */
function describeSchedule(raw: unknown): string {
  const s = (raw ?? {}) as { name?: unknown; prompt?: unknown; pins?: unknown; everyMinutes?: unknown; at?: unknown };
  const when = typeof s.everyMinutes === 'number' ? `every ${s.everyMinutes} min` : typeof s.at === 'string' ? `daily at ${s.at}` : 'on no valid schedule';
  const pins = Array.isArray(s.pins) && s.pins.length > 0 ? `with pins ${s.pins.map(String).join(', ')}` : 'with no pins';
  const prompt = typeof s.prompt === 'string' ? ` ("${s.prompt.length > 80 ? `${s.prompt.slice(0, 80)}…` : s.prompt}")` : '';
  return `"${String(s.name)}" ${when} ${pins}${prompt}`;
}

export class GuardedSettings implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<GuardedSetting>();
  /** Fires when a confirmation changed what a setting reads as (the consumers read it again). */
  readonly onDidChange = this.changed.event;
  /** Questions asked in this window (decision key and hash): one question per value, not one per read. */
  private readonly asked = new Set<string>();
  /** How the person is asked (a test may answer instead of a person). */
  ask: AskWorkspaceSetting = defaultAsk;

  constructor(private readonly state: vscode.Memento) {}

  /** Whether Copilot sharing is on for `resource` (the folder whose `.github/instructions` would be written). */
  shareWithCopilot(resource?: vscode.Uri): boolean {
    return this.read<boolean>('shareWithCopilot', resource, false) === true;
  }

  /** The scheduled prompts as configured (unparsed: `scheduler.ts` reads them). */
  scheduledPrompts(): unknown[] {
    const v = this.read<unknown[]>('scheduledPrompts', undefined, []);
    return Array.isArray(v) ? v : [];
  }

  /**
   * Records the current workspace value of `setting` as confirmed: what a command the person ran (e.g. "Share
   * Pinned Knowledge with Copilot", which writes the workspace value) calls after writing it.
   */
  async confirmCurrent(setting: GuardedSetting, resource?: vscode.Uri): Promise<void> {
    const ws = this.workspaceValue(setting, resource);
    if (ws.value === undefined) return;
    await this.state.update(this.key(setting, ws.folder), { hash: hashOf(ws.value), allowed: true } satisfies Decision);
    this.changed.fire(setting);
  }

  /**
   * Forgets this workspace's decision on `setting` (the person turned it off): a workspace value that turns it
   * on later — e.g. arriving by `git pull` — is asked about again, even when it equals the one allowed before.
   */
  async forget(setting: GuardedSetting, resource?: vscode.Uri): Promise<void> {
    const folder = resource ? vscode.workspace.getWorkspaceFolder(resource)?.uri : undefined;
    for (const key of new Set([this.key(setting, undefined), this.key(setting, folder)])) await this.state.update(key, undefined);
    for (const asked of [...this.asked]) if (asked.startsWith(`${this.key(setting, undefined)}`)) this.asked.delete(asked);
  }

  private workspaceValue(setting: GuardedSetting, resource?: vscode.Uri) {
    const inspect = vscode.workspace.getConfiguration('sessionKnowledge', resource).inspect(setting);
    const folderValue = inspect?.workspaceFolderValue;
    return {
      inspect,
      value: folderValue ?? inspect?.workspaceValue,
      /** Set when the value comes from a folder's own `.vscode/settings.json`. */
      folder: folderValue !== undefined && resource ? vscode.workspace.getWorkspaceFolder(resource)?.uri : undefined,
    };
  }

  /** Per workspace (its `.code-workspace` file, else its first folder) and per folder for a folder's own value. */
  private key(setting: GuardedSetting, folder: vscode.Uri | undefined): string {
    const workspace = vscode.workspace.workspaceFile?.toString() ?? vscode.workspace.workspaceFolders?.[0]?.uri.toString() ?? '(no folder)';
    return `sessionKnowledge.workspaceSetting/${setting}/${workspace}${folder ? `/${folder.toString()}` : ''}`;
  }

  private read<T>(setting: GuardedSetting, resource: vscode.Uri | undefined, fallback: T): T {
    const { inspect, value, folder } = this.workspaceValue(setting, resource);
    const user = (inspect?.globalValue ?? inspect?.defaultValue ?? fallback) as T;
    if (value === undefined) return user;
    const turnsOff = value === false || (Array.isArray(value) && value.length === 0);
    if (turnsOff || isDeepStrictEqual(value, user)) return value as T;
    // Restricted Mode: VS Code itself ignores the workspace value; nothing is asked until the folder is trusted.
    if (!vscode.workspace.isTrusted) return user;
    const key = this.key(setting, folder);
    const hash = hashOf(value);
    const decision = this.state.get<Decision>(key);
    if (decision?.hash === hash) return decision.allowed ? (value as T) : user;
    this.askOnce(setting, key, hash, value);
    return user;
  }

  private askOnce(setting: GuardedSetting, key: string, hash: string, value: unknown): void {
    const asked = `${key}\0${hash}`;
    if (this.asked.has(asked)) return;
    this.asked.add(asked);
    const message =
      setting === 'shareWithCopilot'
        ? "This workspace's settings (not your user settings) turn on sessionKnowledge.shareWithCopilot: the knowledge pinned for all agents (.knowledge/pins.json) would be written to .github/instructions/session-knowledge.instructions.md, which Copilot attaches to every request. Allow it in this workspace?"
        : `This workspace's settings (not your user settings) set sessionKnowledge.scheduledPrompts, which run on your language model on a schedule: ${(value as unknown[]).map(describeSchedule).join('; ')}. Allow them in this workspace?`;
    void Promise.resolve(this.ask({ setting, message })).then(
      async (allowed) => {
        if (allowed === undefined) return; // dismissed: asked again in the next window
        await this.state.update(key, { hash, allowed } satisfies Decision);
        this.changed.fire(setting);
      },
      () => undefined,
    );
  }

  dispose(): void {
    this.changed.dispose();
  }
}
