/**
 * The agent commands of `session-knowledge`: agent pins (`pin`, `unpin`, `pins`), Claude Code's hook
 * (`hook claude-code`, `hook install claude-code`, `hook uninstall claude-code`). Each one opens the same core
 * as the language server (`KnowledgeCore`) on one workspace.
 */
import type { StoreProblem } from '../shared/schemas';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { KnowledgeCore } from '../server/core/knowledgeCore';
import { PersistedScan, agentSessionsPath, claudeCodeSessionKey } from '../server/core/agents/agentSessions';
import type { ScanFn } from '../server/core/delivery/knowledgeBlock';
import { hookCommand, installClaudeCodeHook, uninstallClaudeCodeHook } from '../server/core/agents/claudeSettings';
import { AGENT_PINS_FILE } from '../server/core/agents/agentPins';
import { MEMORY_FLAG, parseMemoryFlag } from '../server/core/memory/memoryFlag';
import { readMemorySwitch } from '../server/core/memory/memorySwitch';
import { WORKSPACE_OPTION, findWorkspaceRoot, workspaceFoldersArg } from './roots';
import { writeFileAtomic } from '../server/core/store/atomicFile';
import { RULESET_VERSION } from '../server/core/threat/threatScanner';
import { agentStateDir } from '../server/core/agents/agentPaths';
import {
  HOOK_INPUT_LIMIT_BYTES,
  HOOK_STDIN_TIMEOUT_MS,
  WITNESS_VERSION,
  baseInputPaths,
  contextKey,
  identityOf,
  parseWitness,
  pinInputPaths,
  readAll,
  snapshot,
  witnessPathOf,
  witnessable,
  type HookPrelude,
  type HookWitness,
} from './hookFast';
import type { WorkspaceFolderArg } from './codeWorkspace';
import { CliUsageError, parseCommandArgs } from './cliArgs';


export interface AgentIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadableStream;
  cwd: string;
  /** Set by the hook's first stop (`hookFast.ts`): the input it read, the code it saw. Absent: no witness is written. */
  hook?: HookPrelude;
}

/**
 * Tokens of the block a Claude Code hook prints, by default. Claude Code keeps hook output of up to 10,000
 * characters whole and replaces longer output with a preview; at ~4 characters a token, 2,400 tokens stay under.
 */
export const HOOK_BUDGET_TOKENS = 2400;

/**
 * The core on a workspace: one folder (exactly as before), or several (`folders`, the first naming the sessions
 * store). Each folder's `.knowledge/` is read; ids name their folder when there are several.
 */
export function openCore(workspace: string | readonly WorkspaceFolderArg[], storage: string, extra: { sessionsIndexPath?: string; scan?: ScanFn; onProblem?: (p: StoreProblem) => void } = {}): KnowledgeCore {
  const folders = typeof workspace === 'string' ? [{ path: workspace }] : workspace;
  return new KnowledgeCore({
    workspaceFolder: folders[0]?.path ?? null,
    ...(folders.length > 1 ? { workspaceFolders: folders } : {}),
    globalStoragePath: storage,
    memoryEnabled: parseMemoryFlag(process.env[MEMORY_FLAG]).present,
    ...extra,
  });
}

/**
 * `pin PATH…`, `unpin PATH…`, `pins`: the agent pins of `.knowledge/pins.json` — with several workspace folders
 * (`--workspace` given more than once, or a `.code-workspace` file), each pin in the pins.json of the folder that
 * holds it, listed with its folder's name. Exit 1 when a pin was refused.
 */
export async function runPins(command: 'pin' | 'unpin' | 'pins', args: readonly string[], io: AgentIo, storage: string): Promise<number> {
  const { positionals: positional, values } = parseCommandArgs(command, args, WORKSPACE_OPTION, command !== 'pins');
  const folders = workspaceFoldersArg(command, values.workspace ?? [], io.cwd, io.stderr);
  if (command !== 'pins' && positional.length === 0) throw new CliUsageError(command, 'needs at least one PATH');
  // A pins.json that will not parse (moved aside) or cannot be read is said, never silently read as no pins.
  const core = openCore(folders, storage, { onProblem: (p) => io.stderr(`session-knowledge: ${p.message}\n`) });
  // Paths are given relative to where the command runs; pins are workspace-relative.
  const paths = positional.map((p) => resolve(io.cwd, p));
  const result =
    command === 'pin' ? await core.updateAgentPins(paths, []) : command === 'unpin' ? await core.updateAgentPins([], paths) : await core.readAgentPins();
  for (const r of result.refused) io.stderr(`session-knowledge: not pinned: ${r.reason}\n`);
  // An error is the whole answer: the pin list is printed only when every path was taken (`pins` lists it any time).
  if (result.refused.length > 0) return 1;
  if (command === 'pin') await warnWithheld(core, paths, io);
  io.stdout(result.pins.length === 0 ? 'No agent pins. Pin with: session-knowledge pin PATH…\n' : `${result.pins.join('\n')}\n`);
  return 0;
}

