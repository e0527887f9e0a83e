/**
 * `session-knowledge`: the command-line tool on the same core as the language server. No VS Code needed.
 */
import { relative, resolve, sep } from 'node:path';
import { ReviewStore } from '../server/core/review/reviewStore';
import { defaultStoragePath } from '../server/core/store/paths';
import type { Stats } from '../shared/schemas';
import type { ScanArgs, ScanHooks } from './scanFiles';
import { runScanWithWorkspaces, type ReviewOptions } from './scanCommand';
import { KnowledgeCore } from '../server/core/knowledgeCore';
import { runClaudeCodeHook, runHookSetup, runPins } from './agentCommands';
import { WORKSPACE_OPTION, scannedWorkspaceRoots, workspaceFoldersArg } from './roots';
import { CliUsageError, USAGE_EXIT, parseCommandArgs, usageErrorText } from './cliArgs';
import { counted } from '../server/core/delivery/blockWords';

export { defaultStoragePath };

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadableStream;
  cwd: string;
}

const HELP = `session-knowledge — Session Knowledge on the command line (no VS Code needed)

Usage:
  session-knowledge stats [--workspace DIR|FILE.code-workspace]... [--storage DIR] [--json]
      Counts notes, plans and sessions (per folder, for several), checks every store file, lists problems found —
      what scan flags among them. Exit 0 when healthy, 1 when a problem was found (as scan does), 2 on bad input.
  session-knowledge scan [PATH...] [--workspace DIR|FILE.code-workspace]... [--jsonl FILE|-]
      Scans .knowledge/ (or the given files and folders, or every folder of a workspace) for text that tries
      to instruct the model and prints findings like a linter (file:line:col rule-id message [folder NAME]).
      Exit 1 when something is flagged, 0 when clean, 2 on bad input. --jsonl reads {"id","text"} lines and
      writes one result line each. Run session-knowledge scan --help for details.
  session-knowledge pin PATH... | unpin PATH... | pins [--workspace DIR|FILE.code-workspace]...
      The agent pins (.knowledge/pins.json of the folder holding each file): what Claude Code, the MCP server
      and Copilot's instruction file carry. Secrets and files outside the workspace are refused (exit 1).
  session-knowledge hook claude-code [--budget-tokens N] [--workspace DIR|FILE.code-workspace]...
      Claude Code's SessionStart / UserPromptSubmit hook: reads the hook input on stdin, prints the block when
      the session is owed it. Never blocks a prompt: on bad input it prints nothing and exits 0.
  session-knowledge hook install claude-code | hook uninstall claude-code [--workspace DIR|FILE.code-workspace]...
      Adds (removes) the two hook entries in .claude/settings.local.json of each folder, keeping every other setting.
  session-knowledge lsp --stdio
      Runs the language server over stdin/stdout for any LSP client (Neovim, Helix, Emacs…): warnings on
      .knowledge/** files that read as instructions to a model, and a "mark as reviewed" code action.
      The workspace is the client's root folder; nothing else may be written to stdout.
  session-knowledge mcp [--workspace DIR|FILE.code-workspace]... [--storage DIR]
      An MCP server on stdio (Claude Code, Cursor, any MCP client): the tool knowledge_context (the agent
      pins' block), every note and plan as a resource; flagged items withheld. Logs go to stderr.
  session-knowledge --help | --version

Options (every command; a value may follow its option or be joined to it: --workspace DIR or --workspace=DIR):
  --workspace DIR   a workspace folder holding .knowledge/ (default: the nearest one from the current folder), or
                    a VS Code .code-workspace file (its folders; JSONC, paths relative to the file). Given more
                    than once, or a file of several folders: ids start with each folder's name
                    (infra/.knowledge/notes/x.md), as in a VS Code multi-root workspace
  --storage DIR     the extension's global storage (default: $SESSION_KNOWLEDGE_STORAGE, else VS Code's)
  --json            print JSON instead of text

Bad arguments: session-knowledge <command>: <problem> on stderr, then where the usage is, and exit 2 — in every
command but the hook, which never blocks a prompt (one line on stderr, exit 0).
`;

/**
 * Reviews ("reviewed — not a threat"): this person's own record (per user, `review/userTrust.ts`) clears a finding;
 * each workspace's `.knowledge/reviews.json` (the team's record) only with `--accept-repository-reviews`. The
 * workspace of a scanned path is found from that path, not from the current folder, so `scan some/repo/.knowledge`
 * run from a parent folder honours the reviews of some/repo.
 */
