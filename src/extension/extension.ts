/**
 * Extension host entry. Starts the language server, registers the tree, commands and problem reporting,
 * and returns the API. A start-up failure is shown to the person: VS Code itself shows nothing.
 */
import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import { createLanguageClient } from './languageClient';
import { NotesTreeProvider, type TreeNode } from './notesTree';
import {
  CreateItemRequest,
  GetDraftPinsRequest,
  ItemsChangedNotification,
  ListItemsRequest,
  ProblemNotification,
  ReindexRequest,
  StatsRequest,
  StatusRequest,
  StoreChangedNotification,
  UpdateDraftPinsRequest,
  CreateSessionRequest,
  GetSessionRequest,
  SetSessionPinsRequest,
  ResolvePendingRequest,
  MarkDeliveredRequest,
  NotifyCompactedRequest,
  RenamePinRequest,
  MarkReviewedRequest,
  UpdateSessionPinsRequest,
  DeleteSessionRequest,
  ListSessionsRequest,
} from '../shared/protocol';
import type { KnowledgeKind, Stats } from '../shared/schemas';
import { fromPins, toPins, type SessionKnowledgeApi } from './api';
import { registerParticipant } from './chat/participant';
import { registerTools } from './chat/tools';
import { blockBudget } from './chat/knowledgeSend';
import { Scheduler, readSchedules, showScheduledResults } from './scheduler';
import { KnowledgeMeter } from './meter';
import { MemoryController, memoryFlagSet } from './memory/memoryController';
import { registerMemoryTools } from './memory/memoryTools';
import { registerMemoryCommands } from './memory/memoryCommands';
import { registerMemorySettings } from './memory/memorySettings';
import { registerKnowledgePanel } from './panel/knowledgePanel';
import { memoryApi } from './memory/memoryApi';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<SessionKnowledgeApi | undefined> {
  const output = vscode.window.createOutputChannel('Session Knowledge', { log: true });
  context.subscriptions.push(output, vscode.commands.registerCommand('sessionKnowledge.showOutput', () => output.show(true)));
  try {
    return await start(context, output);
  } catch (err) {
    const message = `Session Knowledge could not start: ${(err as Error)?.message ?? String(err)}`;
    output.error(`${message}\n${(err as Error)?.stack ?? ''}`);
    void vscode.window.showErrorMessage(message, 'Show Output').then((c) => c && output.show(true));
    return undefined;
  }
}

