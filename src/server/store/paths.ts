/** Where the store keeps per-workspace files inside global storage. */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** A short stable key for a workspace folder ('no-folder' without one). */
export function workspaceKey(workspaceFolder: string | null): string {
  return workspaceFolder ? createHash('sha256').update(workspaceFolder).digest('hex').slice(0, 16) : 'no-folder';
}

/**
 * Session metadata is kept in global storage (it must not land in git), one file per workspace folder so
 * that pins, which are workspace-relative ids, never leak between projects.
 */
export function sessionsPath(globalStoragePath: string, workspaceFolder: string | null): string {
  return join(globalStoragePath, 'workspaces', workspaceKey(workspaceFolder), 'sessions.json');
}
