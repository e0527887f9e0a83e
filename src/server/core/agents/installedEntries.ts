/** Keeps the entries we installed for other agents pointing at the current CLI. Pure Node, no `vscode`. */
import { hasClaudeCodeHook, hookCommand, installClaudeCodeHook } from './claudeSettings';
import { CURSOR_MCP_CONFIG_FILE, MCP_CONFIG_FILE, hasMcpEntry, writeMcpConfig } from './mcpConfig';

/**
 * The hook command and the MCP entry name this extension's own `dist/cli.js`, whose path carries the extension's
 * version: after an update the old path is gone. Where our entries are installed, point them at this version (an
 * idempotent rewrite of our entries only; nothing is added where the person did not install them).
 */
export async function refreshInstalledEntries(workspaceFolder: string, cli: string, nodePath?: string): Promise<string[]> {
  const updated: string[] = [];
  if (await hasClaudeCodeHook(workspaceFolder)) {
    const r = await installClaudeCodeHook(workspaceFolder, hookCommand(cli, nodePath));
    if (r.changed) updated.push(r.path);
  }
  for (const file of [MCP_CONFIG_FILE, CURSOR_MCP_CONFIG_FILE]) {
    if (!(await hasMcpEntry(workspaceFolder, file))) continue;
    const r = await writeMcpConfig(workspaceFolder, cli, file);
    if (r.changed) updated.push(r.path);
  }
  return updated;
}