async function start(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<SessionKnowledgeApi> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  await vscode.workspace.fs.createDirectory(context.globalStorageUri);
  const lc = createLanguageClient(context, output, {
    workspaceFolder: folder?.uri.scheme === 'file' ? folder.uri.fsPath : null,
    globalStoragePath: context.globalStorageUri.fsPath,
    memoryEnabled: Boolean(process.env.SESSION_KNOWLEDGE_MEMORY_ENABLE),
  });
  client = lc;

  /** The @knowledge session this window talked in last (the tree, the meter and the tools act on it). */
  let activeSession: string | undefined;
  const tree = new NotesTreeProvider({
    items: () => lc.sendRequest(ListItemsRequest.type, {}),
    draftPins: () => lc.sendRequest(GetDraftPinsRequest.type),
    activeSession: async () => {
      if (!activeSession) return undefined;
      try {
        const info = await lc.sendRequest(GetSessionRequest.type, { key: activeSession });
        return { key: info.key, pins: info.pins };
      } catch {
        return undefined;
      }
    },
    workspaceFolder: folder?.uri,
  });
  const view = vscode.window.createTreeView('sessionKnowledge.notes', { treeDataProvider: tree, showCollapseAll: false });
  context.subscriptions.push(view);
  const refresh = () =>
    tree.refresh().catch((err: unknown) => output.warn(`refresh failed: ${(err as Error).message}`));

  const shownProblems = new Set<string>();
  context.subscriptions.push(
    lc.onNotification(ItemsChangedNotification.type, () => void refresh()),
    lc.onNotification(StoreChangedNotification.type, () => void refresh()),
    lc.onNotification(ProblemNotification.type, (problem) => {
      output.warn(problem.message);
      if (shownProblems.has(problem.path)) return;
      shownProblems.add(problem.path);
      const actions = problem.setAsidePath ? ['Open Set-Aside File', 'Show Output'] : ['Show Output'];
      void vscode.window.showWarningMessage(`Session Knowledge: ${problem.message}`, ...actions).then((choice) => {
        if (choice === 'Show Output') output.show(true);
        if (choice === 'Open Set-Aside File' && problem.setAsidePath) void vscode.window.showTextDocument(vscode.Uri.file(problem.setAsidePath));
      });
    }),
  );

  const create = async (kind: KnowledgeKind) => {
    if (!folder) {
      void vscode.window.showWarningMessage('Open a folder first: notes and plans live in its .knowledge/ folder.');
      return undefined;
    }
    const title = await vscode.window.showInputBox({
      title: kind === 'note' ? 'New Note' : 'New Plan',
      prompt: `Title of the ${kind}; it becomes the file's first heading`,
      placeHolder: kind === 'note' ? 'e.g. Coding conventions' : 'e.g. Release 1.2',
      validateInput: (v) => (v.trim() === '' ? 'A title is required' : v.length > 200 ? 'At most 200 characters' : undefined),
    });
    if (title === undefined) return undefined;
    const item = await lc.sendRequest(CreateItemRequest.type, { kind, title: title.trim() });
    await refresh();
    await vscode.window.showTextDocument(vscode.Uri.file(item.path), { preview: false });
    return item.id;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.newNote', () => create('note')),
    vscode.commands.registerCommand('sessionKnowledge.newPlan', () => create('plan')),
    vscode.commands.registerCommand('sessionKnowledge.pinToNextChat', async (target?: unknown) => {
      const ref = pinRef(target);
      if (!ref) {
        void vscode.window.showWarningMessage('Open or select a file to pin to the next chat.');
        return undefined;
      }
      const result = await lc.sendRequest(UpdateDraftPinsRequest.type, { add: [ref] });
      for (const r of result.refused) void vscode.window.showWarningMessage(`Not pinned: ${r.reason}.`);
      if (result.refused.length === 0) vscode.window.setStatusBarMessage(`$(pin) Pinned to the next chat: ${vscode.workspace.asRelativePath(ref)}`, 4000);
      await refresh();
      return result;
    }),
    vscode.commands.registerCommand('sessionKnowledge.unpinFromNextChat', async (target?: unknown) => {
      const ref = pinRef(target);
      if (!ref) return undefined;
      const result = await lc.sendRequest(UpdateDraftPinsRequest.type, { remove: [ref] });
      await refresh();
      return result;
    }),
    vscode.commands.registerCommand('sessionKnowledge.markReviewed', async (id?: string, revision?: string) => {
      if (typeof id !== 'string' || typeof revision !== 'string') return undefined;
      const choice = await vscode.window.showWarningMessage(
        `Mark ${id} as reviewed — not a threat? It will reach the agent again, for this exact content only; any edit is judged again.`,
        { modal: true },
        'Mark Reviewed',
      );
      if (choice !== 'Mark Reviewed') return undefined;
      try {
        const review = await lc.sendRequest(MarkReviewedRequest.type, { id, revision });
        vscode.window.setStatusBarMessage(`$(check) ${id} marked reviewed (${review.rules.join(', ')})`, 5000);
        await refresh();
        return review;
      } catch (err) {
        void vscode.window.showErrorMessage(`Not marked: ${(err as Error).message}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('sessionKnowledge.pinToActiveSession', async (target?: unknown) => {
      const ref = pinRef(target);
      if (!activeSession || !ref) {
        void vscode.window.showInformationMessage('No @knowledge session in this window yet: use Pin to Next Chat instead.');
        return undefined;
      }
      try {
        const info = await lc.sendRequest(UpdateSessionPinsRequest.type, { key: activeSession, add: [ref] });
        vscode.window.setStatusBarMessage('$(pin) Pinned to the active session; the next message sends it', 4000);
        await refresh();
        return info;
      } catch (err) {
        void vscode.window.showWarningMessage(`Not pinned: ${(err as Error).message}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('sessionKnowledge.unpinFromActiveSession', async (target?: unknown) => {
      const ref = pinRef(target);
      if (!activeSession || !ref) return undefined;
      const info = await lc.sendRequest(UpdateSessionPinsRequest.type, { key: activeSession, remove: [ref] });
      await refresh();
      return info;
    }),
    vscode.commands.registerCommand('sessionKnowledge.refresh', async () => {
      await lc.sendRequest(ReindexRequest.type);
      await refresh();
    }),
    vscode.commands.registerCommand('sessionKnowledge.openKnowledgeFolder', async () => {
      if (!folder) {
        void vscode.window.showWarningMessage('Open a folder first: the knowledge folder is .knowledge/ inside it.');
        return;
      }
      const uri = vscode.Uri.joinPath(folder.uri, '.knowledge');
      await vscode.workspace.fs.createDirectory(uri);
      await vscode.commands.executeCommand('revealInExplorer', uri);
    }),
    vscode.commands.registerCommand('sessionKnowledge.showStats', async (): Promise<Stats> => {
      const stats = await lc.sendRequest(StatsRequest.type);
      output.appendLine(formatStats(stats));
      const summary = `Session Knowledge: ${stats.notes} notes, ${stats.plans} plans, ${stats.sessions} sessions; ${stats.problems.length === 0 ? 'no problems' : `${stats.problems.length} problem(s)`}.`;
      void vscode.window.showInformationMessage(summary, 'Show Output').then((c) => c && output.show(true));
      return stats;
    }),
  );

  await lc.start();
  context.subscriptions.push({ dispose: () => void lc.stop() });
  await refresh();

  // ---- sessions: the participant, tools, scheduled prompts, the meter ----
  const meter = new KnowledgeMeter(lc);
  context.subscriptions.push(meter);
  const chatHandler = registerParticipant(context, {
    client: lc,
    log: output,
    onActiveSession: (key) => {
      if (activeSession !== key) {
        activeSession = key;
        void vscode.commands.executeCommand('setContext', 'sessionKnowledge.hasActiveSession', true);
        void refresh();
      }
      void meter.show(key);
    },
  });
  registerTools(context, { client: lc, log: output, activeSession: () => activeSession });
  const scheduler = new Scheduler(lc, output);
  scheduler.start();
  context.subscriptions.push(
    scheduler,
    lc.onNotification(StoreChangedNotification.type, () => void meter.show(activeSession)),
    // Pins follow a rename made in VS Code.
    vscode.workspace.onDidRenameFiles(async (e) => {
      if (!folder) return;
      for (const f of e.files) {
        const oldId = vscode.workspace.asRelativePath(f.oldUri, false);
        const newId = vscode.workspace.asRelativePath(f.newUri, false);
        try {
          await lc.sendRequest(RenamePinRequest.type, { oldId, newId });
        } catch (err) {
          output.warn(`Could not move pins from ${oldId} to ${newId}: ${(err as Error).message}`);
        }
      }
      await refresh();
    }),
    vscode.commands.registerCommand('sessionKnowledge.runScheduledPrompt', async (name?: string) => {
      const schedules = readSchedules();
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
        const sessions = await lc.sendRequest(ListSessionsRequest.type);
        if (sessions.length === 0) {
          void vscode.window.showInformationMessage('There are no chat sessions yet.');
          return undefined;
        }
        target = (
          await vscode.window.showQuickPick(
            sessions.map((s) => ({ label: s.label ?? s.key, description: `${s.origin} · ${s.pins.length} pin(s) · ${new Date(s.createdAt).toLocaleString()}`, key: s.key })),
            { title: 'Delete which chat session? Its pins, delivery record and session memory go with it.' },
          )
        )?.key;
        if (!target) return undefined;
        const ok = await vscode.window.showWarningMessage('Delete this session? A delete is final.', { modal: true }, 'Delete Session');
        if (ok !== 'Delete Session') return undefined;
      }
      const result = await lc.sendRequest(DeleteSessionRequest.type, { key: target });
      if (activeSession === target) {
        activeSession = undefined;
        void vscode.commands.executeCommand('setContext', 'sessionKnowledge.hasActiveSession', false);
      }
      if (result.memoryKept) void vscode.window.showWarningMessage(`Session deleted; its session memory was kept: ${result.memoryKept}`);
      await refresh();
      return result;
    }),
    vscode.commands.registerCommand('sessionKnowledge.showSessionStatus', async () => {
      if (!activeSession) {
        void vscode.window.showInformationMessage('No @knowledge session in this window yet. Pins made now go to the next chat.');
        return;
      }
      await meter.show(activeSession);
      const info = await lc.sendRequest(GetSessionRequest.type, { key: activeSession });
      output.info(`Session ${info.key}: pins ${info.pins.join(', ') || '(none)'}; delivered ${info.delivered || '(never)'}; pending ${info.pending || '(not computed)'}`);
      output.show(true);
    }),
  );
  void meter.show(undefined);

  // ---- agent memory: exists only when SESSION_KNOWLEDGE_MEMORY_ENABLE is set (absent, not switched off) ----
  const flag = memoryFlagSet();
  void vscode.commands.executeCommand('setContext', 'sessionKnowledge.memoryFlag', flag);
  let memory: MemoryController | undefined;
  if (flag) {
    const m = new MemoryController(context, lc, output);
    memory = m;
    context.subscriptions.push(
      m,
      // A restarted server starts with memory off: configure it again.
      lc.onDidChangeState((e) => {
        if (e.newState === State.Running) void m.push();
      }),
      vscode.commands.registerCommand('sessionKnowledge.memory.turnOn', () => m.setOn(true)),
      vscode.commands.registerCommand('sessionKnowledge.memory.turnOff', () => m.setOn(false)),
    );
    await m.push();
    // The Knowledge Panel exists only with the flag (its view's `when` clause reads the same context key).
    const panelChanged = new vscode.EventEmitter<void>();
    context.subscriptions.push(
      panelChanged,
      m.onDidChange(() => panelChanged.fire()),
      lc.onNotification(ItemsChangedNotification.type, () => panelChanged.fire()),
      lc.onNotification(StoreChangedNotification.type, () => panelChanged.fire()),
      registerKnowledgePanel(context, { client: lc, log: output, memoryOn: () => m.isOn(), setMemoryOn: (on) => m.setOn(on), onDidChange: panelChanged.event }),
    );
    registerMemoryTools(context, { client: lc, activeSession: () => activeSession });
    registerMemoryCommands(context, lc);
    registerMemorySettings(context, m);
  }

  const api: SessionKnowledgeApi & { __test?: unknown } = {
    apiVersion: 1,
    sessions: {
      create: async (options) => (await lc.sendRequest(CreateSessionRequest.type, { pins: fromPins(options?.pins), ...(options?.label ? { label: options.label } : {}), origin: 'api' })).key,
      getPins: async (key) => toPins((await lc.sendRequest(GetSessionRequest.type, { key })).pins),
      setPins: async (key, pins) => {
        await lc.sendRequest(SetSessionPinsRequest.type, { key, pins: fromPins(pins) });
      },
    },
    delivery: {
      resolvePending: async (key) => {
        const { text, signature } = await lc.sendRequest(ResolvePendingRequest.type, { key, budgetTokens: blockBudget() });
        return { text, signature };
      },
      markDelivered: async (key, signature) => {
        await lc.sendRequest(MarkDeliveredRequest.type, { key, signature });
      },
      notifyCompacted: async (key) => {
        const { text, signature } = await lc.sendRequest(NotifyCompactedRequest.type, { key, budgetTokens: blockBudget() });
        return { text, signature };
      },
      delivered: async (key) => (await lc.sendRequest(GetSessionRequest.type, { key })).delivered,
    },
    // Titles of flagged items are withheld from other extensions too: they may hand them to a model.
    listItems: async () =>
      (await lc.sendRequest(ListItemsRequest.type, {})).map(({ id, kind, title, revision, flaggedRules }) => ({
        id,
        kind,
        title: flaggedRules.length > 0 ? '(withheld: reads as an instruction)' : title,
        revision,
        flagged: flaggedRules.length > 0,
      })),
    getDraftPins: () => lc.sendRequest(GetDraftPinsRequest.type),
    serverStatus: async () => {
      const { pid, startedAt } = await lc.sendRequest(StatusRequest.type);
      return { pid, startedAt };
    },
  };
  if (memory) api.memory = memoryApi(lc, memory);
  // Tests drive the participant and the scheduler directly (the web workbench has no chat view). Never set in production.
  if (process.env.SK_TEST_HOOKS === '1') api.__test = { chatHandler, scheduler, memory, activeSession: () => activeSession, request: (method: string, params?: unknown) => lc.sendRequest(method, params) };
  return api;
}

/** What a pin command was invoked on: a tree node, a file URI (explorer, editor title), or the active editor. */
function pinRef(target: unknown): string | undefined {
  const node = target as TreeNode | undefined;
  if (node && typeof node === 'object' && 'type' in node) {
    if (node.type === 'item') return node.item.id;
    if (node.type === 'draftPin' || node.type === 'sessionPin') return node.id;
  }
  if (target instanceof vscode.Uri) return target.scheme === 'file' ? target.fsPath : undefined;
  if (typeof target === 'string') return target;
  const active = vscode.window.activeTextEditor?.document.uri;
  return active?.scheme === 'file' ? active.fsPath : undefined;
}

export function formatStats(stats: Stats): string {
  const lines = [
    `Workspace: ${stats.workspaceFolder ?? '(none)'}`,
    `Notes: ${stats.notes}  Plans: ${stats.plans}  Sessions: ${stats.sessions}  Draft pins: ${stats.draftPins}`,
    ...stats.stores.map((s) => `Store ${s.source}: ${s.state}${s.schemaVersion !== null ? ` (schema v${s.schemaVersion})` : ''} — ${s.path}`),
    ...(stats.problems.length === 0 ? ['Problems: none'] : stats.problems.map((p) => `Problem: ${p.message}`)),
  ];
  return lines.join('\n');
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop();
}
