/**
 * `session-knowledge`: the command-line tool on the same core as the language server. No VS Code needed.
 */
import { existsSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { ReviewStore } from '../server/review/reviewStore';
import { KnowledgeCore } from '../server/knowledgeCore';
import { defaultStoragePath } from '../server/store/paths';
import type { Stats } from '../shared/schemas';
import { scannedWorkspaceRoots } from './roots';
import { runScan, type ScanHooks } from './scan';
import { AgentUsageError, runClaudeCodeHook, runHookSetup, runPins } from './agents';

export { defaultStoragePath };

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadableStream;
  cwd: string;
}

const HELP = `session-knowledge — Session Knowledge on the command line (no VS Code needed)

Usage:
  session-knowledge stats [--workspace DIR] [--storage DIR] [--json]
      Counts notes, plans and sessions, checks every store file, lists problems found.
      Exit 0 when healthy, 1 when a problem was found, 2 on bad input.
  session-knowledge scan [PATH...] [--jsonl FILE|-]
      Scans .knowledge/ (or the given files and folders) for text that tries to instruct the model and
      prints findings like a linter (file:line:col rule-id message). Exit 1 when something is flagged,
      0 when clean, 2 on bad input. --jsonl reads {"id","text"} lines and writes one result line each.
      Run session-knowledge scan --help for details.
  session-knowledge pin PATH... | unpin PATH... | pins [--workspace DIR]
      The agent pins (.knowledge/pins.json): what Claude Code, the MCP server and Copilot's instruction file
      carry. Secrets and files outside the workspace are refused (exit 1).
  session-knowledge hook claude-code [--budget-tokens N]
      Claude Code's SessionStart / UserPromptSubmit hook: reads the hook input on stdin, prints the block when
      the session is owed it. Never blocks a prompt: on bad input it prints nothing and exits 0.
  session-knowledge hook install claude-code | hook uninstall claude-code [--workspace DIR]
      Adds (removes) the two hook entries in .claude/settings.local.json, keeping every other setting.
  session-knowledge lsp --stdio
      Runs the language server over stdin/stdout for any LSP client (Neovim, Helix, Emacs…): warnings on
      .knowledge/** files that read as instructions to a model, and a "mark as reviewed" code action.
      The workspace is the client's root folder; nothing else may be written to stdout.
  session-knowledge mcp [--workspace DIR] [--storage DIR]
      An MCP server on stdio (Claude Code, Cursor, any MCP client): the tool knowledge_context (the agent
      pins' block), every note and plan as a resource; flagged items withheld. Logs go to stderr.
  session-knowledge --help | --version

Options:
  --workspace DIR   the workspace folder holding .knowledge/ (default: the current folder)
  --storage DIR     the extension's global storage (default: $SESSION_KNOWLEDGE_STORAGE, else VS Code's)
  --json            print JSON instead of text
`;

class UsageError extends Error {}

/**
 * Reviews ("reviewed — not a threat") live in each workspace's `.knowledge/reviews.json`. The workspace of a
 * scanned path is found from that path, not from the current folder, so `scan some/repo/.knowledge` run
 * from a parent folder honours some/repo's reviews.
 */
export async function reviewsFor(args: readonly string[], cwd: string): Promise<ScanHooks> {
  const roots = scannedWorkspaceRoots(args, cwd);
  const stores = new Map<string, ReviewStore>();
  for (const root of roots) {
    const store = new ReviewStore(root);
    await store.load();
    stores.set(root, store);
  }
  // The innermost workspace that holds the file decides.
  const byDepth = [...stores.keys()].sort((a, b) => b.length - a.length);
  return {
    isReviewed: (path, hash, version) => {
      const abs = resolve(cwd, path);
      const root = byDepth.find((r) => abs === r || abs.startsWith(r + sep));
      return Boolean(root && stores.get(root)!.isReviewed(relative(root, abs).split(sep).join('/'), hash, version));
    },
  };
}

function parseOptions(args: string[], known: Record<string, 'value' | 'flag'>): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const kind = known[arg];
    if (!kind) throw new UsageError(`unknown option ${arg}`);
    if (kind === 'flag') out[arg] = true;
    else {
      const value = args[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a value`);
      out[arg] = value;
    }
  }
  return out;
}

export function formatStatsText(stats: Stats): string {
  const lines = [
    `workspace   ${stats.workspaceFolder ?? '(none)'}`,
    `notes       ${stats.notes}`,
    `plans       ${stats.plans}`,
    `sessions    ${stats.sessions}`,
    `draft pins  ${stats.draftPins}`,
    ...stats.stores.map((s) => `store       ${s.source}: ${s.state}${s.schemaVersion !== null ? ` (schema v${s.schemaVersion})` : ''}  ${s.path}`),
    stats.problems.length === 0 ? 'problems    none' : `problems    ${stats.problems.length}`,
    ...stats.problems.map((p) => `  - ${p.message}`),
  ];
  return `${lines.join('\n')}\n`;
}

async function stats(args: string[], io: CliIo): Promise<number> {
  const opts = parseOptions(args, { '--workspace': 'value', '--storage': 'value', '--json': 'flag' });
  const workspace = resolve(io.cwd, typeof opts['--workspace'] === 'string' ? opts['--workspace'] : '.');
  if (!existsSync(workspace) || !statSync(workspace).isDirectory()) throw new UsageError(`--workspace ${workspace} is not a folder`);
  const storage = typeof opts['--storage'] === 'string' ? resolve(io.cwd, opts['--storage']) : defaultStoragePath();
  const core = new KnowledgeCore({ workspaceFolder: workspace, globalStoragePath: storage });
  await core.load();
  const result = await core.stats();
  io.stdout(opts['--json'] ? `${JSON.stringify(result, null, 2)}\n` : formatStatsText(result));
  return result.problems.length > 0 ? 1 : 0;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout(HELP);
        return command === undefined ? 2 : 0;
      case '--version':
        io.stdout('0.1.0\n');
        return 0;
      case 'stats':
        return await stats(rest, io);
      case 'scan':
        return await runScan(rest, io, await reviewsFor(rest, io.cwd));
      case 'pin':
      case 'unpin':
      case 'pins':
        return await runPins(command, rest, io, defaultStoragePath());
      case 'hook': {
        const [sub, ...more] = rest;
        if (sub === 'claude-code') return await runClaudeCodeHook(more, io, defaultStoragePath());
        if (sub === 'install' || sub === 'uninstall') return await runHookSetup(sub, more, io, resolve(process.argv[1] ?? 'session-knowledge'));
        throw new UsageError('hook takes: claude-code | install claude-code | uninstall claude-code');
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof AgentUsageError) {
      io.stderr(`session-knowledge: ${err.message}\nRun session-knowledge --help for usage.\n`);
      return 2;
    }
    io.stderr(`session-knowledge: ${(err as Error)?.message ?? String(err)}\n`);
    return 2;
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stdin: process.stdin,
    cwd: process.cwd(),
  }).then((code) => {
    process.exitCode = code;
  });
}
