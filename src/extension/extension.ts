/**
 * Extension host entry. Starts the language server, registers the tree, commands and problem reporting,
 * and returns the API. A start-up failure is shown to the person: VS Code itself shows nothing.
 */
import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import { createLanguageClient } from './languageClient';
import { NotesTreeProvider } from './notesTree';
import { CompilePinsRequest, GetDraftPinsRequest, GetSessionRequest, ListItemsRequest, RenamePinRequest } from '../shared/protocol';
import type { SessionKnowledgeApi } from './api';
import { createApi } from './apiImpl';
import { registerParticipant } from './chat/participant';
import { registerTools } from './chat/tools';
import { blockBudget } from './chat/knowledgeSend';
import { Scheduler } from './scheduler';
import { KnowledgeMeter } from './meter';
import { ServerEvents } from './serverEvents';
import { registerKnowledgeCommands } from './knowledgeCommands';
import { registerSessionCommands } from './sessionCommands';
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
  const flag = memoryFlagSet();
  const lc = createLanguageClient(context, output, {
    workspaceFolder: folder?.uri.scheme === 'file' ? folder.uri.fsPath : null,
    globalStoragePath: context.globalStorageUri.fsPath,
    memoryEnabled: flag,
  });
  client = lc;
  // Every notification has one handler, here, fanned out to the tree, the meter, the panel and memory.
  const events = new ServerEvents(lc);
  context.subscriptions.push(events);

  /** The @knowledge session this window talked in last (the tree, the meter and the tools act on it). */
  let activeSession: string | undefined;
  const activeSessionPins = async (): Promise<string[]> => {
    if (!activeSession) return [];
    try {
      return (await lc.sendRequest(GetSessionRequest.type, { key: activeSession })).pins;
    } catch {
      return [];
    }
  };
  const tree = new NotesTreeProvider({
    items: () => lc.sendRequest(ListItemsRequest.type, {}),
    draftPins: () => lc.sendRequest(GetDraftPinsRequest.type),
    activeSession: async () => (activeSession ? { key: activeSession, pins: await activeSessionPins() } : undefined),
    compile: (pins) => lc.sendRequest(CompilePinsRequest.type, { pins, budgetTokens: blockBudget() }).then(undefined, () => undefined),
    workspaceFolder: folder?.uri,
  });
  const view = vscode.window.createTreeView('sessionKnowledge.notes', { treeDataProvider: tree, showCollapseAll: false, canSelectMany: true });
  context.subscriptions.push(view);
  const meter = new KnowledgeMeter(lc);
  context.subscriptions.push(meter);

  /** The editor title offers Pin or Unpin: whichever applies to the file in the active editor. */
  const updateEditorPinned = () => {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const id = uri?.scheme === 'file' && folder ? vscode.workspace.asRelativePath(uri, false) : undefined;
    void vscode.commands.executeCommand('setContext', 'sessionKnowledge.editorPinned', Boolean(id && tree.draftPins.includes(id)));
  };
  const refresh = async () => {
    try {
      await tree.refresh();
    } catch (err) {
      output.warn(`refresh failed: ${(err as Error).message}`);
    }
    updateEditorPinned();
    void meter.show(activeSession);
  };

  const shownProblems = new Set<string>();
  context.subscriptions.push(
    events.onItemsChanged(() => void refresh()),
    events.onStoreChanged(() => void refresh()),
    events.onProblem((problem) => {
      // The server has already written it to this output channel (window/logMessage, for any LSP client).
      // Once per distinct report: a later, different report on the same file (another bad line) is shown too.
      const seen = `${problem.path}\0${problem.message}`;
      if (shownProblems.has(seen)) return;
      shownProblems.add(seen);
      const actions = problem.setAsidePath ? ['Open Set-Aside File', 'Show Output'] : ['Show Output'];
      void vscode.window.showWarningMessage(`Session Knowledge: ${problem.message}`, ...actions).then((choice) => {
        if (choice === 'Show Output') output.show(true);
        if (choice === 'Open Set-Aside File' && problem.setAsidePath) void vscode.window.showTextDocument(vscode.Uri.file(problem.setAsidePath));
      });
    }),
    vscode.window.onDidChangeActiveTextEditor(updateEditorPinned),
  );

  registerKnowledgeCommands(context, {
    client: lc,
    output,
    folder,
    items: () => tree.current,
    draftPins: () => tree.draftPins,
    activeSession: () => activeSession,
    activeSessionPins,
    refresh,
  });

  await lc.start();
  context.subscriptions.push({ dispose: () => void lc.stop() });
  await refresh();

  // ---- sessions: the participant, tools, scheduled prompts, the meter ----
  const chatHandler = registerParticipant(context, {
    client: lc,
    log: output,
    onActiveSession: (key) => {
      if (activeSession !== key) {
        activeSession = key;
        void vscode.commands.executeCommand('setContext', 'sessionKnowledge.hasActiveSession', true);
      }
      void refresh();
    },
  });
  registerTools(context, { client: lc, log: output, activeSession: () => activeSession });
  const scheduler = new Scheduler(lc, output);
  scheduler.start();
  context.subscriptions.push(
    scheduler,
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
  );
  registerSessionCommands(context, {
    client: lc,
    meter,
    scheduler,
    activeSession: () => activeSession,
    forgetActiveSession: () => {
      activeSession = undefined;
      void vscode.commands.executeCommand('setContext', 'sessionKnowledge.hasActiveSession', false);
    },
    refresh,
  });
  watchChatAvailability(context, view);

  // ---- agent memory: exists only when SESSION_KNOWLEDGE_MEMORY_ENABLE is set (absent, not switched off) ----
  void vscode.commands.executeCommand('setContext', 'sessionKnowledge.memoryFlag', flag);
  let memory: MemoryController | undefined;
  if (flag) {
    const m = new MemoryController(context, lc, output, events.onMemoryChanged);
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
      events.onItemsChanged(() => panelChanged.fire()),
      events.onStoreChanged(() => panelChanged.fire()),
      registerKnowledgePanel(context, { client: lc, log: output, memoryOn: () => m.isOn(), setMemoryOn: (on) => m.setOn(on), onDidChange: panelChanged.event }),
    );
    registerMemoryTools(context, { client: lc, activeSession: () => activeSession });
    registerMemoryCommands(context, lc);
    registerMemorySettings(context, m);
  }

  const api: SessionKnowledgeApi & { __test?: unknown } = createApi(lc);
  if (memory) api.memory = memoryApi(lc, memory);
  // Tests drive the participant and the scheduler directly (the web workbench has no chat view). Never set in production.
  if (process.env.SK_TEST_HOOKS === '1') api.__test = { chatHandler, scheduler, memory, meter, activeSession: () => activeSession, request: (method: string, params?: unknown) => lc.sendRequest(method, params) };
  return api;
}

/**
 * Without a language model there is no chat to deliver to: the tree says so instead of leaving the person to
 * wonder why nothing happens (pins are still kept for when a chat extension arrives).
 */
function watchChatAvailability(context: vscode.ExtensionContext, view: vscode.TreeView<unknown>): void {
  const check = async () => {
    let models = 0;
    try {
      models = (await vscode.lm.selectChatModels()).length;
    } catch {
      models = 0;
    }
    view.message = models === 0 ? 'No chat model is available in this window. Pins are saved; a chat extension such as GitHub Copilot delivers them through @knowledge.' : undefined;
    void vscode.commands.executeCommand('setContext', 'sessionKnowledge.noChatModel', models === 0);
  };
  void check();
  context.subscriptions.push(vscode.lm.onDidChangeChatModels(() => void check()));
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop();
}
