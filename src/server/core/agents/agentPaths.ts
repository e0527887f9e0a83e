/**
 * Where agents outside VS Code keep their state, and how their sessions are named: the per-user state folder
 * (`$XDG_STATE_HOME/session-knowledge`, else `~/.local/state/session-knowledge`), one folder per workspace.
 * Node built-ins only: Claude Code's hook decides "nothing owed" from these paths without loading the store,
 * zod or the scanner (`src/cli/hookFast.ts`). `agentSessions.ts` re-exports them.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { workspaceKey } from '../store/paths';

/** The per-user state folder of agent sessions. `SESSION_KNOWLEDGE_STATE_DIR` overrides it (tests, portable setups). */
export function agentStateDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const override = env.SESSION_KNOWLEDGE_STATE_DIR;
  if (override && isAbsolute(override)) return override;
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative XDG_STATE_HOME is invalid and must be ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(home, '.local', 'state');
  return join(base, 'session-knowledge');
}

/** Where one workspace's agent sessions are kept (the index; session files go beside it). */
export function agentSessionsPath(workspaceFolder: string, env: NodeJS.ProcessEnv = process.env, home?: string): string {
  return join(agentStateDir(env, home), 'workspaces', workspaceKey(workspaceFolder), 'sessions.json');
}

/** The session key of a Claude Code session (`claude-code:<session_id>`). */
export const claudeCodeSessionKey = (sessionId: string): string => `claude-code:${sessionId}`;
