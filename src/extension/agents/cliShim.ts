/**
 * The command line of the CLI an installed extension ships (`<extension>/dist/cli.js`), and the small launcher
 * "Install CLI on PATH…" writes for it on Linux and macOS. Pure Node, no `vscode` (the unit tests run it on real
 * temp folders; src/extension/agents/cliCommand.ts wires it to the commands).
 *
 * The launcher is one file, `session-knowledge`, in `$XDG_BIN_HOME` (else `~/.local/bin`): a `/bin/sh` script that
 * runs `node '<cli.js>' "$@"`. It is written only with the person's consent, never over a file that is not ours (a
 * link, a folder, or a file without our marker line), atomically (a temp file renamed over it), and rewritten when the
 * extension moves (an update changes its folder) only when it is ours.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CLI_NAME = 'session-knowledge';
/** The line that makes a launcher ours: only a file holding it is ever rewritten. */
export const SHIM_MARKER = '# Written by the Session Knowledge extension (Install CLI on PATH).';

/**
 * `node "<cli.js>"`, quoted for the platform's shell: POSIX double quotes (with `\`, `"`, `$` and backquotes
 * escaped), or Windows double quotes (a Windows path cannot hold `"`).
 */
export function cliCommandLine(cliPath: string, platform: NodeJS.Platform = process.platform): string {
  const quoted = platform === 'win32' ? `"${cliPath}"` : `"${cliPath.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;
  return `node ${quoted}`;
}

/** Where the launcher goes: `$XDG_BIN_HOME`, else `~/.local/bin`. */
export function shimDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_BIN_HOME && env.XDG_BIN_HOME.startsWith('/') ? env.XDG_BIN_HOME : join(homedir(), '.local', 'bin');
}

const singleQuoted = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The launcher's text for a CLI at `cliPath`. */
export function shimText(cliPath: string): string {
  return `#!/bin/sh\n${SHIM_MARKER}\n# It runs the CLI of the installed extension; the extension points it at its new folder when it updates.\nexec node ${singleQuoted(cliPath)} "$@"\n`;
}

/** What is at the launcher's path now: nothing, our launcher (and the CLI it runs), or something that is not ours. */
export type ShimState = { kind: 'absent' } | { kind: 'ours'; cliPath: string | undefined } | { kind: 'foreign'; why: string };

export function shimState(file: string): ShimState {
  let st;
  try {
    st = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'foreign', why: (err as Error).message };
  }
  if (st.isSymbolicLink()) return { kind: 'foreign', why: 'it is a link' };
  if (!st.isFile()) return { kind: 'foreign', why: 'it is not a file' };
  if (st.size > 4096) return { kind: 'foreign', why: 'it is not our launcher' };
  const text = readFileSync(file, 'utf8');
  if (!text.split('\n').includes(SHIM_MARKER)) return { kind: 'foreign', why: 'it is not our launcher' };
  const m = /^exec node '((?:[^']|'\\'')*)' "\$@"$/m.exec(text);
  return { kind: 'ours', cliPath: m ? m[1]!.replace(/'\\''/g, "'") : undefined };
}

export type ShimResult = { outcome: 'written' | 'unchanged'; file: string } | { outcome: 'refused'; file: string; why: string };

/** Writes the launcher for `cliPath` into `dir` (created if missing), unless a file there is not ours. */
export function writeShim(dir: string, cliPath: string): ShimResult {
  const file = join(dir, CLI_NAME);
  const state = shimState(file);
  if (state.kind === 'foreign') return { outcome: 'refused', file, why: state.why };
  if (state.kind === 'ours' && state.cliPath === cliPath) return { outcome: 'unchanged', file };
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const temp = join(dir, `.${CLI_NAME}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, shimText(cliPath), { mode: 0o755, flag: 'wx' });
    chmodSync(temp, 0o755);
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return { outcome: 'written', file };
}

/** On activation: points our launcher, if there is one, at this extension's CLI. Never creates one. */
export function refreshShim(dir: string, cliPath: string): ShimResult | undefined {
  const state = shimState(join(dir, CLI_NAME));
  return state.kind === 'ours' && state.cliPath !== cliPath ? writeShim(dir, cliPath) : undefined;
}

/** Whether `dir` is one of the folders of `PATH`. */
export function onPath(dir: string, pathValue: string | undefined = process.env.PATH): boolean {
  const clean = (p: string) => p.replace(/\/+$/, '');
  return (pathValue ?? '').split(':').some((p) => p !== '' && clean(p) === clean(dir));
}
