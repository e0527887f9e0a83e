/** The status-bar meter: what the active session carries, and its block's tokens against the budget. */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { GetDraftPinsRequest, GetSessionRequest } from '../shared/protocol';

export class KnowledgeMeter implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('sessionKnowledge.meter', vscode.StatusBarAlignment.Right, 100);

  constructor(private readonly client: LanguageClient) {
    this.item.name = 'Session Knowledge';
    this.item.command = 'sessionKnowledge.showSessionStatus';
  }

  async show(sessionKey: string | undefined): Promise<void> {
    try {
      if (!sessionKey) {
        const draft = await this.client.sendRequest(GetDraftPinsRequest.type);
        this.item.text = `$(pin) ${draft.length}`;
        this.item.tooltip = draft.length ? `${draft.length} item(s) pinned to the next @knowledge chat` : 'Session Knowledge: nothing pinned to the next chat';
        this.item.show();
        return;
      }
      const info = await this.client.sendRequest(GetSessionRequest.type, { key: sessionKey });
      const state = !info.delivered ? 'never delivered' : info.pending && info.pending !== info.delivered ? 're-send pending' : 'carrying';
      const budget = info.budget;
      const cut = budget && (budget.cutItems.length > 0 || budget.cutMemoryEntries > 0);
      this.item.text = `$(book) ${info.pins.length}${budget ? ` · ${Math.round(budget.usedTokens / 100) / 10}k/${Math.round(budget.budgetTokens / 100) / 10}k` : ''}${cut ? ' $(warning)' : ''}`;
      this.item.tooltip = new vscode.MarkdownString(
        `**Session Knowledge** — ${state}\n\n${info.pins.length} pinned item(s)${budget ? `; block ${budget.usedTokens} of ${budget.budgetTokens} tokens` : ''}${cut ? `\n\nCut to fit: ${[...budget!.cutItems, budget!.cutMemoryEntries ? `${budget!.cutMemoryEntries} memory entries` : ''].filter(Boolean).join(', ')}` : ''}`,
      );
      this.item.backgroundColor = cut ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
      this.item.show();
    } catch {
      this.item.hide();
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
