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
import { hookCommand, installClaudeCodeHook, uninstallClaudeCodeHook, type InstallResult } from '../../server/agents/claudeSettings';
import { CURSOR_MCP_CONFIG_FILE, MCP_CONFIG_FILE, writeMcpConfig, type McpConfigResult } from '../../server/agents/mcpConfig';
import { refreshInstalledEntries } from '../../server/agents/installedEntries';

/** The id of our `contributes.mcpServerDefinitionProviders` entry. */
export const MCP_PROVIDER_ID = 'sessionKnowledge.mcp';

export interface AgentSetupDeps {
  output: vscode.LogOutputChannel;
  folder: vscode.WorkspaceFolder | undefined;
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

function needsFolder(folder: vscode.WorkspaceFolder | undefined, what: string): folder is undefined {
  if (folder?.uri.scheme === 'file') return false;
  void vscode.window.showWarningMessage(`Open a folder first: ${what} lives in the project folder.`);
  return true;
}

/** Registers the commands, and the MCP provider where this VS Code has the API. Answers whether it registered one. */
export function registerAgentSetup(context: vscode.ExtensionContext, deps: AgentSetupDeps): { mcpProvider: boolean } {
  const { output, folder } = deps;
  if (folder?.uri.scheme === 'file') {
    refreshInstalledEntries(folder.uri.fsPath, cliPath(context)).then(
      (paths) => paths.forEach((p) => output.info(`Pointed the Session Knowledge entries in ${p} at this version of the extension.`)),
      (err: unknown) => output.warn(`Could not refresh the Session Knowledge entries for Claude Code and MCP: ${(err as Error).message}`),
    );
  }

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

  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.installClaudeCodeHook', async (): Promise<InstallResult | undefined> => {
      if (needsFolder(folder, "Claude Code's project settings")) return undefined;
      const path = join(folder.uri.fsPath, '.claude', 'settings.local.json');
      const result = await edit('Claude Code hook not installed', path, () => installClaudeCodeHook(folder.uri.fsPath, hookCommand(cliPath(context))));
      if (!result) return undefined;
      output.info(`${result.changed ? 'Installed' : 'Already installed:'} the Claude Code hooks in ${result.path}`);
      tellWithOpen(
        result.changed
          ? 'Installed the Session Knowledge hooks (SessionStart, UserPromptSubmit) in .claude/settings.local.json. Claude Code sessions in this folder now carry what is pinned for all agents; every other setting was kept.'
          : '.claude/settings.local.json already has the Session Knowledge hooks; nothing changed.',
        result.path,
      );
      return result;
    }),
    vscode.commands.registerCommand('sessionKnowledge.removeClaudeCodeHook', async (): Promise<InstallResult | undefined> => {
      if (needsFolder(folder, "Claude Code's project settings")) return undefined;
      const path = join(folder.uri.fsPath, '.claude', 'settings.local.json');
      const result = await edit('Claude Code hook not removed', path, () => uninstallClaudeCodeHook(folder.uri.fsPath));
      if (!result) return undefined;
      output.info(`${result.changed ? 'Removed' : 'There were no'} Claude Code hooks in ${result.path}`);
      if (result.changed) tellWithOpen('Removed the Session Knowledge hooks from .claude/settings.local.json; every other setting was kept.', result.path);
      else void vscode.window.showInformationMessage('.claude/settings.local.json has no Session Knowledge hooks; nothing changed.');
      return result;
    }),
    vscode.commands.registerCommand('sessionKnowledge.writeMcpJson', async (): Promise<McpConfigResult[] | undefined> => {
      if (needsFolder(folder, 'the MCP configuration')) return undefined;
      const root = folder.uri.fsPath;
      // Claude Code reads .mcp.json; Cursor reads .cursor/mcp.json — written when this is Cursor or the folder has one.
      const files = [MCP_CONFIG_FILE, ...(/cursor/i.test(vscode.env.appName) || existsSync(join(root, '.cursor')) ? [CURSOR_MCP_CONFIG_FILE] : [])];
      const results: McpConfigResult[] = [];
      for (const file of files) {
        const result = await edit(`${file} not written`, join(root, file), () => writeMcpConfig(root, cliPath(context), file));
        if (!result) continue;
        results.push(result);
        output.info(`${result.changed ? 'Wrote' : 'Already current:'} the session-knowledge MCP server in ${result.path}`);
      }
      if (results.length > 0) {
        const names = results.map((r) => vscode.workspace.asRelativePath(r.path, false)).join(' and ');
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
  context.subscriptions.push(changed, registration, vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()));
  output.info('Registered the Session Knowledge MCP server definition provider.');
  return true;
}
