/**
 * Extension host entry. Registers the tree, commands and problem reporting, and returns the API without
 * waiting for the language server: its process starts on first need (a request, a workspace with
 * `.knowledge/`, a `.knowledge/` file opened, the tree shown). A start-up failure is shown to the person:
 * VS Code itself shows nothing.
 */
import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import { ServerSetup, createLanguageClient } from './languageClient';
import { NotesTreeProvider } from './notesTree';
import { CompilePinsRequest, GetDraftPinsRequest, GetSessionRequest, ListItemsRequest, RenamePinRequest } from '../shared/protocol';
import type { SessionKnowledgeApi } from './api';
import { createApi } from './apiImpl';
import { registerParticipant } from './chat/participant';
import { registerTools } from './chat/tools';
import { blockBudget } from './chat/knowledgeSend';
import { Scheduler } from './scheduler';
import { KnowledgeMeter } from './meter';
import { WalkthroughProgress } from './walkthroughProgress';
import { ServerEvents } from './serverEvents';
import { registerKnowledgeCommands, testConfirmations } from './knowledgeCommands';
import { lastRemedyShown, registerFlaggedRemedy } from './flaggedRemedy';
import { registerSessionCommands } from './sessionCommands';
import { MemoryController, memoryFlagSet } from './memory/memoryController';
import { MemoryConfigureRequest, MemoryInboxCountRequest, MemorySyncPersonalRequest } from '../shared/memoryProtocol';
import { registerDistill, type Distill } from './memory/distillCommands';
import { PersonalSync } from './memory/settingsSyncBridge';
import { registerMemoryTools } from './memory/memoryTools';
import { registerMemoryCommands } from './memory/memoryCommands';
import { registerMemorySettings } from './memory/memorySettings';
import { registerKnowledgePanel } from './panel/knowledgePanel';
import { PanelStateBuilder } from './panel/panelState';
import { SeenStore } from './panel/seenStore';
import { memoryApi } from './memory/memoryApi';
import { registerRetention, sessionRetentionDays } from './retention';
import { AgentPins, registerAgentPinCommands } from './agents/agentPinCommands';
import { registerAgentSetup } from './agents/agentSetup';
import { registerCliCommands } from './agents/cliCommand';
import { registerCopilotShare } from './agents/copilotShare';
import { KnowledgeFolders, fileWorkspaceFolders } from './knowledgeFolders';
import { GuardedSettings } from './guardedSettings';
import { registerPinTargets, testPinTargets } from './pinTargets';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<SessionKnowledgeApi | undefined> {
  const output = vscode.window.createOutputChannel('Session Knowledge', { log: true });
  context.subscriptions.push(output, vscode.commands.registerCommand('sessionKnowledge.showOutput', () => output.show(true)));
  try {
    return await start(context, output);
  } catch (err) {
    reportStartFailure(output, err);
    return undefined;
  }
}

function reportStartFailure(output: vscode.LogOutputChannel, err: unknown): void {
  const message = `Session Knowledge could not start: ${(err as Error)?.message ?? String(err)}`;
  output.error(`${message}\n${(err as Error)?.stack ?? ''}`);
  void vscode.window.showErrorMessage(message, 'Show Output').then((c) => c && output.show(true));
}

