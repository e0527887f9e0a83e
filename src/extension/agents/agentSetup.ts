/**
 * Wiring Session Knowledge into agents that are not ours, from VS Code: Claude Code's hooks
 * (`.claude/settings.local.json`), the MCP configuration of Claude Code and Cursor (`.mcp.json`,
 * `.cursor/mcp.json`), and — where this VS Code has the API (1.101+) — an MCP server definition provider, so
 * VS Code's own agent mode finds our MCP server without any file. The file work is done by the pure modules of
 * `src/server/agents`; here: the commands, what they tell the person, and the feature detection.
 */
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hookCommand, installClaudeCodeHook, uninstallClaudeCodeHook, type InstallResult } from '../../server/core/agents/claudeSettings';
import { CURSOR_MCP_CONFIG_FILE, MCP_CONFIG_FILE, writeMcpConfig, type McpConfigResult } from '../../server/core/agents/mcpConfig';
import { refreshInstalledEntries } from '../../server/core/agents/installedEntries';
import { deliveryAllowed, onTrustGranted, refusedInRestrictedMode } from '../workspaceTrust';

/** The id of our `contributes.mcpServerDefinitionProviders` entry. */
export const MCP_PROVIDER_ID = 'sessionKnowledge.mcp';

export interface AgentSetupDeps {
  output: vscode.LogOutputChannel;
}

/** The CLI this extension ships (`dist/cli.js`): what the hook and the MCP server run. */
export const cliPath = (context: vscode.ExtensionContext): string => join(context.extensionPath, 'dist', 'cli.js');

/** Shows `message` with an "Open File" button; never awaited, so a command (and a test) is not held by the toast. */
function tellWithOpen(message: string, path: string, warning = false): void {
  const show = warning ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  void show(message, 'Open File').then((choice) => {
    if (choice === 'Open File') void vscode.window.showTextDocument(vscode.Uri.file(path));
  });
}

/**
 * The folders a command acts on, as the workspace is now: the one holding `target` when the command was run on a
 * file (the Explorer's context menu), else every local folder of the workspace. None: the person is told to open one.
 */
function targetFolders(target: unknown, what: string): vscode.WorkspaceFolder[] {
  const local = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  const holding = target instanceof vscode.Uri ? vscode.workspace.getWorkspaceFolder(target) : undefined;
  const folders = holding?.uri.scheme === 'file' ? [holding] : local;
  if (folders.length === 0) void vscode.window.showWarningMessage(`Open a folder first: ${what} lives in the project folder.`);
  return folders;
}

/** "app", "app and infra", "app, infra and docs". */
function joinNames(n: readonly string[]): string {
  return n.length <= 1 ? (n[0] ?? '') : `${n.slice(0, -1).join(', ')} and ${n[n.length - 1]}`;
}

