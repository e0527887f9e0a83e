/**
 * Sharing pinned knowledge with Copilot's agent mode (VS Code 1.100 has no MCP provider API; agent mode reads
 * instruction files). Opt-in, off by default: the workspace setting `sessionKnowledge.shareWithCopilot`. While it
 * is on, `.github/instructions/session-knowledge.instructions.md` is kept equal to the agent block — compiled by
 * the server, so flagged items are withheld exactly as in every other delivery — and rewritten when the agent
 * pins change, a pinned file changes, or a review changes a verdict. Written only when the content differs; with
 * no agent pins there is no file. Stopping removes the file, only if it carries our marker.
 *
 * Every write and removal runs through one queue, so a refresh that started before "Stop" can never write after it.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CompileAgentBlockRequest, GetAgentPinsRequest } from '../../shared/protocol';
import {
  COPILOT_INSTRUCTIONS_FILE,
  GIT_EXCLUDE_LINE,
  InstructionFileError,
  addToGitExclude,
  gitExcludePath,
  removeInstructionFile,
  renderInstructionFile,
  writeInstructionFile,
} from '../../server/core/agents/copilotInstructions';
import { LinkedPathError } from '../../server/core/store/confinedPath';
import { pinKind } from '../../server/core/notes/pinKind';
import { blockBudget } from '../chat/knowledgeSend';
import type { ServerEvents } from '../serverEvents';
import type { GuardedSettings } from '../guardedSettings';
import { deliveryAllowed, onTrustGranted, refusedInRestrictedMode } from '../workspaceTrust';

import type { AgentPins } from './agentPinCommands';

/** Tokens the instruction file may take (it costs its size on every Copilot turn); the block's own budget when smaller. */
export const COPILOT_FILE_BUDGET_TOKENS = 2400;

export const SHARE_SETTING = 'shareWithCopilot';
/** workspaceState: the `.git/info/exclude` offer was made once in this workspace. */
const EXCLUDE_OFFERED_KEY = 'sessionKnowledge.copilotExcludeOffered';
/** Notes and plans: the server's index announces their edits (ItemsChanged); other pinned files are watched here. */
/** Changes are gathered for this long before the file is brought up to date. */
const DEBOUNCE_MS = 250;

/**
 * What a sync did: wrote the file, found it current, removed it (no pins), or could not (the reason); `restricted`:
 * the folder is not trusted, so nothing was written or removed.
 */
export type SyncOutcome = { state: 'written' | 'unchanged' | 'removed' | 'off' | 'no-folder' | 'restricted'; pins: number; tokens: number } | { state: 'refused'; reason: string };

/** Keeps the instruction file out of git: appends its line to `.git/info/exclude` once. What the offer's button runs. */
export async function keepInstructionFileOutOfGit(workspaceFolder: string): Promise<{ path: string; changed: boolean } | undefined> {
  return addToGitExclude(workspaceFolder, GIT_EXCLUDE_LINE);
}

export interface CopilotShareDeps {
  client: LanguageClient;
  output: vscode.LogOutputChannel;
  folder: vscode.WorkspaceFolder | undefined;
  events: ServerEvents;
  agentPins: AgentPins;
  /** Reads `shareWithCopilot` (a workspace value counts once this person confirmed it). */
  settings: GuardedSettings;
}

