/**
 * Claude Code's hook, first stop (`dist/cli-hook.js`, loaded by `entry.ts` for `hook claude-code`). Claude Code runs
 * the hook as a new process on every prompt; most prompts owe nothing. This module answers that common case from a
 * few stats and two small JSON files, with Node's built-ins only — no zod, no lowdb, no store, no scanner, no model —
 * and hands everything else to the full hook (`agents.ts` `runClaudeCodeHook`, in `dist/cli-main.js`).
 *
 * The record it trusts is the hook WITNESS (`hook-witness.json`, beside the agent sessions index of the workspace):
 * written by the full hook only, after a run that reported nothing (no store problem, no refused pin), naming
 * - the context: this module's format, Node's version, the workspace, global storage, the memory flag;
 * - the code: the identity (inode, size, mtime, ctime) of every file of the bundles' folder — a new build, and so a
 *   new rule set, model or block format, is a different code;
 * - every input the full hook's decision read, by identity (lstat: inode, size, mtime and ctime in nanoseconds):
 *   the workspace folder and `.knowledge/`, `pins.json`, `reviews.json`, the sessions index, this person's trust
 *   record and its key, and each pinned file with every folder between it and the workspace (a link anywhere: no
 *   witness). Each identity is taken before the full hook read the input and again after it decided; a witness is
 *   written only when both agree, so it never pairs a file's new identity with its old content;
 * - the pins delivered, the signature the full hook computed for them, whether the block was empty;
 * - per session, its file and that file's identity after the full hook read (and validated) it.
 *
 * A `UserPromptSubmit` owes nothing when every one of those still holds, no lock is held on the session, and the
 * session file names the same pins and carries that signature (or the block is empty): exactly when the full hook
 * would print nothing and write nothing. Anything else — `SessionStart` (any source), an argument other than
 * `--budget-tokens`, the memory flag set, input the full hook would reject, a missing or unparsable witness or
 * session file, any identity changed — runs the full hook, which then writes the witness again.
 *
 * The full CLI is loaded with V8's code cache (`codeCache.ts`; `SESSION_KNOWLEDGE_CODE_CACHE=0` turns it off): most of
 * its start is compiling 1 MB of JavaScript. `SESSION_KNOWLEDGE_HOOK_TRACE=1` says on stderr which path ran, why, and
 * which bundles were loaded.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { agentSessionsPath, agentStateDir, claudeCodeSessionKey } from '../server/core/agents/agentPaths';
import { defaultStoragePath } from '../server/core/store/paths';
import { MEMORY_FLAG, parseMemoryFlag } from '../server/core/memory/memoryFlag';
import { createRequire } from 'node:module';
import { findWorkspaceRoot } from './roots';
import { codeCacheState, requireWithCodeCache } from './codeCache';
import { parseCommandArgs } from './cliArgs';

/** How long the hook waits for its input on stdin before it gives up (prints nothing, exits 0). */
export const HOOK_STDIN_TIMEOUT_MS = 10_000;
/** The most hook input read from stdin. */
export const HOOK_INPUT_LIMIT_BYTES = 4 * 1024 * 1024;
/** Set to 1 to say on stderr which path the hook took, why, and which bundles it loaded. */
export const HOOK_TRACE_ENV = 'SESSION_KNOWLEDGE_HOOK_TRACE';
/** The witness format: a witness of another format is not trusted. */
export const WITNESS_VERSION = 1;

export interface HookIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadableStream;
  cwd: string;
}

/** What the first stop hands the full hook: the input it already read, the code identity taken before the full bundle loaded. */
export interface HookPrelude {
  /** The whole of stdin (already read). */
  raw?: string;
  /** `codeIdentity` of the bundles' folder, taken before the full hook's code was loaded. */
  code: string;
  /** Writes one trace line to stderr (absent without `SESSION_KNOWLEDGE_HOOK_TRACE`). */
  trace?: (line: string) => void;
}

/**
 * The whole of `stream`, at most `limitBytes`, within `timeoutMs`. On a timeout or an overflow the stream is let go
 * (listeners removed, the stream destroyed), so a stdin that never closes does not keep the process alive.
 */
