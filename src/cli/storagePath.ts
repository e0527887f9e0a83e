/**
 * The extension's global storage as VS Code lays it out, for the command-line tools that read the same store.
 * Its own module so that a bundle needing only this (the MCP server's, dist/cli-mcp.js) does not pull in the
 * whole CLI; src/cli/main.ts re-exports it.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The global storage VS Code gives the extension, on this platform, when the person has used it. */
export function defaultStoragePath(): string {
  const id = 'sessionknowledge.session-knowledge';
  const candidates =
    process.platform === 'darwin'
      ? [join(homedir(), 'Library/Application Support/Code/User/globalStorage', id)]
      : process.platform === 'win32'
        ? [join(process.env.APPDATA ?? join(homedir(), 'AppData/Roaming'), 'Code/User/globalStorage', id)]
        : [join(homedir(), '.config/Code/User/globalStorage', id), join(homedir(), '.local/share/code-server/User/globalStorage', id)];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}