/**
 * A file just pinned that agents will not get (its text or name reads as an instruction): pinned all the same, and
 * said on stderr with the rule that matched, and where to see it (the block carries one line naming it instead).
 */
async function warnWithheld(core: KnowledgeCore, paths: readonly string[], io: AgentIo): Promise<void> {
  try {
    await core.load('agents');
    // Each pinned id with its path from where the command runs (what `scan` takes).
    const where = new Map<string, string>();
    for (const p of paths) {
      const check = core.folders.check(p);
      if (check.ok) where.set(check.id, relative(io.cwd, check.path) || check.path);
    }
    if (where.size === 0) return;
    const block = await core.compileAgentBlock([...where.keys()], 200_000, false);
    for (const item of block.items) {
      if (item.state !== 'withheld') continue;
      const shown = item.nameWithheld ? 'a pinned file (its name is withheld)' : item.id;
      io.stderr(`session-knowledge: warning: ${shown} is pinned, but withheld from agents: ${item.reason ?? 'it reads as an instruction'}. See where with: session-knowledge scan${item.nameWithheld ? "" : ` ${where.get(item.id)}`}\n`);
    }
  } catch (err) {
    io.stderr(`session-knowledge: warning: the pinned files could not be checked now: ${(err as Error)?.message ?? String(err)}\n`);
  }
}

/** Claude Code's hook input (the fields we use; the rest is ignored). */
export const HookInputSchema = z.looseObject({
  session_id: z.string().min(1).max(200),
  cwd: z.string().min(1).optional(),
  hook_event_name: z.string(),
  source: z.string().optional(),
  prompt: z.string().optional(),
});

export { HOOK_STDIN_TIMEOUT_MS } from './hookFast';

/**
 * `hook claude-code`: Claude Code's SessionStart and UserPromptSubmit hook. Reads the hook input on stdin and
 * prints the block when the session is owed it. Never blocks a prompt: malformed input or any failure prints
 * nothing on stdout, one line on stderr, and exits 0.
 */