/** Registers the commands, and the MCP provider where this VS Code has the API. Answers whether it registered one. */
export function registerAgentSetup(context: vscode.ExtensionContext, deps: AgentSetupDeps): { mcpProvider: boolean } {
  const { output } = deps;
  // Entries installed by an earlier version point at its (now removed) folder: every folder's, now and as folders arrive.
  // Not in Restricted Mode (they are files for other tools): once trust is granted.
  const refresh = (folders: readonly vscode.WorkspaceFolder[]) => {
    if (!deliveryAllowed()) return;
    for (const folder of folders.filter((f) => f.uri.scheme === 'file')) {
      refreshInstalledEntries(folder.uri.fsPath, cliPath(context)).then(
        (paths) => paths.forEach((p) => output.info(`Pointed the Session Knowledge entries in ${p} at this version of the extension.`)),
        (err: unknown) => output.warn(`Could not refresh the Session Knowledge entries for Claude Code and MCP in ${folder.uri.fsPath}: ${(err as Error).message}`),
      );
    }
  };
  refresh(vscode.workspace.workspaceFolders ?? []);
  context.subscriptions.push(
    vscode.workspace.onDidChangeWorkspaceFolders((e) => refresh(e.added)),
    onTrustGranted(() => refresh(vscode.workspace.workspaceFolders ?? [])),
  );

  /** Runs a file edit; an invalid file (left untouched by the edit) is named, with a button to open it. */
  const edit = async <T>(what: string, path: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run();
    } catch (err) {
      const message = (err as Error).message;
      output.warn(`${what}: ${message}`);
      tellWithOpen(`${what}: ${message}`, path, true);
      return undefined;
    }
  };

  /**
   * Runs `run` in each folder's `.claude/settings.local.json`; a folder whose file is invalid is named (and left
   * untouched) while the others go on. Answers what was done, with the folder each result belongs to.
   */
  const eachSettings = async (folders: readonly vscode.WorkspaceFolder[], failure: string, run: (root: string) => Promise<InstallResult>) => {
    const done: { folder: vscode.WorkspaceFolder; result: InstallResult }[] = [];
    for (const folder of folders) {
      const path = join(folder.uri.fsPath, '.claude', 'settings.local.json');
      const result = await edit(folders.length > 1 ? `${failure} in ${folder.name}` : failure, path, () => run(folder.uri.fsPath));
      if (result) done.push({ folder, result });
    }
    return done;
  };
  /** One folder: its result (as before multi-root); several: one result per folder that succeeded. */
  const answer = (folders: readonly vscode.WorkspaceFolder[], done: { result: InstallResult }[]) => (folders.length === 1 ? done[0]?.result : done.map((d) => d.result));

  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.installClaudeCodeHook', async (target?: unknown): Promise<InstallResult | InstallResult[] | undefined> => {
      if (refusedInRestrictedMode('Install Claude Code Hook', output)) return undefined;
      const folders = targetFolders(target, "Claude Code's project settings");
      if (folders.length === 0) return undefined;
      const done = await eachSettings(folders, 'Claude Code hook not installed', (root) => installClaudeCodeHook(root, hookCommand(cliPath(context))));
      for (const { result } of done) output.info(`${result.changed ? 'Installed' : 'Already installed:'} the Claude Code hooks in ${result.path}`);
      const changed = done.filter((d) => d.result.changed);
      if (done.length > 0) {
        const where = folders.length > 1 ? ` of ${joinNames((changed.length > 0 ? changed : done).map((d) => d.folder.name))}` : '';
        tellWithOpen(
          changed.length > 0
            ? `Installed the Session Knowledge hooks (SessionStart, UserPromptSubmit) in .claude/settings.local.json${where}. Claude Code sessions in ${folders.length > 1 ? 'those folders' : 'this folder'} now carry what is pinned for all agents; every other setting was kept.`
            : `.claude/settings.local.json${where} already ${done.length > 1 ? 'have' : 'has'} the Session Knowledge hooks; nothing changed.`,
          (changed[0] ?? done[0]!).result.path,
        );
      }
      return answer(folders, done);
    }),
    vscode.commands.registerCommand('sessionKnowledge.removeClaudeCodeHook', async (target?: unknown): Promise<InstallResult | InstallResult[] | undefined> => {
      if (refusedInRestrictedMode('Remove Claude Code Hook', output)) return undefined;
      const folders = targetFolders(target, "Claude Code's project settings");
      if (folders.length === 0) return undefined;
      const done = await eachSettings(folders, 'Claude Code hook not removed', (root) => uninstallClaudeCodeHook(root));
      for (const { result } of done) output.info(`${result.changed ? 'Removed' : 'There were no'} Claude Code hooks in ${result.path}`);
      const changed = done.filter((d) => d.result.changed);
      const where = (list: typeof done) => (folders.length > 1 ? ` of ${joinNames(list.map((d) => d.folder.name))}` : '');
      if (changed.length > 0) tellWithOpen(`Removed the Session Knowledge hooks from .claude/settings.local.json${where(changed)}; every other setting was kept.`, changed[0]!.result.path);
      else if (done.length > 0) void vscode.window.showInformationMessage(`.claude/settings.local.json${where(done)} has no Session Knowledge hooks; nothing changed.`);
      return answer(folders, done);
    }),
    vscode.commands.registerCommand('sessionKnowledge.writeMcpJson', async (target?: unknown): Promise<McpConfigResult[] | undefined> => {
      if (refusedInRestrictedMode('Write .mcp.json', output)) return undefined;
      const folders = targetFolders(target, 'the MCP configuration');
      if (folders.length === 0) return undefined;
      const results: McpConfigResult[] = [];
      for (const folder of folders) {
        const root = folder.uri.fsPath;
        // Claude Code reads .mcp.json; Cursor reads .cursor/mcp.json — written when this is Cursor or the folder has one.
        const files = [MCP_CONFIG_FILE, ...(/cursor/i.test(vscode.env.appName) || existsSync(join(root, '.cursor')) ? [CURSOR_MCP_CONFIG_FILE] : [])];
        for (const file of files) {
          const result = await edit(`${folders.length > 1 ? `${folder.name}/` : ''}${file} not written`, join(root, file), () => writeMcpConfig(root, cliPath(context), file));
          if (!result) continue;
          results.push(result);
          output.info(`${result.changed ? 'Wrote' : 'Already current:'} the session-knowledge MCP server in ${result.path}`);
        }
      }
      if (results.length > 0) {
        const names = joinNames(results.map((r) => vscode.workspace.asRelativePath(r.path, folders.length > 1)));
        tellWithOpen(
          results.some((r) => r.changed)
            ? `Added the session-knowledge MCP server to ${names} (every other server kept). It runs \`node ${vscode.workspace.asRelativePath(cliPath(context))} mcp\`: Node must be on PATH.`
            : `${names} already ${results.length > 1 ? 'have' : 'has'} the session-knowledge MCP server; nothing changed.`,
          results[0]!.path,
        );
      }
      return results;
    }),
  );
  return { mcpProvider: registerMcpProvider(context, output) };
}

