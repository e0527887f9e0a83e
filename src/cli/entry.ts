/**
 * `session-knowledge` (dist/cli.js): picks the bundle a command needs, so `scan` starts without loading the
 * stores. `scan` → dist/cli-scan.js (src/cli/scanEntry.ts); `mcp` → dist/cli-mcp.js (src/cli/mcp.ts: the MCP SDK loads
 * for it alone); everything else → dist/cli-main.js (src/cli/main.ts).
 */
import { createRequire } from 'node:module';

const load = createRequire(__filename);
const argv = process.argv.slice(2);
const io = {
  stdout: (s: string) => void process.stdout.write(s),
  stderr: (s: string) => void process.stderr.write(s),
  stdin: process.stdin,
  cwd: process.cwd(),
};
const run: Promise<number> =
  argv[0] === 'scan'
    ? (load('./cli-scan.js') as typeof import('./scanEntry')).runScanCommand(argv.slice(1), io)
    : argv[0] === 'mcp'
      ? (load('./cli-mcp.js') as typeof import('./mcp')).runMcpCommand(argv.slice(1), io)
      : (load('./cli-main.js') as typeof import('./main')).runCli(argv, io);
run.then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`session-knowledge: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = 2;
  },
);