export async function runClaudeCodeHook(args: readonly string[], io: AgentIo, storage: string): Promise<number> {
  try {
    const { values } = parseCommandArgs('hook claude-code', args, { ...WORKSPACE_OPTION, 'budget-tokens': { type: 'string' } });
    const budgetRaw = values['budget-tokens'];
    const budget = budgetRaw === undefined ? HOOK_BUDGET_TOKENS : Number(budgetRaw);
    if (!Number.isInteger(budget) || budget < 200 || budget > 200_000) throw new CliUsageError('hook claude-code', `--budget-tokens must be a whole number from 200 to 200000, not ${budgetRaw}`);
    // The first stop (hookFast.ts) may have read stdin already.
    const raw = io.hook?.raw ?? (await readAll(io.stdin, HOOK_INPUT_LIMIT_BYTES, HOOK_STDIN_TIMEOUT_MS));
    let json: unknown;
    try {
      // A UTF-8 byte order mark (some shells and editors write one) is not part of the JSON.
      json = JSON.parse(raw.replace(/^\uFEFF/, ''));
    } catch (err) {
      throw new Error(`hook input is not JSON (${(err as Error).message})`);
    }
    // VS Code's agent hooks (Preview, 1.110+) run the same entries; accept their camelCase spellings too.
    if (json && typeof json === 'object' && !Array.isArray(json)) {
      const o = json as Record<string, unknown>;
      if (o.session_id === undefined && o.sessionId !== undefined) o.session_id = o.sessionId;
      if (o.hook_event_name === undefined && o.hookEventName !== undefined) o.hook_event_name = o.hookEventName;
    }
    const parsed = HookInputSchema.safeParse(json);
    if (!parsed.success) throw new Error(`hook input is not Claude Code's shape: ${parsed.error.issues[0]?.path.join('.') || '(root)'} ${parsed.error.issues[0]?.message}`);
    const input = parsed.data;
    const moment =
      input.hook_event_name === 'SessionStart'
        ? input.source === 'compact'
          ? 'compact'
          : 'start'
        : input.hook_event_name === 'UserPromptSubmit'
          ? 'prompt'
          : undefined;
    if (!moment) throw new Error(`hook event ${input.hook_event_name} is not one Session Knowledge answers (SessionStart, UserPromptSubmit)`);
    // `--workspace` (a folder or a .code-workspace file, repeatable): the agent pins of every folder it names;
    // else the nearest folder holding .knowledge/ from where Claude Code runs.
    const given = values.workspace ?? [];
    const from = input.cwd ?? process.env.CLAUDE_PROJECT_DIR ?? io.cwd;
    const found = findWorkspaceRoot(from);
    const folders = given.length > 0 ? workspaceFoldersArg('hook claude-code', given, io.cwd, io.stderr, true) : found ? [{ path: found }] : [];
    const workspace = folders[0]?.path;
    if (!workspace) return 0; // no .knowledge/ here: nothing to carry, nothing to say
    const sessionsIndexPath = agentSessionsPath(workspace);
    // The witness the first stop trusts (hookFast.ts): only for the run it can answer (one folder found from where
    // Claude Code runs, memory absent), and only when this run said nothing on stderr.
    const witnessing = io.hook !== undefined && given.length === 0 && !parseMemoryFlag(process.env[MEMORY_FLAG]).present;
    let said = 0;
    const baseBefore = witnessing ? snapshot(baseInputPaths(workspace, sessionsIndexPath, agentStateDir()), workspace) : {};
    const verdicts = new PersistedScan(join(dirname(sessionsIndexPath), 'verdicts.json'));
    const core = openCore(folders, storage, {
      sessionsIndexPath,
      scan: verdicts.scan,
      onProblem: (p) => {
        said += 1;
        io.stderr(`session-knowledge hook: ${p.message.split('\n')[0]}\n`);
      },
    });
    await Promise.all([core.load('agents'), verdicts.load()]);
    // Memory (with the flag) follows the person's switch, mirrored by VS Code to the storage folder: off unless turned on.
    if (core.memory) await core.memory.configure((await readMemorySwitch(storage)).config);
    // A pin of a committed pins.json that the policy refuses (a secret, an outside file) is named for the person on
    // stderr — never in the block, and never its content.
    const agentPins = await core.readAgentPins();
    for (const r of agentPins.refused) io.stderr(`session-knowledge hook: ${AGENT_PINS_FILE}: not delivered: ${r.reason}\n`);
    said += agentPins.refused.length;
    // Each pinned file (and the folders above it), by identity before it is read.
    const pinChecks = agentPins.pins.map((id) => core.folders.check(id));
    const pinPaths = witnessing && pinChecks.every((c) => c.ok) ? pinInputPaths(workspace, pinChecks.map((c) => (c as { path: string }).path)) : null;
    const pinsBefore = pinPaths ? snapshot(pinPaths, workspace) : {};
    // Compiled, printed and recorded under the session's delivery lock: concurrent hooks of one session print it once.
    // `startup` is a brand-new session: a second start hook for it (the hook installed twice) owes nothing more.
    const key = claudeCodeSessionKey(input.session_id);
    const { block } = await core.deliverToAgent(key, moment, budget, 'Claude Code', {
      fresh: input.hook_event_name === 'SessionStart' && input.source === 'startup',
      destination: 'claude-code',
      send: async (text) => io.stdout(text.endsWith('\n') ? text : `${text}\n`),
    });
    await verdicts.save();
    // An item that could not be read this time (an I/O error, a lock, a file that is not there) may be readable at the
    // next prompt with no identity changed: no witness vouches for it, so the next prompt runs this path again.
    const unavailable = block.items.some((i) => i.state === 'unavailable');
    if (witnessing && pinPaths && said === 0 && !unavailable) {
      const why = await recordWitness({
        workspace,
        sessionsIndexPath,
        code: io.hook!.code,
        inputsBefore: { ...baseBefore, ...pinsBefore },
        pins: agentPins.pins,
        signature: block.signature,
        empty: block.text === '',
        key,
        sessionFile: core.sessions.pathOf(key),
      }).catch((err: unknown) => `not written: ${(err as Error)?.message ?? String(err)}`);
      io.hook?.trace?.(`witness ${why}`);
    } else io.hook?.trace?.(`witness not written: ${unavailable ? 'an item was unavailable' : 'this run cannot be witnessed'}`);
    return 0;
  } catch (err) {
    io.stderr(`session-knowledge hook: ${((err as Error)?.message ?? String(err)).split('\n')[0]}\n`);
    return 0;
  }
}

