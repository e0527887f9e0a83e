/**
 * `session-knowledge` (dist/cli.js): picks the bundle a command needs, so `scan` starts without loading the
 * stores. `scan` → dist/cli-scan.js (src/cli/scanEntry.ts); `lsp --stdio` → dist/server.js (the language
 * server, src/server/lsp/serverMain.ts, which reads `--stdio` from argv); `mcp` → dist/cli-mcp.js (src/cli/mcp.ts: the MCP
 * SDK loads for it alone); `hook claude-code` → dist/cli-hook.js (src/cli/hookFast.ts: a prompt that owes nothing is
 * answered without loading the rest; otherwise it loads dist/cli-main.js itself, with V8's code cache); everything
 * else → dist/cli-main.js (src/cli/cliMain.ts).
 */
import { createRequire } from 'node:module';
import { CliUsageError, USAGE_EXIT, parseCommandArgs, usageErrorText } from './cliArgs';

const load = createRequire(__filename);
const argv = process.argv.slice(2);

const LSP_USAGE = `Usage: session-knowledge lsp --stdio
  Runs the Session Knowledge language server over stdin/stdout, for any LSP client (Neovim, Helix, Emacs…).
  The workspace is the client's first workspace folder (else its rootUri/rootPath).
`;

if (argv[0] === 'lsp') {
  // In this mode stdout carries the protocol: nothing else may be written to it once the server runs.
  try {
    const { values } = parseCommandArgs('lsp', argv.slice(1), { stdio: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
    if (values.help) process.stdout.write(LSP_USAGE);
    else if (values.stdio) load('./server.js');
    else throw new CliUsageError('lsp', 'say which transport');
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    process.stderr.write(`${usageErrorText(new CliUsageError('lsp', `${err.message}; only --stdio is supported`))}${LSP_USAGE}`);
    process.exitCode = USAGE_EXIT;
  }
} else {
  const io = {
    stdout: (s: string) => void process.stdout.write(s),
    stderr: (s: string) => void process.stderr.write(s),
    // read on first use: creating process.stdin costs a stream (and its modules) that most commands never read
    get stdin() {
      return process.stdin;
    },
    cwd: process.cwd(),
  };
  const run: Promise<number> =
    argv[0] === 'scan'
      ? (load('./cli-scan.js') as typeof import('./scanEntry')).runScanCommand(argv.slice(1), io)
      : argv[0] === 'mcp'
        ? (load('./cli-mcp.js') as typeof import('./mcp')).runMcpCommand(argv.slice(1), io)
        : argv[0] === 'hook' && argv[1] === 'claude-code'
          ? (load('./cli-hook.js') as typeof import('./hookFast')).runHookEntry(argv.slice(2), io, __dirname)
          : (load('./cli-main.js') as typeof import('./cliMain')).runCli(argv, io);
  run.then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`session-knowledge: ${(err as Error)?.message ?? String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