export async function readAll(stream: NodeJS.ReadableStream, limitBytes: number, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const release = () => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
    };
    const giveUp = (err: Error) => {
      release();
      stream.pause();
      (stream as { destroy?: () => void }).destroy?.();
      reject(err);
    };
    const timer = setTimeout(() => giveUp(new Error(`no hook input on stdin within ${timeoutMs} ms`)), timeoutMs);
    const onData = (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      size += b.length;
      if (size > limitBytes) return giveUp(new Error(`hook input over ${limitBytes} bytes`));
      chunks.push(b);
    };
    const onEnd = () => {
      release();
      resolvePromise(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (e: Error) => {
      release();
      reject(e);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

// ---- identities -------------------------------------------------------------------------------------------

/**
 * A path's identity, without following a link at it (`follow`: through it): `file:dev:ino:size:mtimeNs:ctimeNs`,
 * `dir:dev:ino`, or `absent`, `link`, `other`, `error`. Every write of a file changes its ctime.
 */
export function identityOf(path: string, follow = false): string {
  try {
    const s = (follow ? statSync : lstatSync)(path, { bigint: true, throwIfNoEntry: false });
    if (!s) return 'absent';
    if (s.isSymbolicLink()) return 'link';
    if (s.isDirectory()) return `dir:${s.dev}:${s.ino}`;
    if (!s.isFile()) return 'other';
    return `file:${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'absent' : 'error';
  }
}

/** Identities a witness may stand on: a link, a special file or an unreadable path leave the decision to the full hook. */
export const witnessable = (identity: string): boolean => identity === 'absent' || identity.startsWith('file:') || identity.startsWith('dir:');

/** Every file of the bundles' folder, by identity: a rebuild or an upgrade (a new rule set, model, block format) changes it. */
export function codeIdentity(dir: string): string {
  try {
    return readdirSync(dir)
      .sort()
      .map((name) => `${name}=${identityOf(join(dir, name))}`)
      .join('|');
  } catch {
    return 'unreadable';
  }
}

/** The inputs of the full hook's decision besides the pinned files. The workspace folder is followed (it may be reached through a link). */
export function baseInputPaths(workspace: string, sessionsIndexPath: string, stateDir: string): string[] {
  const knowledge = join(workspace, '.knowledge');
  return [workspace, knowledge, join(knowledge, 'pins.json'), join(knowledge, 'reviews.json'), sessionsIndexPath, join(stateDir, 'trust', 'records.json'), join(stateDir, 'trust', 'key')];
}

/** Each pinned file and every folder between it and the workspace (a link there changes what the pin policy says). Null: a path outside. */
export function pinInputPaths(workspace: string, paths: readonly string[]): string[] | null {
  const out = new Set<string>();
  for (const path of paths) {
    const rel = relative(workspace, path);
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep) || /^[A-Za-z]:/.test(rel)) return null;
    let at = workspace;
    for (const part of rel.split(sep)) out.add((at = join(at, part)));
  }
  return [...out];
}

/** The identity of each path (the workspace folder itself followed). */
export function snapshot(paths: readonly string[], workspace: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of paths) out[p] = identityOf(p, p === workspace);
  return out;
}

/** What the full hook's answer depends on besides files: this module's format, Node, the workspace, storage, the flag. */
export function contextKey(workspace: string, env: NodeJS.ProcessEnv = process.env): string {
  return JSON.stringify([WITNESS_VERSION, process.version, process.platform, workspace, agentStateDir(env), defaultStoragePath(env), parseMemoryFlag(env[MEMORY_FLAG]).present]);
}

/** Where the witness of a workspace's agent sessions is kept. */
export const witnessPathOf = (sessionsIndexPath: string): string => join(dirname(sessionsIndexPath), 'hook-witness.json');

export interface HookWitness {
  v: number;
  context: string;
  code: string;
  /** The rule set the full hook judged with (said in traces; `code` is what is compared). */
  ruleset: string;
  /** Every input by identity (see the header). */
  inputs: Record<string, string>;
  /** The pins delivered (workspace ids, in order). */
  pins: string[];
  signature: string;
  /** The block had no text (no pins): a prompt prints nothing and records nothing, whatever the session carries. */
  empty: boolean;
  /** Sessions the full hook read, by key: their file and its identity then. */
  sessions: Record<string, { file: string; identity: string }>;
}

const isRecordOf = (v: unknown, check: (x: unknown) => boolean): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(check);
const isString = (x: unknown): x is string => typeof x === 'string';

/** A witness as read from disk, or null when it is not one (any doubt). */
export function parseWitness(text: string): HookWitness | null {
  let w: unknown;
  try {
    w = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof w !== 'object' || w === null || Array.isArray(w)) return null;
  const o = w as Record<string, unknown>;
  const ok =
    o.v === WITNESS_VERSION &&
    isString(o.context) &&
    isString(o.code) &&
    isString(o.ruleset) &&
    isRecordOf(o.inputs, isString) &&
    Array.isArray(o.pins) &&
    o.pins.every(isString) &&
    isString(o.signature) &&
    typeof o.empty === 'boolean' &&
    isRecordOf(o.sessions, (s) => isRecordOf(s, isString) && isString((s as Record<string, unknown>).file) && isString((s as Record<string, unknown>).identity));
  return ok ? (o as unknown as HookWitness) : null;
}

// ---- the decision ----------------------------------------------------------------------------------------

/** Claude Code's hook input, when it is exactly what the full hook accepts (its zod schema); null at any doubt. */
export function parseHookInput(raw: string): { sessionId: string; event: string; cwd?: string } | null {
  let json: unknown;
  try {
    json = JSON.parse(raw.replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const o = json as Record<string, unknown>;
  // VS Code's agent hooks spell them in camelCase; the full hook accepts both.
  const sessionId = o.session_id === undefined ? o.sessionId : o.session_id;
  const event = o.hook_event_name === undefined ? o.hookEventName : o.hook_event_name;
  if (typeof sessionId !== 'string' || sessionId.length < 1 || sessionId.length > 200 || typeof event !== 'string') return null;
  for (const k of ['source', 'prompt'] as const) if (o[k] !== undefined && typeof o[k] !== 'string') return null;
  if (o.cwd !== undefined && (typeof o.cwd !== 'string' || o.cwd.length < 1)) return null;
  return { sessionId, event, ...(o.cwd !== undefined ? { cwd: o.cwd as string } : {}) };
}

/** The arguments the first stop understands: none, or a valid `--budget-tokens N` (the budget never changes what is owed). */
function fastArgs(args: readonly string[]): boolean {
  if (args.length === 0) return true;
  let values: { 'budget-tokens'?: string };
  try {
    values = parseCommandArgs('hook claude-code', args, { 'budget-tokens': { type: 'string' } }).values;
  } catch {
    return false; // the full hook says what is wrong
  }
  const n = Number(values['budget-tokens']);
  return Number.isInteger(n) && n >= 200 && n <= 200_000;
}

const sameList = (a: unknown, b: readonly string[]): boolean => Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Null when a `UserPromptSubmit` of `sessionId` in `workspace` owes nothing for certain (the full hook would print and
 * write nothing); else why the full hook must decide.
 */
export function whyFull(workspace: string, sessionId: string, code: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (parseMemoryFlag(env[MEMORY_FLAG]).present) return 'the memory flag is set';
  const indexPath = agentSessionsPath(workspace, env);
  let text: string;
  try {
    text = readFileSync(witnessPathOf(indexPath), 'utf8');
  } catch {
    return 'no witness';
  }
  const w = parseWitness(text);
  if (!w) return 'the witness is unreadable';
  if (w.context !== contextKey(workspace, env)) return 'the context changed';
  if (w.code !== code) return 'the code changed';
  // The witness must name every input this module knows the full hook reads: it never decides what is checked.
  const pinPaths = pinInputPaths(workspace, w.pins.map((id) => join(workspace, id)));
  const required = [...baseInputPaths(workspace, indexPath, agentStateDir(env)), ...(pinPaths ?? [])];
  if (!pinPaths || required.some((p) => !(p in w.inputs)) || (w.empty && w.pins.length > 0)) return 'the witness is incomplete';
  for (const [path, identity] of Object.entries(w.inputs)) if (identityOf(path, path === workspace) !== identity) return `changed: ${path}`;
  const key = claudeCodeSessionKey(sessionId);
  const s = w.sessions[key];
  if (!s) return 'the session is not in the witness';
  if (dirname(s.file) !== join(dirname(indexPath), 'sessions')) return 'the witness is incomplete';
  // A delivery of this session in progress (another hook of it), or a write of its file.
  if (existsSync(`${s.file}.delivery.lock`) || existsSync(`${s.file}.lock`)) return 'a lock is held';
  if (identityOf(s.file) !== s.identity) return 'the session file changed';
  let record: unknown;
  try {
    record = JSON.parse(readFileSync(s.file, 'utf8'));
  } catch {
    return 'the session file is unreadable';
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'the session file is unreadable';
  const r = record as Record<string, unknown>;
  if (r.key !== key || !sameList(r.project_context_pins, w.pins)) return 'the session names other pins';
  if (!w.empty && r.knowledge_context_delivered !== w.signature) return 'owed';
  return null;
}

/** The bundles of ours this process has loaded (the trace says them). */
export function loadedBundles(dir: string): string[] {
  return Object.keys(require.cache)
    .filter((p) => dirname(p) === dir)
    .map((p) => p.slice(dir.length + 1))
    .sort();
}

/** The full CLI (`dist/cli-main.js`, `main.ts`), as the first stop calls it. */
export interface FullCli {
  runCli: (argv: string[], io: HookIo & { hook: HookPrelude }) => Promise<number>;
}

/** Set to 0 to load the full CLI without V8's code cache. */
export const CODE_CACHE_ENV = 'SESSION_KNOWLEDGE_CODE_CACHE';

/** `dist/cli-main.js`, with V8's code cache in the per-user state folder (`codeCache.ts`) unless turned off. */
export function loadFullCli(codeDir: string, env: NodeJS.ProcessEnv = process.env): FullCli {
  const file = join(codeDir, 'cli-main.js');
  if (env[CODE_CACHE_ENV] === '0') return createRequire(file)(file) as FullCli;
  return requireWithCodeCache(file, join(agentStateDir(env), 'code-cache')) as FullCli;
}

/**
 * `hook claude-code ARGS`: nothing when nothing is owed for certain; else the full hook (`loadFull()` loads it).
 * `codeDir`: the bundles' folder.
 */
export async function runHookEntry(args: readonly string[], io: HookIo, codeDir: string = __dirname, loadFull: () => FullCli = () => loadFullCli(codeDir)): Promise<number> {
  const trace = process.env[HOOK_TRACE_ENV] === '1' ? (line: string) => io.stderr(`session-knowledge hook: trace: ${line}\n`) : undefined;
  // Taken before the full hook's code can load: a witness written by that code names the code it ran.
  const code = codeIdentity(codeDir);
  const full = (reason: string, raw?: string): Promise<number> => {
    trace?.(`full path (${reason})`);
    const hook: HookPrelude = { code, ...(raw !== undefined ? { raw } : {}), ...(trace ? { trace } : {}) };
    const cli = loadFull();
    trace?.(`code cache: ${process.env[CODE_CACHE_ENV] === '0' ? 'off' : codeCacheState}`);
    const ran = cli.runCli(['hook', 'claude-code', ...args], { ...io, hook });
    return trace ? ran.then((code) => (trace(`full path done; loaded ${loadedBundles(codeDir).join(', ')}`), code)) : ran;
  };
  if (!fastArgs(args)) return full('arguments');
  let raw: string;
  try {
    raw = await readAll(io.stdin, HOOK_INPUT_LIMIT_BYTES, HOOK_STDIN_TIMEOUT_MS);
  } catch (err) {
    // What the full hook says and does for the same failure: one line, exit 0.
    io.stderr(`session-knowledge hook: ${((err as Error)?.message ?? String(err)).split('\n')[0]}\n`);
    return 0;
  }
  const input = parseHookInput(raw);
  if (!input) return full('input', raw);
  if (input.event !== 'UserPromptSubmit') return full(input.event, raw);
  const workspace = findWorkspaceRoot(input.cwd ?? process.env.CLAUDE_PROJECT_DIR ?? io.cwd);
  if (!workspace) {
    trace?.('no .knowledge/ here: nothing to carry');
    return 0;
  }
  const why = whyFull(workspace, input.sessionId, code);
  if (why !== null) return full(why, raw);
  trace?.(`fast path: nothing owed; loaded ${loadedBundles(codeDir).join(', ')}`);
  return 0;
}