/** Sessions a witness keeps (the most recent): more sessions of one workspace run the full hook once more each. */
const WITNESS_SESSIONS = 64;

/**
 * Writes the hook witness (see hookFast.ts) after a full run that said nothing, when every input's identity is the
 * same now as before it was read. Answers what it did, for the trace.
 */
async function recordWitness(run: {
  workspace: string;
  sessionsIndexPath: string;
  code: string;
  inputsBefore: Record<string, string>;
  pins: string[];
  signature: string;
  empty: boolean;
  key: string;
  sessionFile: string;
}): Promise<string> {
  const inputs = snapshot(Object.keys(run.inputsBefore), run.workspace);
  for (const [path, identity] of Object.entries(inputs)) {
    if (!witnessable(identity)) return `not written: ${path} is ${identity}`;
    if (run.inputsBefore[path] !== identity) return `not written: ${path} changed while the hook ran`;
  }
  const session = identityOf(run.sessionFile);
  if (!session.startsWith('file:')) return `not written: the session file is ${session}`;
  const path = witnessPathOf(run.sessionsIndexPath);
  const base: Omit<HookWitness, 'sessions'> = {
    v: WITNESS_VERSION,
    context: contextKey(run.workspace),
    code: run.code,
    ruleset: RULESET_VERSION,
    inputs,
    pins: run.pins,
    signature: run.signature,
    empty: run.empty,
  };
  // Sessions witnessed on the very same inputs are kept; any other witness is replaced.
  const previous = parseWitness(await readFile(path, 'utf8').catch(() => ''));
  const same = previous !== null && JSON.stringify({ ...previous, sessions: undefined }) === JSON.stringify({ ...base, sessions: undefined });
  const sessions = same ? { ...previous.sessions } : {};
  if (same && sessions[run.key]?.file === run.sessionFile && sessions[run.key]?.identity === session) return 'unchanged';
  delete sessions[run.key];
  sessions[run.key] = { file: run.sessionFile, identity: session };
  const keys = Object.keys(sessions);
  for (const k of keys.slice(0, Math.max(0, keys.length - WITNESS_SESSIONS))) delete sessions[k];
  await writeFileAtomic(path, `${JSON.stringify({ ...base, sessions })}\n`);
  return 'written';
}

/**
 * `hook install|uninstall claude-code [--workspace DIR|FILE.code-workspace]…`: edits `.claude/settings.local.json`
 * of each folder named (every folder of a workspace file): a Claude Code session in a folder carries that folder's
 * agent pins.
 */
export async function runHookSetup(action: 'install' | 'uninstall', args: readonly string[], io: AgentIo, cliPath: string): Promise<number> {
  const { positionals: positional, values } = parseCommandArgs(`hook ${action}`, args, WORKSPACE_OPTION, true);
  if (positional[0] !== 'claude-code' || positional.length !== 1) throw new CliUsageError(`hook ${action}`, 'takes one agent: claude-code');
  const folders = workspaceFoldersArg(`hook ${action}`, values.workspace ?? [], io.cwd, io.stderr);
  for (const { path: workspace } of folders) {
    const result = action === 'install' ? await installClaudeCodeHook(workspace, hookCommand(cliPath, process.execPath)) : await uninstallClaudeCodeHook(workspace);
    io.stdout(result.changed ? `${action === 'install' ? 'Installed' : 'Removed'} the Session Knowledge hooks in ${result.path}\n` : `${result.path} already ${action === 'install' ? 'has' : 'lacks'} the Session Knowledge hooks; nothing changed.\n`);
  }
  return 0;
}