export class CopilotShare implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  /** Watchers on pinned files outside `.knowledge/` (notes and plans reach us as ItemsChanged from the server). */
  private fileWatchers = new Map<string, vscode.Disposable>();
  private lastWarning: string | undefined;
  /** The refused pins last logged (named once per change, not on every refresh). */
  private lastRefused = '';

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly deps: CopilotShareDeps,
  ) {
    const schedule = () => this.schedule();
    this.disposables.push(
      deps.events.onItemsChanged(schedule), // a pinned note edited, a review changed a verdict, reviews.json pulled
      deps.events.onStoreChanged(schedule), // agent pins changed through the server
      deps.agentPins.onDidChangeOnDisk(schedule), // pins.json edited by the CLI, git or another window
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`sessionKnowledge.${SHARE_SETTING}`)) void this.sync();
        else if (e.affectsConfiguration('sessionKnowledge.blockTokenBudget')) schedule();
      }),
      deps.settings.onDidChange((setting) => {
        if (setting === 'shareWithCopilot') void this.sync();
      }),
      // Restricted Mode wrote nothing: trust granted, the file is brought up to date without a reload.
      onTrustGranted(() => void this.sync()),
    );
    this.showState();
    if (this.isOn()) schedule();
  }

  private get root(): string | undefined {
    return this.deps.folder?.uri.scheme === 'file' ? this.deps.folder.uri.fsPath : undefined;
  }

  isOn(): boolean {
    return this.deps.settings.shareWithCopilot(this.deps.folder?.uri);
  }

  /** The menus offer Share or Stop by this context key (a `config.` clause would read an unconfirmed workspace value). */
  private showState(): void {
    void vscode.commands.executeCommand('setContext', 'sessionKnowledge.sharingWithCopilot', this.isOn());
  }

  /** "Share Pinned Knowledge with Copilot": turns the workspace setting on and writes the file now. */
  async start(): Promise<SyncOutcome> {
    if (refusedInRestrictedMode('Share Pinned Knowledge with Copilot', this.deps.output)) return { state: 'restricted', pins: 0, tokens: 0 };
    if (!this.root) {
      void vscode.window.showWarningMessage('Open a folder first: the Copilot instruction file lives in the project folder.');
      return { state: 'no-folder', pins: 0, tokens: 0 };
    }
    await vscode.workspace.getConfiguration('sessionKnowledge', this.deps.folder?.uri).update(SHARE_SETTING, true, vscode.ConfigurationTarget.Workspace);
    // The person asked for it: the workspace value is theirs, no question.
    await this.deps.settings.confirmCurrent('shareWithCopilot', this.deps.folder?.uri);
    const outcome = await this.sync();
    if (outcome.state === 'refused') {
      void vscode.window.showWarningMessage(`Not shared with Copilot: ${outcome.reason}`);
      return outcome;
    }
    void vscode.window.showInformationMessage(
      outcome.pins === 0
        ? 'Sharing with Copilot is on. Nothing is pinned for all agents yet, so there is no instruction file; it appears when you pin something.'
        : `Sharing with Copilot is on: ${COPILOT_INSTRUCTIONS_FILE} carries ${outcome.pins} pinned item(s), about ${outcome.tokens} tokens on every Copilot request.`,
    );
    void this.offerGitExclude();
    return outcome;
  }

  /** "Stop Sharing with Copilot": turns the setting off and removes the file (only if it is ours). */
  async stop(): Promise<'removed' | 'absent' | 'not-ours' | 'no-folder' | 'restricted'> {
    if (refusedInRestrictedMode('Stop Sharing with Copilot', this.deps.output)) return 'restricted';
    const root = this.root;
    if (!root) return 'no-folder';
    // In the queue: a refresh that started before this finishes first, and none that starts later writes.
    const outcome = await this.enqueue(async () => {
      const config = vscode.workspace.getConfiguration('sessionKnowledge', this.deps.folder?.uri);
      const set = config.inspect<boolean>(SHARE_SETTING);
      if (set?.workspaceFolderValue !== undefined) await config.update(SHARE_SETTING, undefined, vscode.ConfigurationTarget.WorkspaceFolder);
      if (set?.workspaceValue !== undefined) await config.update(SHARE_SETTING, undefined, vscode.ConfigurationTarget.Workspace);
      // Still on through the user's own settings: off for this workspace.
      if (this.isOn()) await config.update(SHARE_SETTING, false, vscode.ConfigurationTarget.Workspace);
      // Off by the person: a workspace value that turns it on again (a `git pull`) is asked about again.
      await this.deps.settings.forget('shareWithCopilot', this.deps.folder?.uri);
      this.watchPinnedFiles([]);
      return (await removeInstructionFile(root)).outcome;
    });
    if (outcome === 'not-ours') void vscode.window.showWarningMessage(`Sharing with Copilot is off. ${COPILOT_INSTRUCTIONS_FILE} was not written by Session Knowledge, so it was left as it is.`);
    else void vscode.window.showInformationMessage(`Sharing with Copilot is off${outcome === 'removed' ? `: ${COPILOT_INSTRUCTIONS_FILE} was removed` : ''}.`);
    return outcome;
  }

  private schedule(): void {
    if (!this.isOn()) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.sync(), DEBOUNCE_MS);
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Brings the file up to date now (or removes it when sharing is off or nothing is pinned). */
  sync(): Promise<SyncOutcome> {
    clearTimeout(this.timer);
    return this.enqueue(async (): Promise<SyncOutcome> => {
      const root = this.root;
      this.showState();
      if (!root) return { state: 'no-folder', pins: 0, tokens: 0 };
      // Restricted Mode: neither written nor removed until the folder is trusted.
      if (!deliveryAllowed()) return { state: 'restricted', pins: 0, tokens: 0 };
      if (!this.isOn()) {
        // Turned off (the command or the Settings editor): our file goes.
        const removed = await removeInstructionFile(root).catch(() => undefined);
        this.watchPinnedFiles([]);
        return { state: removed?.outcome === 'removed' ? 'removed' : 'off', pins: 0, tokens: 0 };
      }
      try {
        const { pins, refused } = await this.deps.client.sendRequest(GetAgentPinsRequest.type);
        // A pin of .knowledge/pins.json the policy refuses (a secret, an outside file) is named for the person in the
        // log — never in the file Copilot reads, never its content.
        const refusedNow = refused.map((r) => r.reason).join('\n');
        if (refusedNow !== this.lastRefused) for (const r of refused) this.deps.output.warn(`.knowledge/pins.json: not shared with Copilot: ${r.reason}`);
        this.lastRefused = refusedNow;
        this.watchPinnedFiles(pins);
        if (pins.length === 0) {
          const removed = await removeInstructionFile(root);
          if (removed.outcome === 'not-ours') return this.refused(`${COPILOT_INSTRUCTIONS_FILE} was not written by Session Knowledge; it was left as it is.`);
          return { state: removed.outcome === 'removed' ? 'removed' : 'unchanged', pins: 0, tokens: 0 };
        }
        // Copilot attaches the file to every request: a smaller budget than a chat's block, and never the memory
        // index (personal memory must not land in a workspace file).
        const block = await this.deps.client.sendRequest(CompileAgentBlockRequest.type, { budgetTokens: Math.min(blockBudget(), COPILOT_FILE_BUDGET_TOKENS), memory: false, destination: 'copilot' });
        const content = renderInstructionFile(block.text);
        const written = await writeInstructionFile(root, content);
        this.lastWarning = undefined;
        const tokens = Math.ceil(content.length / 4);
        if (written.changed) this.deps.output.info(`Copilot instruction file updated: ${pins.length} pin(s), ${content.length} characters (~${tokens} tokens on every Copilot request).`);
        return { state: written.changed ? 'written' : 'unchanged', pins: pins.length, tokens };
      } catch (err) {
        // A file in the way that is not ours, or a link on the way (never written through): said to the person once.
        if (InstructionFileError.is(err) || LinkedPathError.is(err)) return this.refused(err.message);
        // Nothing here may fail loudly on every keystroke: logged, and the file stays as it was.
        this.deps.output.warn(`Could not update the Copilot instruction file: ${(err as Error).message}`);
        return { state: 'refused', reason: (err as Error).message };
      }
    });
  }

  /** A file in the way that is not ours: said once per distinct reason, not on every refresh. */
  private refused(reason: string): SyncOutcome {
    this.deps.output.warn(reason);
    if (this.lastWarning !== reason) {
      this.lastWarning = reason;
      void vscode.window.showWarningMessage(`Session Knowledge: ${reason}`);
    }
    return { state: 'refused', reason };
  }

  /** Keeps one watcher per pinned file that is not an indexed note or plan: an edit there changes the block too. */
  private watchPinnedFiles(pins: readonly string[]): void {
    const folder = this.deps.folder;
    const wanted = new Set(folder ? pins.filter((id) => pinKind(id) === 'file') : []);
    for (const [id, watcher] of this.fileWatchers) {
      if (!wanted.has(id)) {
        watcher.dispose();
        this.fileWatchers.delete(id);
      }
    }
    for (const id of wanted) {
      if (this.fileWatchers.has(id) || !folder) continue;
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, id));
      const schedule = () => this.schedule();
      const subs = [watcher.onDidChange(schedule), watcher.onDidCreate(schedule), watcher.onDidDelete(schedule)];
      this.fileWatchers.set(id, { dispose: () => [watcher, ...subs].forEach((d) => d.dispose()) });
    }
  }

  /** On the first share in a git repository: offer to keep the file out of git (personal, rewritten often). */
  private async offerGitExclude(): Promise<void> {
    const root = this.root;
    if (!root || this.context.workspaceState.get<boolean>(EXCLUDE_OFFERED_KEY)) return;
    if (!(await gitExcludePath(root))) return;
    await this.context.workspaceState.update(EXCLUDE_OFFERED_KEY, true);
    const choice = await vscode.window.showInformationMessage(
      `${COPILOT_INSTRUCTIONS_FILE} is generated and rewritten whenever the pinned knowledge changes. Keep it out of git (add it to .git/info/exclude, which is never committed)?`,
      'Add to .git/info/exclude',
    );
    if (choice !== 'Add to .git/info/exclude') return;
    try {
      const r = await keepInstructionFileOutOfGit(root);
      if (r) vscode.window.setStatusBarMessage(r.changed ? `$(check) Added ${GIT_EXCLUDE_LINE} to ${r.path}` : `$(check) ${r.path} already excludes it`, 5000);
    } catch (err) {
      void vscode.window.showWarningMessage(`Could not edit .git/info/exclude: ${(err as Error).message}`);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const w of this.fileWatchers.values()) w.dispose();
    this.fileWatchers.clear();
    for (const d of this.disposables) d.dispose();
  }
}

export function registerCopilotShare(context: vscode.ExtensionContext, deps: CopilotShareDeps): CopilotShare {
  const share = new CopilotShare(context, deps);
  context.subscriptions.push(
    share,
    vscode.commands.registerCommand('sessionKnowledge.shareWithCopilot', () => share.start()),
    vscode.commands.registerCommand('sessionKnowledge.stopSharingWithCopilot', () => share.stop()),
  );
  return share;
}
