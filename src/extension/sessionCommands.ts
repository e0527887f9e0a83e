/**
 * Commands on chat sessions: what the next message carries (the status bar's quick pick and the block preview),
 * scheduled prompts and their results, and deleting a session with its session memory.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { DeleteSessionRequest, ListSessionsPageRequest } from '../shared/protocol';
import type { KnowledgeMeter } from './meter';
import { type Scheduler, showScheduledResults } from './scheduler';
import { confirmSafely } from './knowledgeCommands';

export interface SessionCommandDeps {
  client: LanguageClient;
  meter: KnowledgeMeter;
  scheduler: Scheduler;
  activeSession: () => string | undefined;
  /** The active session was deleted. */
  forgetActiveSession: () => void;
  refresh: () => Promise<void>;
}

export function registerSessionCommands(context: vscode.ExtensionContext, deps: SessionCommandDeps): void {
  const { client: lc, meter, scheduler } = deps;
  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.showSessionStatus', () => meter.pick(deps.activeSession())),
    vscode.commands.registerCommand('sessionKnowledge.previewBlock', () => meter.preview(deps.activeSession())),
    vscode.commands.registerCommand('sessionKnowledge.runScheduledPrompt', async (name?: string) => {
      const schedules = scheduler.schedules();
      if (schedules.length === 0) {
        void vscode.window.showInformationMessage('No scheduled prompts are configured. Add them under the setting sessionKnowledge.scheduledPrompts.', 'Open Settings').then((c) => c && void vscode.commands.executeCommand('workbench.action.openSettings', 'sessionKnowledge.scheduledPrompts'));
        return undefined;
      }
      const chosen = name ? schedules.find((s) => s.name === name) : (await vscode.window.showQuickPick(schedules.map((s) => ({ label: s.name, detail: s.prompt, s }))))?.s;
      if (!chosen) return undefined;
      return scheduler.run(chosen);
    }),
    vscode.commands.registerCommand('sessionKnowledge.showScheduledResults', () => showScheduledResults(lc)),
    vscode.commands.registerCommand('sessionKnowledge.deleteSession', async (key?: string) => {
      let target = typeof key === 'string' ? key : undefined;
      if (!target) {
        // The newest 500 (one page: never a read of every session file); an older one is deleted by key.
        const { sessions } = await lc.sendRequest(ListSessionsPageRequest.type, { limit: 500 });
        if (sessions.length === 0) {
          void vscode.window.showInformationMessage('There are no chat sessions yet.');
          return undefined;
        }
        target = (
          await vscode.window.showQuickPick(
            sessions.map((s) => ({ label: s.name, description: `${s.origin} · ${s.pins.length} pin(s) · ${new Date(s.createdAt).toLocaleString()}`, key: s.key })),
            { title: 'Delete which chat session? Its pins, delivery record and session memory go with it.' },
          )
        )?.key;
        if (!target) return undefined;
        if (!(await confirmSafely('Delete this session? A delete is final.', '$(trash) Delete Session', 'Its pins, its delivery record and its session memory go with it.'))) return undefined;
      }
      const result = await lc.sendRequest(DeleteSessionRequest.type, { key: target });
      if (deps.activeSession() === target) deps.forgetActiveSession();
      if (result.memoryKept) void vscode.window.showWarningMessage(`Session deleted; its session memory was kept: ${result.memoryKept}`);
      await deps.refresh();
      return result;
    }),
  );
}
