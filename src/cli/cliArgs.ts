/**
 * The one argument parser of `session-knowledge` (every subcommand: stats, scan, pin/unpin/pins, hook claude-code,
 * hook install/uninstall, mcp, lsp) and its one usage error. Built on `node:util` `parseArgs`, so `--opt value` and
 * `--opt=value` both work everywhere, `--` ends the options, and an unknown option or a missing value is refused the
 * same way in every command: `session-knowledge <command>: <problem>` and where to find the usage, exit 2.
 * Node built-ins only: the hook's first stop (`hookFast.ts`, dist/cli-hook.js) uses it too.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The exit status of every usage error (bad arguments, bad input to a command). */
export const USAGE_EXIT = 2;

/** A command was called wrongly. `command`: the subcommand (e.g. `scan`, `hook claude-code`), '' for none. */
export class CliUsageError extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** Commands with a `--help` of their own; the others are explained by `session-knowledge --help`. */
const OWN_HELP = new Set(['scan', 'mcp', 'lsp']);

/** What every command prints for a usage error (on stderr). */
export function usageErrorText(err: CliUsageError): string {
  const help = OWN_HELP.has(err.command) ? `session-knowledge ${err.command} --help` : 'session-knowledge --help';
  return `session-knowledge${err.command ? ` ${err.command}` : ''}: ${err.message}\nRun ${help} for usage.\n`;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The message of a `parseArgs` error, said as the rest of the CLI says it (the first line; no node jargon). */
function problemOf(err: Error & { code?: string }, options: Options): string {
  const first = err.message.split('\n')[0]!;
  const option = /'(-{1,2}[^' <]+)/.exec(first)?.[1];
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? first}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']*)'/.exec(first)?.[1] ?? first}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = option?.replace(/^-+/, '');
      if (name && options[name]?.type === 'boolean') return `${option} takes no value`;
      return `${option ?? 'an option'} needs a value`;
    }
    default:
      return first;
  }
}

/**
 * `args` parsed against `options` (strict: an unknown option, a missing value or, unless `positionals`, a positional
 * argument throws a `CliUsageError` of `command`). A value may follow its option (`--opt value`) or be joined to it
 * (`--opt=value`); a value that starts with `-` must be joined.
 */
export function parseCommandArgs<const O extends Options>(command: string, args: readonly string[], options: O, positionals = false) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: positionals });
  } catch (err) {
    throw new CliUsageError(command, problemOf(err as Error, options));
  }
}
