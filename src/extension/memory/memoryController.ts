/**
 * Agent memory on the extension side (shipped dark). Exists only when SESSION_KNOWLEDGE_MEMORY_ENABLE is set:
 * then the tools are registered, the panel exists, and the API has a `memory` member. The person's switch is
 * NOT a VS Code setting (a setting would show in the Settings editor even with the flag unset): it lives in
 * global state, off by default, and is flipped in the panel or by command.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { MemoryConfigureRequest } from '../../shared/memoryProtocol';
import type { MemoryConfig } from '../../shared/memorySchemas';
import { readMemoryFlag } from '../../server/core/memory/memoryFlag';
import { writeMemorySwitch } from '../../server/core/memory/memorySwitch';

const ON_KEY = 'sessionKnowledge.memory.on';
const CONFIG_KEY = 'sessionKnowledge.memory.config';

/**
 * Whether memory exists in this extension host (the one parser in src/server/core/memory/memoryFlag.ts; the server is told
 * through `initializationOptions.memoryEnabled`). A value it does not understand is reported in the output.
 */
export function memoryFlagSet(log?: vscode.LogOutputChannel): boolean {
  const { present, warning } = readMemoryFlag(process.env);
  if (warning) log?.warn(warning);
  return present;
}

export type MemoryOptions = Omit<MemoryConfig, 'on'>;

export const DEFAULT_MEMORY_OPTIONS: MemoryOptions = {
  readonly: false,
  caps: { session: 200, project: 1000, personal: 1000 },
  maxAgeDays: 0,
  supersedeThreshold: 0.85,
  indexBudgetTokens: 2000,
  distillOnCompaction: false,
};

export class MemoryController implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly client: LanguageClient,
    private readonly log: vscode.LogOutputChannel,
    /** The server's MemoryChangedNotification (through ServerEvents: one handler per notification). */
    onServerChanged: vscode.Event<void>,
  ) {
    this.disposables.push(onServerChanged(() => this.changed.fire()));
  }

  isOn(): boolean {
    return this.context.globalState.get<boolean>(ON_KEY, false);
  }

  options(): MemoryOptions {
    return { ...DEFAULT_MEMORY_OPTIONS, ...this.context.globalState.get<Partial<MemoryOptions>>(CONFIG_KEY, {}) };
  }

  async setOn(on: boolean): Promise<void> {
    await this.context.globalState.update(ON_KEY, on);
    await this.push();
  }

  async setOptions(options: Partial<MemoryOptions>): Promise<void> {
    await this.context.globalState.update(CONFIG_KEY, { ...this.options(), ...options });
    await this.push();
  }

  /**
   * Sends the switch and the options to the server (on start, on a change, after a server restart), and mirrors
   * them to global storage, where agents outside VS Code (`session-knowledge mcp`) read the person's switch.
   */
  async push(): Promise<void> {
    const config = { on: this.isOn(), ...this.options() };
    try {
      await this.client.sendRequest(MemoryConfigureRequest.type, config);
    } catch (err) {
      this.log.warn(`Could not configure memory: ${(err as Error).message}`);
    }
    try {
      await writeMemorySwitch(this.context.globalStorageUri.fsPath, config);
    } catch (err) {
      this.log.warn(`Could not record the memory switch for agents outside VS Code: ${(err as Error).message}`);
    }
    this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
