/** Where global storage is, and where the store keeps per-workspace files inside it. */
import { sha256Hex } from '../sha256Hex';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** A short stable key for a workspace folder ('no-folder' without one). */
export function workspaceKey(workspaceFolder: string | null): string {
  return workspaceFolder ? sha256Hex(workspaceFolder).slice(0, 16) : 'no-folder';
}

/**
 * Session metadata is kept in global storage (it must not land in git), one file per workspace folder so
 * that pins, which are workspace-relative ids, never leak between projects.
 */
export function sessionsPath(globalStoragePath: string, workspaceFolder: string | null): string {
  return join(globalStoragePath, 'workspaces', workspaceKey(workspaceFolder), 'sessions.json');
}

/** Overrides where global storage is when no one names it (the CLI's `--storage`, the extension's path). */
export const STORAGE_ENV = 'SESSION_KNOWLEDGE_STORAGE';

/**
 * Global storage when the caller names none (the CLI without `--storage`, a language client other than the
 * extension): `$SESSION_KNOWLEDGE_STORAGE` when set, else the folder VS Code gives the extension on this
 * platform — the one that exists, so the CLI sees what the extension wrote.
 */
export function defaultStoragePath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const override = env[STORAGE_ENV]?.trim();
  if (override) return resolve(override);
  const id = 'sessionknowledge.session-knowledge';
  const candidates =
    process.platform === 'darwin'
      ? [join(homedir(), 'Library/Application Support/Code/User/globalStorage', id)]
      : process.platform === 'win32'
        ? [join(env.APPDATA ?? join(homedir(), 'AppData/Roaming'), 'Code/User/globalStorage', id)]
        : [join(homedir(), '.config/Code/User/globalStorage', id), join(homedir(), '.local/share/code-server/User/globalStorage', id)];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}
