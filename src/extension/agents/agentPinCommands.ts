/**
 * Pinning for all agents from VS Code: "Pin for All Agents" / "Unpin from All Agents" on notes, plans and files
 * (tree, Explorer, editor title, keyboard), the tree's "Pinned for All Agents" source, the context key the
 * menus read, and a watcher on `.knowledge/pins.json`, which the CLI and other windows edit too.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CompileAgentBlockRequest, GetAgentPinsRequest, UpdateAgentPinsRequest } from '../../shared/protocol';
import type { KnowledgeItem } from '../../shared/schemas';
import type { UpdateDraftPinsResult } from '../../shared/pinIdSchemas';
import { blockBudget } from '../chat/knowledgeSend';
import { pickKnowledgeItems, pinRefs } from '../knowledgeCommands';
import type { AgentPinsState } from '../notesTree';

/** `.knowledge/pins.json` (the server's `AGENT_PINS_FILE`; not imported, so the store stays out of this bundle). */
export const AGENT_PINS_PATH = '.knowledge/pins.json';

/** Context key: the absolute paths of the agent pins (`resourcePath in …` / `not in …` in menus). */
const PINNED_PATHS_KEY = 'sessionKnowledge.agentPinnedPaths';

export class AgentPins implements vscode.Disposable {
  private readonly changedOnDisk = new vscode.EventEmitter<void>();
  /** `.knowledge/pins.json` was created, edited or deleted on disk (by anyone: the CLI, git, another window, us). */
  readonly onDidChangeOnDisk = this.changedOnDisk.event;
  private readonly disposables: vscode.Disposable[] = [this.changedOnDisk];
  private pins: readonly string[] = [];

  constructor(
    private readonly client: LanguageClient,
    folder: vscode.WorkspaceFolder | undefined,
    /** The files pinned ids name, in every folder of the workspace. */
    private readonly files: { uriOf(id: string): vscode.Uri | undefined },
  ) {
    if (folder) {
      // Every folder's pins.json (folders added later too).
      const watcher = vscode.workspace.createFileSystemWatcher(`**/${AGENT_PINS_PATH}`);
      this.disposables.push(
        watcher,
        watcher.onDidCreate(() => this.changedOnDisk.fire()),
        watcher.onDidChange(() => this.changedOnDisk.fire()),
        watcher.onDidDelete(() => this.changedOnDisk.fire()),
      );
    }
  }

  /** The agent pins as last read. */
  get current(): readonly string[] {
    return this.pins;
  }

  /** Reads the pins and compiles the block agents get (the tree marks withheld and missing pins from it). */
  async load(): Promise<AgentPinsState> {
    const { pins, refused } = await this.client.sendRequest(GetAgentPinsRequest.type);
    const block = pins.length > 0 ? await this.client.sendRequest(CompileAgentBlockRequest.type, { budgetTokens: blockBudget() }).then(undefined, () => undefined) : undefined;
    this.setPins(pins);
    return { pins, refused, block };
  }

  async update(change: { add?: string[]; remove?: string[] }): Promise<UpdateDraftPinsResult> {
    const result = await this.client.sendRequest(UpdateAgentPinsRequest.type, change);
    this.setPins(result.pins);
    return result;
  }

  private setPins(pins: readonly string[]): void {
    this.pins = pins;
    const paths = pins.map((id) => this.files.uriOf(id)?.fsPath).filter((p): p is string => p !== undefined);
    void vscode.commands.executeCommand('setContext', PINNED_PATHS_KEY, paths);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

export interface AgentPinCommandDeps {
  agentPins: AgentPins;
  /** The indexed notes and plans as the tree last read them. */
  items: () => readonly KnowledgeItem[];
  refresh: () => Promise<void>;
}

export function registerAgentPinCommands(context: vscode.ExtensionContext, deps: AgentPinCommandDeps): void {
  const { agentPins } = deps;

  /** Lets the person choose when a command has no target: notes and plans to pin, or the agent pins to unpin. */
  const pick = (title: string, candidates: readonly string[]): Promise<string[] | undefined> =>
    pickKnowledgeItems(deps.items(), title, candidates, {
      empty: title.startsWith('Unpin') ? 'Nothing is pinned for all agents.' : 'There are no notes or plans to pin: create one with Session Knowledge: New Note, or pin a file from the Explorer.',
      withheld: 'withheld from agents',
    });

  /** Sends the change and says why anything was refused; answers undefined when the request itself failed. */
  const change = async (verb: 'pinned' | 'unpinned', request: { add?: string[]; remove?: string[] }): Promise<UpdateDraftPinsResult | undefined> => {
    let result: UpdateDraftPinsResult;
    try {
      result = await agentPins.update(request);
    } catch (err) {
      void vscode.window.showWarningMessage(`Not ${verb} for all agents: ${(err as Error).message}`);
      return undefined;
    }
    for (const r of result.refused) void vscode.window.showWarningMessage(`Not pinned for all agents: ${r.reason}.`);
    await deps.refresh();
    return result;
  };

  context.subscriptions.push(
    // The CLI, git or another window changed pins.json: the tree shows it.
    agentPins.onDidChangeOnDisk(() => void deps.refresh()),
    vscode.commands.registerCommand('sessionKnowledge.pinForAllAgents', async (target?: unknown, selection?: unknown) => {
      const pinned = new Set(agentPins.current);
      const refs = pinRefs(target, selection) ?? (await pick('Pin for All Agents', deps.items().map((i) => i.id).filter((id) => !pinned.has(id))));
      if (!refs) return undefined;
      const result = await change('pinned', { add: refs });
      if (result && result.refused.length < refs.length) {
        vscode.window.setStatusBarMessage(`$(broadcast) Pinned for all agents (.knowledge/pins.json): ${refs.map((r) => vscode.workspace.asRelativePath(r)).join(', ')}`, 4000);
      }
      return result;
    }),
    vscode.commands.registerCommand('sessionKnowledge.unpinFromAllAgents', async (target?: unknown, selection?: unknown) => {
      const refs = pinRefs(target, selection) ?? (await pick('Unpin from All Agents', agentPins.current));
      if (!refs) return undefined;
      return change('unpinned', { remove: refs });
    }),
  );
}