export async function reviewsFor(args: Pick<ScanArgs, 'paths' | 'jsonl'>, cwd: string, options: ReviewOptions = { acceptRepository: false }): Promise<ScanHooks> {
  const roots = scannedWorkspaceRoots(args, cwd);
  const stores = new Map<string, ReviewStore>();
  for (const root of roots) {
    const store = new ReviewStore(root, undefined, { acceptRepository: options.acceptRepository });
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

/**
 * What `session-knowledge scan` flags in these folders, run exactly as `scan --workspace DIR…` runs it (the same
 * files, rules and reviews): its finding lines. `stats` counts them as problems, so the two always agree.
 */
async function flaggedByScan(folders: readonly { path: string }[], io: CliIo): Promise<string[]> {
  const lines: string[] = [];
  const quiet: CliIo = { stdout: (s) => void lines.push(...s.split('\n').filter(Boolean)), stderr: () => undefined, stdin: io.stdin, cwd: io.cwd };
  await runScanWithWorkspaces(folders.flatMap((f) => ['--workspace', f.path]), quiet, (expanded, options) => reviewsFor(expanded, io.cwd, options));
  return lines;
}

/** Stats as `stats` prints them: with `flagged`, the scan's findings (each one a problem, as `scan` exits 1 on it). */
export type StatsReport = Stats & { flagged?: string[] };

export function formatStatsText(stats: StatsReport): string {
  const flagged = stats.flagged ?? [];
  const problems = stats.problems.length + flagged.length;
  const lines = [
    `workspace   ${stats.workspaceFolder ?? '(none)'}`,
    ...(stats.folders ?? []).map((f) => `folder      ${f.name}: ${f.notes} notes, ${f.plans} plans  ${f.path}`),
    `notes       ${stats.notes}`,
    `plans       ${stats.plans}`,
    `sessions    ${stats.sessions}`,
    `draft pins  ${stats.draftPins}`,
    ...stats.stores.map((s) => `store       ${s.source}: ${s.state}${s.schemaVersion !== null ? ` (schema v${s.schemaVersion})` : ''}  ${s.path}`),
    `flagged     ${flagged.length === 0 ? 'none' : `${counted(flagged.length, 'finding')} in ${counted(new Set(flagged.map((f) => f.replace(/:\d+:\d+ .*$/, ''))).size, 'file')} (withheld from models; session-knowledge scan shows the same)`}`,
    problems === 0 ? 'problems    none' : `problems    ${problems}`,
    ...stats.problems.map((p) => `  - ${p.message}`),
    ...flagged.map((f) => `  - flagged: ${f}`),
  ];
  return `${lines.join('\n')}\n`;
}

async function stats(args: string[], io: CliIo): Promise<number> {
  // --workspace may be given several times (or name a .code-workspace file).
  const { values: opts } = parseCommandArgs('stats', args, { ...WORKSPACE_OPTION, storage: { type: 'string' }, json: { type: 'boolean' } });
  // Without --workspace: the current folder, as ever.
  const folders = workspaceFoldersArg('stats', opts.workspace?.length ? opts.workspace : ['.'], io.cwd, io.stderr);
  const storage = opts.storage !== undefined ? resolve(io.cwd, opts.storage) : defaultStoragePath();
  const core = new KnowledgeCore({ workspaceFolder: folders[0]!.path, ...(folders.length > 1 ? { workspaceFolders: folders } : {}), globalStoragePath: storage });
  await core.load();
  const result: StatsReport = { ...(await core.stats()), flagged: await flaggedByScan(folders, io) };
  io.stdout(opts.json ? `${JSON.stringify(result, null, 2)}\n` : formatStatsText(result));
  return result.problems.length > 0 || result.flagged!.length > 0 ? 1 : 0;
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
        return await runScanWithWorkspaces(rest, io, (expanded, options) => reviewsFor(expanded, io.cwd, options));
      case 'pin':
      case 'unpin':
      case 'pins':
        return await runPins(command, rest, io, defaultStoragePath());
      case 'hook': {
        const [sub, ...more] = rest;
        if (sub === 'claude-code') return await runClaudeCodeHook(more, io, defaultStoragePath());
        if (sub === 'install' || sub === 'uninstall') return await runHookSetup(sub, more, io, resolve(process.argv[1] ?? 'session-knowledge'));
        throw new CliUsageError('hook', 'takes: claude-code | install claude-code | uninstall claude-code');
      }
      default:
        throw new CliUsageError('', `unknown command ${command}`);
    }
  } catch (err) {
    if (err instanceof CliUsageError) {
      io.stderr(usageErrorText(err));
      return USAGE_EXIT;
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