async function start(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<SessionKnowledgeApi> {
  // The first folder: it names the sessions store and holds project memory (VS Code restarts extensions when it changes).
  const folder = vscode.workspace.workspaceFolders?.[0];
  const flag = memoryFlagSet(output);
  const setup = new ServerSetup();
  // Creating the client starts no process: see startServer below. Every folder is indexed; the options are read
  // again when the server restarts, so it starts with the folders the workspace has then.
  const lc = createLanguageClient(context, output, () => ({
    workspaceFolder: folder?.uri.scheme === 'file' ? folder.uri.fsPath : null,
    workspaceFolders: fileWorkspaceFolders(),
    globalStoragePath: context.globalStorageUri.fsPath,
    memoryEnabled: flag,
  }), setup);
  client = lc;
  const folders = new KnowledgeFolders(lc);
  // shareWithCopilot and scheduledPrompts: a workspace value counts once this person confirmed it (per-user state).
  const guarded = new GuardedSettings(context.globalState);
  context.subscriptions.push(setup, guarded);
  registerRetention(context, lc, setup, output);
  /** Starts the server process once (a request before this starts it too). A failure is shown to the person. */
  let starting: Promise<void> | undefined;
  const startServer = (why: string): Promise<void> =>
    (starting ??= (async () => {
      output.info(`Starting the language server: ${why}.`);
      await vscode.workspace.fs.createDirectory(context.globalStorageUri);
      await lc.start();
    })().catch((err: unknown) => reportStartFailure(output, err)));
  // Every notification has one handler, here, fanned out to the tree, the meter, the panel and memory.
  const events = new ServerEvents(lc);
  context.subscriptions.push(events);

  /** The @knowledge session this window talked in last (the tree, the meter and the tools act on it). */
  let activeSession: string | undefined;
  const activeSessionRead = async (): Promise<{ pins: string[]; name?: string }> => {
    if (!activeSession) return { pins: [] };
    try {
      const { pins, name } = await lc.sendRequest(GetSessionRequest.type, { key: activeSession });
      return { pins, name };
    } catch {
      return { pins: [] };
    }
  };
  const activeSessionPins = async (): Promise<string[]> => (await activeSessionRead()).pins;
  const agentPins = new AgentPins(lc, folder, folders);
  context.subscriptions.push(agentPins);
  const tree = new NotesTreeProvider({
    items: () => lc.sendRequest(ListItemsRequest.type, {}),
    draftPins: () => lc.sendRequest(GetDraftPinsRequest.type),
    activeSession: async () => (activeSession ? { key: activeSession, ...(await activeSessionRead()) } : undefined),
    compile: (pins) => lc.sendRequest(CompilePinsRequest.type, { pins, budgetTokens: blockBudget() }).then(undefined, () => undefined),
    agentPins: () => agentPins.load(),
    uriOf: (id) => folders.uriOf(id),
  });
  const view = vscode.window.createTreeView('sessionKnowledge.notes', { treeDataProvider: tree, showCollapseAll: false, canSelectMany: true });
  context.subscriptions.push(view);
  const meter = new KnowledgeMeter(lc, (id) => folders.uriOf(id));
  context.subscriptions.push(meter);
  const walkthrough = new WalkthroughProgress((uri) => folders.idOf(uri));
  context.subscriptions.push(walkthrough);

  /** The editor title offers Pin or Unpin: whichever applies to the file in the active editor. */
  const updateEditorPinned = () => {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const id = uri ? folders.idOf(uri) : undefined;
    void vscode.commands.executeCommand('setContext', 'sessionKnowledge.editorPinned', Boolean(id && tree.draftPins.includes(id)));
    void vscode.commands.executeCommand('setContext', 'sessionKnowledge.editorPinnedToSession', Boolean(id && tree.activeChat?.pins.includes(id)));
  };
  const refresh = async () => {
    try {
      await folders.refresh();
      await tree.refresh();
      void meter.show(activeSession, tree.shown);
      walkthrough.observe({ items: tree.current, draftPins: tree.draftPins, sessionPins: activeSession ? tree.shown.pins : [], agentPins: tree.agentPins });
    } catch (err) {
      output.warn(`refresh failed: ${(err as Error).message}`);
      void meter.show(activeSession);
    }
    updateEditorPinned();
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
    folders,
    items: () => tree.current,
    draftPins: () => tree.draftPins,
    activeSession: () => activeSession,
    activeSessionPins,
    refresh,
  });
  registerFlaggedRemedy(context, { client: lc, output, refresh });

  // "Pin…": This chat (named), Next chat, All agents — the choice remembered in this window's workspace state.
  registerPinTargets(context, {
    state: context.workspaceState,
    activeChat: () => (activeSession ? { key: activeSession, name: tree.activeChat?.key === activeSession ? tree.activeChat.name ?? 'this chat' : 'this chat' } : undefined),
  });

  // ---- agents that are not ours: pins for all agents, Claude Code's hooks, MCP, Copilot's instruction file ----
  registerAgentPinCommands(context, { agentPins, items: () => tree.current, refresh });
  const agentSetup = registerAgentSetup(context, { output });
  registerCliCommands(context, { output });
  registerCopilotShare(context, { client: lc, output, folder, events, agentPins, settings: guarded });

  // The views are filled whenever the server is running: its first start (whatever caused it) and restarts.
  context.subscriptions.push(
    lc.onDidChangeState((e) => {
      if (e.newState === State.Running) void refresh();
    }),
    { dispose: () => void lc.stop().catch(() => undefined) },
  );
  startServerOnNeed(view, startServer, context);

  // ---- sessions: the participant, tools, scheduled prompts, the meter ----
  /** Distillation, set below only with the memory flag. */
  let distill: Distill | undefined;
  const chatHandler = registerParticipant(context, {
    client: lc,
    log: output,
    ...(flag ? { distill: () => distill?.chat, memoryOn: () => memory?.isOn() === true } : {}),
    uriOf: (id) => folders.uriOf(id),
    onActiveSession: (key) => {
      walkthrough.mark('chatted');
      if (activeSession !== key) {
        activeSession = key;
        void vscode.commands.executeCommand('setContext', 'sessionKnowledge.hasActiveSession', true);
      }
      void refresh();
    },
  });
  registerTools(context, { client: lc, log: output, activeSession: () => activeSession });
  const scheduler = new Scheduler(lc, output, guarded);
  scheduler.start();
  context.subscriptions.push(
    scheduler,
    // Pins follow a rename made in VS Code (the server turns the paths into ids of the folders that hold them).
    vscode.workspace.onDidRenameFiles(async (e) => {
      if (!folder) return;
      for (const f of e.files) {
        if (f.oldUri.scheme !== 'file' || f.newUri.scheme !== 'file') continue;
        const oldId = f.oldUri.fsPath;
        const newId = f.newUri.fsPath;
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
  let personalSync: PersonalSync | undefined;
  if (flag) {
    const m = new MemoryController(context, lc, output, events.onMemoryChanged);
    memory = m;
    const memoryOn = () => void (m.isOn() && walkthrough.mark('memoryOn'));
    memoryOn();
    context.subscriptions.push(m.onDidChange(memoryOn));
    // A (re)started server starts with memory off: the switch and options reach it before any other request.
    setup.add([MemoryConfigureRequest.method], () => m.push());
    context.subscriptions.push(
      m,
      vscode.commands.registerCommand('sessionKnowledge.memory.turnOn', () => m.setOn(true)),
      vscode.commands.registerCommand('sessionKnowledge.memory.turnOff', () => m.setOn(false)),
    );
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
    distill = registerDistill(context, { client: lc, log: output, memory: m, activeSession: () => activeSession });
    // The status bar counts what waits in the inbox while memory is on.
    meter.setInboxCount(() => (m.isOn() ? lc.sendRequest(MemoryInboxCountRequest.type).then((c) => c.total) : Promise.resolve(0)));
    context.subscriptions.push(m.onDidChange(() => void meter.show(activeSession)));
    // Personal memory through Settings Sync: opt-in (Memory Settings), only while the server runs (it never starts it).
    const sync = new PersonalSync({
      state: context.globalState,
      sync: (params) => lc.sendRequest(MemorySyncPersonalRequest.type, params),
      memoryOn: () => m.isOn(),
      tell: (level, message) => {
        output[level](message);
        void (level === 'warn' ? vscode.window.showWarningMessage(message) : vscode.window.showInformationMessage(message));
      },
    });
    personalSync = sync;
    let syncTimer: NodeJS.Timeout | undefined;
    const syncSoon = (delayMs = 1000) => {
      clearTimeout(syncTimer);
      syncTimer = setTimeout(() => {
        if (lc.isRunning()) void sync.run().catch((err: unknown) => output.warn(`Settings Sync of personal memory: ${(err as Error).message}`));
      }, delayMs);
    };
    const poll = setInterval(() => {
      if (sync.isOn() && sync.arrived()) syncSoon(0);
    }, 60_000);
    context.subscriptions.push(
      { dispose: () => (clearTimeout(syncTimer), clearInterval(poll)) },
      m.onDidChange(() => {
        sync.noteLocalChange();
        syncSoon();
      }),
      vscode.window.onDidChangeWindowState((w) => {
        if (w.focused && sync.isOn() && sync.arrived()) syncSoon(0);
      }),
      lc.onDidChangeState((e) => {
        if (e.newState === State.Running) syncSoon(2000);
      }),
    );
    registerMemorySettings(context, m, sync);
  }

  const api: SessionKnowledgeApi & { __test?: unknown } = createApi(lc);
  if (memory && distill) api.memory = memoryApi(lc, memory, distill);
  // Tests drive the participant and the scheduler directly (the web workbench has no chat view). Never set in production.
  if (process.env.SK_TEST_HOOKS === '1') {
    api.__test = {
      chatHandler, scheduler, memory, guardedSettings: guarded, meter, distill, activeSession: () => activeSession, request: (method: string, params?: unknown) => lc.sendRequest(method, params),
      // The answers the next "are you sure?" pickers get (the web workbench's quick pick is not driven from here).
      confirmNext: (...answers: boolean[]) => void testConfirmations.push(...answers),
      // The targets the next "Pin…" questions get (the web workbench's quick pick is not driven from here).
      pinTargetNext: (...targets: ('thisChat' | 'nextChat' | 'allAgents')[]) => void testPinTargets.push(...targets),
      workspaceState: (key: string) => context.workspaceState.get(key),
      // What the last remedy confirmations showed (flaggedRemedy.ts): title, the confirm entry, the lines.
      remedyShown: () => [...lastRemedyShown],
      // What the `sessionKnowledge.memoryFlag` context key was set to (VS Code has no API that reads one back).
      memoryFlag: flag,
      serverState: () => lc.state,
      notesTree: tree,
      // The walkthrough's context keys set so far (package.json's completion events name them).
      walkthrough: walkthrough.done,
      mcpProvider: agentSetup.mcpProvider,
      folders,
      // What the knowledge panel would show now (it exists only with the memory flag).
      panelState: memory ? () => new PanelStateBuilder(lc, new SeenStore(context.globalState), blockBudget, sessionRetentionDays).build(memory!.isOn()) : undefined,
      personalSync,
      // Writes a global-state key as Settings Sync would when it brings another machine's value.
      setGlobalState: (key: string, value: unknown) => context.globalState.update(key, value),
      globalState: (key: string) => context.globalState.get(key),
    };
  }
  return api;
}

/**
 * What needs the server before any request does: a workspace folder with `.knowledge/` (its diagnostics and
 * tree), one added later, a `.knowledge/` file opened in an editor (diagnostics), the Notes and Plans view shown.
 * A window whose folders have none of these starts no process: a folder without `.knowledge/` costs one stat.
 */
function startServerOnNeed(view: vscode.TreeView<unknown>, startServer: (why: string) => Promise<void>, context: vscode.ExtensionContext): void {
  const isKnowledgeFile = (d: vscode.TextDocument) => d.uri.scheme === 'file' && /[\\/]\.knowledge[\\/]/.test(d.uri.fsPath);
  const startIfKnowledge = (folders: readonly vscode.WorkspaceFolder[], why: string) => {
    for (const f of folders) {
      void Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.joinPath(f.uri, '.knowledge'))).then(
        () => startServer(`${why} ${f.name} has .knowledge/`),
        () => undefined, // no .knowledge/: wait for a need
      );
    }
  };
  startIfKnowledge(vscode.workspace.workspaceFolders ?? [], 'the workspace folder');
  if (vscode.workspace.textDocuments.some(isKnowledgeFile)) void startServer('a .knowledge/ file is open');
  if (view.visible) void startServer('the Notes and Plans view is shown');
  context.subscriptions.push(
    // A running server hears of the change itself (workspace/didChangeWorkspaceFolders); a stopped one starts when it matters.
    vscode.workspace.onDidChangeWorkspaceFolders((e) => startIfKnowledge(e.added, 'the added folder')),
    vscode.workspace.onDidOpenTextDocument((d) => {
      if (isKnowledgeFile(d)) void startServer('a .knowledge/ file was opened');
    }),
    view.onDidChangeVisibility((e) => {
      if (e.visible) void startServer('the Notes and Plans view was shown');
    }),
  );
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
  if (c) await c.stop().catch(() => undefined);
}
