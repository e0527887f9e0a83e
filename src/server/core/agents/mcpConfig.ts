/**
 * Adds Session Knowledge's MCP server to a project's MCP configuration: `<workspace>/.mcp.json` (Claude Code's
 * project file) or `.cursor/mcp.json` (Cursor's) — the same `{"mcpServers": {…}}` shape. Sets
 * `mcpServers["session-knowledge"]` to `{"command": "node", "args": [<cli.js>, "mcp"]}` and keeps every other
 * server, every other top-level field and any extra field of our own entry (an `env` someone added). Idempotent:
 * a file that already holds exactly this entry is not rewritten, so its formatting survives. A file that is not
 * valid JSON, or whose root or `mcpServers` is not an object, is left untouched and named in the error. Written
 * atomically under a lock; a link at the file or at a folder above it (`.cursor`), or a path leaving the workspace
 * folder, is refused before anything is read or created (`confinedPath.ts`). Pure Node, no `vscode`.
 */
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { editJsonObjectFile, readJsonObjectFile } from './jsonObjectFile';

/** Claude Code's project MCP configuration. */
export const MCP_CONFIG_FILE = '.mcp.json';
/** Cursor's project MCP configuration (same shape). */
export const CURSOR_MCP_CONFIG_FILE = '.cursor/mcp.json';
/** Our key under `mcpServers`. */
export const MCP_SERVER_NAME = 'session-knowledge';

export interface McpStdioEntry {
  command: string;
  args: string[];
  [k: string]: unknown;
}

/** The entry that runs the MCP server of the CLI at `cliPath` (absolute) with `node` from PATH. */
export function mcpServerEntry(cliPath: string): McpStdioEntry {
  return { command: 'node', args: [cliPath, 'mcp'] };
}

/** Why an MCP configuration was not written. The file is untouched in every case. */
export class McpConfigError extends Error {
  constructor(
    readonly reason: 'not-json' | 'not-an-object',
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
  static is(err: unknown): err is McpConfigError {
    return err instanceof McpConfigError;
  }
}

export interface McpConfigResult {
  path: string;
  /** False when the file already held exactly this entry (it was not rewritten). */
  changed: boolean;
  /** True when the file did not exist before. */
  created: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Adds or updates our entry in `<workspaceFolder>/<file>` (default `.mcp.json`). */
export async function writeMcpConfig(workspaceFolder: string, cliPath: string, file: string = MCP_CONFIG_FILE): Promise<McpConfigResult> {
  const path = join(workspaceFolder, file);
  return editJsonObjectFile(
    path,
    (config) => {
      if (config.mcpServers !== undefined && !isObject(config.mcpServers)) {
        throw new McpConfigError('not-an-object', path, `"mcpServers" in ${path} is not a JSON object; the file was left as it is.`);
      }
      const servers = (config.mcpServers as Record<string, unknown> | undefined) ?? {};
      const current = servers[MCP_SERVER_NAME];
      const next = { ...(isObject(current) ? current : {}), ...mcpServerEntry(cliPath) };
      if (isDeepStrictEqual(current, next)) return false;
      servers[MCP_SERVER_NAME] = next;
      config.mcpServers = servers;
    },
    { root: workspaceFolder, hint: 'Fix it, then run the command again.', fail: (reason, message) => new McpConfigError(reason, path, message) },
  );
}

/** Whether `<workspaceFolder>/<file>` holds our entry (an unreadable or invalid file: no). */
export async function hasMcpEntry(workspaceFolder: string, file: string = MCP_CONFIG_FILE): Promise<boolean> {
  try {
    // A linked file is not ours to refresh (refused, so: no).
    const parsed = await readJsonObjectFile(join(workspaceFolder, file), workspaceFolder);
    return isObject(parsed) && isObject(parsed.mcpServers) && isObject(parsed.mcpServers[MCP_SERVER_NAME]);
  } catch {
    return false;
  }
}
