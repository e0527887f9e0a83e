/**
 * Adds Session Knowledge's two hook entries to Claude Code's `.claude/settings.local.json` (the personal,
 * git-ignored settings of a project). Keeps every existing setting and hook; idempotent: our entries are found
 * by their exact command (`<node> <…/cli.js> hook claude-code`, as `hookCommand` writes it) and updated in place,
 * never added twice; each lives in a hook group of its own, so a person's own groups (their matcher, their hooks,
 * even a command of theirs that mentions `hook claude-code`) are never changed. A file that is not valid JSON is
 * left untouched and named in the error. Written atomically under a lock; a link at the file or at `.claude`, or a
 * path leaving the workspace folder, is refused before anything is read or created (`confinedPath.ts`). Pure Node,
 * no `vscode`.
 */
import { basename, join } from 'node:path';
import { editJsonObjectFile, readJsonObjectFile } from './jsonObjectFile';

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

/** One word as `shellQuote` writes it: bare, '…' (with '\'' inside) or "…" (with "" inside). */
const WORD = String.raw`[A-Za-z0-9_./:@%+=-]+|'(?:[^']|'\\'')*'|"(?:[^"]|"")*"`;
const OUR_COMMAND = new RegExp(String.raw`^(${WORD}) (${WORD}) hook claude-code$`);
/** The names our CLI goes by: the installed bin, or `dist/cli.js` (the extension's, a checkout's). */
const OUR_CLI_NAMES = new Set(['session-knowledge', 'session-knowledge.js', 'session-knowledge.cmd']);
/** The runners `hookCommand` writes: a Node. */
const NODE_NAMES = new Set(['node', 'node.exe', 'nodejs']);
const lastTwo = (p: string): string => p.split('/').slice(-2).join('/');

function unquote(word: string): string {
  if (word.startsWith("'")) return word.slice(1, -1).replace(/'\\''/g, "'");
  if (word.startsWith('"')) return word.slice(1, -1).replace(/""/g, '"');
  return word;
}

/**
 * True for a hook command this tool wrote (any version, any install path): exactly `hookCommand`'s shape — a Node,
 * our CLI (`…/cli.js` or `session-knowledge`), then `hook claude-code` and nothing else. A person's own command
 * that merely contains `hook claude-code` (`mytool hook claude-code --foo`) is not ours.
 */
export function isOurHookCommand(command: unknown): boolean {
  if (typeof command !== 'string') return false;
  const m = OUR_COMMAND.exec(command);
  if (!m) return false;
  const runner = basename(unquote(m[1]!).replace(/\\/g, '/')).toLowerCase();
  const cli = unquote(m[2]!).replace(/\\/g, '/');
  // A person's `python3 /opt/tool/cli.js hook claude-code` or `node /opt/tool/cli.js …` is theirs: ours is run by a
  // Node, from a `dist/cli.js` (the extension's or a checkout's) or the installed bin.
  return NODE_NAMES.has(runner) && (lastTwo(cli) === 'dist/cli.js' || OUR_CLI_NAMES.has(basename(cli)));
}

export interface InstallResult {
  path: string;
  /** False when the file already held exactly these entries. */
  changed: boolean;
}

const isOurHook = (hook: unknown): boolean => !!hook && typeof hook === 'object' && isOurHookCommand((hook as HookCommand).command);
const isGroup = (group: unknown): group is HookGroup & { hooks: unknown[] } => !!group && typeof group === 'object' && Array.isArray((group as HookGroup).hooks);
/** A group that holds our hook and nothing else: ours to rewrite. */
const isOurGroup = (group: unknown): boolean => isGroup(group) && group.hooks.length > 0 && group.hooks.every(isOurHook);

/**
 * Our entry, in a group of its own: the first group holding only our hook is rewritten (command, timeout, matcher);
 * our hook found in a person's group (an older version put it beside theirs) is taken out of it, leaving the rest of
 * that group as it was; duplicates go. Every other group is left exactly as it was.
 */
function upsert(groups: unknown, matcher: string | undefined, command: string): HookGroup[] {
  const list: unknown[] = Array.isArray(groups) ? groups : [];
  const ours: HookGroup = { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }] };
  let placed = false;
  const next: unknown[] = [];
  for (const group of list) {
    if (isOurGroup(group)) {
      if (placed) continue; // a duplicate from an older edit
      placed = true;
      const own: HookGroup = { ...(group as HookGroup), hooks: ours.hooks };
      if (matcher !== undefined) own.matcher = matcher;
      next.push(own);
      continue;
    }
    if (isGroup(group) && group.hooks.some(isOurHook)) {
      next.push({ ...group, hooks: group.hooks.filter((h) => !isOurHook(h)) });
      continue;
    }
    next.push(group);
  }
  if (!placed) next.push(ours);
  return next as HookGroup[];
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
    { root: workspaceFolder, hint: 'Fix it, then install the hook again.' },
  );
  return { path, changed };
}

/** Removes our entries (and nothing else). Answers whether the file changed; a missing file is not created. */
export async function uninstallClaudeCodeHook(workspaceFolder: string): Promise<InstallResult> {
  const { path, changed } = await editJsonObjectFile(
    join(workspaceFolder, CLAUDE_SETTINGS_FILE),
    (settings) => {
      const hooks = settings.hooks as Record<string, HookGroup[] | undefined> | undefined;
      if (!hooks || typeof hooks !== 'object') return false;
      for (const event of ['SessionStart', 'UserPromptSubmit']) {
        const groups = hooks[event];
        if (!Array.isArray(groups)) continue;
        // Only our hooks go, and only a group we emptied goes with them.
        const next = groups.flatMap((g) => {
          if (!isGroup(g) || !g.hooks.some(isOurHook)) return [g];
          const rest = g.hooks.filter((h) => !isOurHook(h));
          return rest.length > 0 ? [{ ...g, hooks: rest }] : [];
        });
        if (next.length > 0) hooks[event] = next;
        else delete hooks[event];
      }
      if (Object.keys(hooks).length === 0) delete settings.hooks;
    },
    { root: workspaceFolder, hint: 'Fix it, then uninstall the hook again.', onlyIfPresent: true },
  );
  return { path, changed };
}

/** Whether `.claude/settings.local.json` holds a hook this tool wrote (an unreadable or invalid file: no). */
export async function hasClaudeCodeHook(workspaceFolder: string): Promise<boolean> {
  try {
    // A linked file is not ours to refresh (refused, so: no).
    const settings = (await readJsonObjectFile(join(workspaceFolder, CLAUDE_SETTINGS_FILE), workspaceFolder)) as { hooks?: Record<string, HookGroup[]> } | undefined;
    return Object.values(settings?.hooks ?? {}).some((groups) => Array.isArray(groups) && groups.some((g) => Array.isArray(g?.hooks) && g.hooks.some((h) => isOurHookCommand(h?.command))));
  } catch {
    return false;
  }
}
