/**
 * Adds Session Knowledge's two hook entries to Claude Code's `.claude/settings.local.json` (the personal,
 * git-ignored settings of a project). Keeps every existing setting and hook; idempotent: our entries are found
 * by their command (`… hook claude-code`) and updated in place, never added twice. A file that is not valid
 * JSON is left untouched and named in the error. Written atomically under a lock. Pure Node, no `vscode`.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { withFileLock, writeFileAtomic } from '../store/atomicFile';
import { editJsonObjectFile } from './jsonObjectFile';

export const CLAUDE_SETTINGS_FILE = '.claude/settings.local.json';
/** Claude Code's SessionStart sources that must carry the block: every one (a compaction re-sends it). */
export const SESSION_START_MATCHER = 'startup|resume|clear|compact';
/** Seconds Claude Code waits for the hook; ours answers in well under a second, and never blocks a prompt. */
export const HOOK_TIMEOUT_SECONDS = 10;

interface HookCommand {
  type: string;
  command?: string;
  timeout?: number;
  [k: string]: unknown;
}
interface HookGroup {
  matcher?: string;
  hooks?: HookCommand[];
  [k: string]: unknown;
}

/** Quotes one argument for the shell Claude Code runs hook commands in (sh; cmd on Windows). */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_./:@%+=-]+$/.test(arg)) return arg;
  return process.platform === 'win32' ? `"${arg.replace(/"/g, '""')}"` : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The hook command for a CLI at `cliPath` run by the Node at `nodePath` (default: `node` from PATH). */
export function hookCommand(cliPath: string, nodePath = 'node'): string {
  return `${shellQuote(nodePath)} ${shellQuote(cliPath)} hook claude-code`;
}

/** True for a hook command this tool wrote (any version, any install path). */
export const isOurHookCommand = (command: unknown): boolean => typeof command === 'string' && /\bhook claude-code\b/.test(command);

export interface InstallResult {
  path: string;
  /** False when the file already held exactly these entries. */
  changed: boolean;
}

function upsert(groups: unknown, matcher: string | undefined, command: string): HookGroup[] {
  const list: HookGroup[] = Array.isArray(groups) ? (groups as HookGroup[]) : [];
  let found = false;
  for (const group of list) {
    if (!group || typeof group !== 'object' || !Array.isArray(group.hooks)) continue;
    for (const hook of group.hooks) {
      if (!hook || typeof hook !== 'object' || !isOurHookCommand(hook.command)) continue;
      if (found) {
        hook.command = undefined; // a duplicate from an older edit: removed below
        continue;
      }
      found = true;
      hook.type = 'command';
      hook.command = command;
      hook.timeout = HOOK_TIMEOUT_SECONDS;
      if (matcher !== undefined) group.matcher = matcher;
    }
    group.hooks = group.hooks.filter((h) => !(h && typeof h === 'object' && h.command === undefined && h.type === 'command'));
  }
  const kept = list.filter((g) => !(g && typeof g === 'object' && Array.isArray(g.hooks) && g.hooks.length === 0));
  if (!found) kept.push({ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }] });
  return kept;
}

/** Adds (or updates) the SessionStart and UserPromptSubmit entries in `<workspace>/.claude/settings.local.json`. */
export async function installClaudeCodeHook(workspaceFolder: string, command: string): Promise<InstallResult> {
  const { path, changed } = await editJsonObjectFile(
    join(workspaceFolder, CLAUDE_SETTINGS_FILE),
    (settings) => {
      const hooks = settings.hooks && typeof settings.hooks === 'object' && !Array.isArray(settings.hooks) ? (settings.hooks as Record<string, unknown>) : {};
      hooks.SessionStart = upsert(hooks.SessionStart, SESSION_START_MATCHER, command);
      hooks.UserPromptSubmit = upsert(hooks.UserPromptSubmit, undefined, command);
      settings.hooks = hooks;
    },
    { hint: 'Fix it, then install the hook again.' },
  );
  return { path, changed };
}

/** Removes our entries (and nothing else). Answers whether the file changed. */
export async function uninstallClaudeCodeHook(workspaceFolder: string): Promise<InstallResult> {
  const path = join(workspaceFolder, CLAUDE_SETTINGS_FILE);
  return withFileLock(path, async () => {
    let before: string;
    try {
      before = await fs.readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, changed: false };
      throw err;
    }
    let settings: Record<string, unknown>;
    try {
      settings = JSON.parse(before) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`${path} is not valid JSON (${(err as Error).message}); it was left as it is.`);
    }
    const hooks = settings?.hooks as Record<string, HookGroup[] | undefined> | undefined;
    if (!hooks || typeof hooks !== 'object') return { path, changed: false };
    for (const event of ['SessionStart', 'UserPromptSubmit']) {
      const groups = hooks[event];
      if (!Array.isArray(groups)) continue;
      const next = groups
        .map((g) => (g && Array.isArray(g.hooks) ? { ...g, hooks: g.hooks.filter((h) => !isOurHookCommand(h?.command)) } : g))
        .filter((g) => !(g && Array.isArray(g.hooks) && g.hooks.length === 0));
      if (next.length > 0) hooks[event] = next;
      else delete hooks[event];
    }
    if (Object.keys(hooks).length === 0) delete settings.hooks;
    const after = `${JSON.stringify(settings, null, 2)}\n`;
    if (after === before) return { path, changed: false };
    await writeFileAtomic(path, after, { keepMode: true, mode: 0o644 });
    return { path, changed: true };
  });
}

/** Whether `.claude/settings.local.json` holds a hook this tool wrote (an unreadable or invalid file: no). */
export async function hasClaudeCodeHook(workspaceFolder: string): Promise<boolean> {
  try {
    const settings = JSON.parse(await fs.readFile(join(workspaceFolder, CLAUDE_SETTINGS_FILE), 'utf8')) as { hooks?: Record<string, HookGroup[]> };
    return Object.values(settings?.hooks ?? {}).some((groups) => Array.isArray(groups) && groups.some((g) => Array.isArray(g?.hooks) && g.hooks.some((h) => isOurHookCommand(h?.command))));
  } catch {
    return false;
  }
}