/** The part of the 1.101 API we use, typed here: @types/vscode stays at the engine's 1.100. */
export interface McpProviderApi {
  registerMcpServerDefinitionProvider?: (
    id: string,
    provider: { onDidChangeMcpServerDefinitions?: vscode.Event<void>; provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<unknown[]> },
  ) => vscode.Disposable;
}
export type McpStdioServerDefinitionCtor = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => { cwd?: vscode.Uri };
/** Where the API is looked up: this VS Code's, unless a test hands in its own. */
export interface McpHost {
  /** `vscode.version`. */
  version: string;
  lm: McpProviderApi;
  McpStdioServerDefinition?: McpStdioServerDefinitionCtor;
}
const realHost = (): McpHost => ({
  version: vscode.version,
  lm: vscode.lm as unknown as McpProviderApi,
  McpStdioServerDefinition: (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition,
});

/** True from VS Code 1.101, where the MCP provider API is final. */
export function hasFinalMcpApi(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  return major > 1 || (major === 1 && minor >= 101);
}

/**
 * Offers our MCP server to VS Code's agent mode where `vscode.lm.registerMcpServerDefinitionProvider` is usable
 * (1.101+): `node <ext>/dist/cli.js mcp --workspace <folder>` for each workspace folder. 1.100 already has the
 * function, but only behind the `mcpConfigurationProvider` API proposal (with another contribution point), where
 * it throws for us: so the version is checked as well as the function. Answers whether a provider was registered.
 */
export function registerMcpProvider(context: vscode.ExtensionContext, output: vscode.LogOutputChannel, host: McpHost = realHost()): boolean {
  const { lm, McpStdioServerDefinition: Definition } = host;
  const missing = `No MCP server definition provider in this VS Code (${host.version}): it needs vscode.lm.registerMcpServerDefinitionProvider (1.101+). Other agents: "Write .mcp.json for Claude Code and Cursor".`;
  if (!hasFinalMcpApi(host.version) || typeof lm.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') {
    output.info(missing);
    return false;
  }
  const changed = new vscode.EventEmitter<void>();
  const version = (context.extension?.packageJSON as { version?: string } | undefined)?.version;
  let registration: vscode.Disposable;
  try {
    registration = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        // Restricted Mode: no server for agents until the folder is trusted (the change event fires then).
        if (!deliveryAllowed()) return [];
        const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
        return folders.map((f) => {
          const label = folders.length > 1 ? `Session Knowledge (${f.name})` : 'Session Knowledge';
          const def = new Definition(label, 'node', [cliPath(context), 'mcp', '--workspace', f.uri.fsPath], undefined, version);
          def.cwd = f.uri;
          return def;
        });
      },
    });
  } catch (err) {
    changed.dispose();
    output.warn(`Could not register the MCP server definition provider: ${(err as Error)?.message ?? String(err)}`);
    return false;
  }
  context.subscriptions.push(changed, registration, vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()), onTrustGranted(() => changed.fire()));
  output.info('Registered the Session Knowledge MCP server definition provider.');
  return true;
}
