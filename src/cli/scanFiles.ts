/**
 * `session-knowledge scan` — run the threat-pattern scanner over knowledge files, like a linter.
 *
 *   session-knowledge scan [PATH...]        scan files/directories (default: <cwd>/.knowledge/, recursively)
 *   session-knowledge scan --jsonl FILE|-   score lines {"id","text"}; one result line per input, in order
 *
 * File mode prints `path:line:col rule-id message` per finding (1-based line/col, path relative to cwd).
 * `*.md` (and any file named explicitly) is scanned as text; `*.json` / `*.jsonl` memory files have every
 * string value scanned, located back in the file. Exit status: 0 clean, 1 something flagged, 2 bad input
 * (missing path, unreadable file, invalid JSON) — 2 wins over 1.
 *
 * Pure Node: no `vscode`, no language-server imports.
 */
// Synchronous reads: a scan reads its files one after another, and `fs/promises` would cost every run its start-up.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { judge, type Subject, type Verdict, type Veto } from '../server/core/threat/judgement';
import { RULESET_VERSION } from '../server/core/threat/threatScanner';
import { MAX_KNOWLEDGE_BYTES, readKnowledgeFileSync } from '../server/core/notes/knowledgeFile';
import { CliUsageError, USAGE_EXIT, parseCommandArgs, usageErrorText } from './cliArgs';

export interface ScanIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadableStream;
  cwd: string;
}

export interface ScanHooks {
  /**
   * "Reviewed — not a threat" lookup (storage comes later). `path` is the cwd-relative file path, with
   * `#<id>` (or `#L<line>`) appended for a memory entry inside a JSON/JSONL file. Reviewed texts are not
   * reported.
   */
  isReviewed?: (path: string, contentHash: string, rulesetVersion: string) => boolean;
  /**
   * The workspace folder that holds a scanned file (absolute path), when a multi-root workspace was given: each
   * finding then ends with `[folder NAME]`, and the summary counts findings per folder.
   */
  folderOf?: (absolutePath: string) => string | undefined;
}

const HELP = `Usage: session-knowledge scan [PATH...] [--workspace DIR|FILE.code-workspace]... [--accept-repository-reviews]
       session-knowledge scan --jsonl FILE|-

Scan knowledge for text that reads as instructions to a model (prompt injection,
exfiltration, hidden or encoded text). Rule set ${RULESET_VERSION}.

  PATH          files or directories (default: .knowledge/ under the current directory);
                directories are searched for *.md, *.json and *.jsonl; a FILE.code-workspace
                is its folders, as with --workspace
  --workspace   a workspace folder, or a VS Code .code-workspace file (every folder it lists;
                JSONC, paths relative to the file); repeatable. Scans each folder's .knowledge/
                and ends each finding with [folder NAME]
  --jsonl FILE  read {"id": "...", "text": "..."} lines from FILE (- for stdin) and write
                {"id","flagged","rules":[{"id","category","start","end"}]} lines in order, with
                "vetoed":[{"id","start","end","gate","score"}] when the model vetoed a rule's match
  --accept-repository-reviews
                also honour the repository's own .knowledge/reviews.json. Without it only
                reviews YOU made or accepted on this machine (your per-user record) clear a
                finding. With it, anyone who can commit to this repository can clear a
                finding: use it only where reviews.json changes are checked in code review
                (e.g. a CI gate on a protected branch)
  -h, --help    show this help

Output: path:line:col rule-id message [folder NAME]
Exit status: 0 nothing flagged, 1 something flagged, 2 bad input.
`;

const SCANNED_EXT = new Set(['.md', '.markdown', '.json', '.jsonl']);
const SKIP_DIRS = new Set(['node_modules', '.git']);

/** The options of `scan` (see HELP), parsed by the one CLI parser (`cliArgs.ts`). */
const SCAN_OPTIONS = {
  workspace: { type: 'string', multiple: true },
  jsonl: { type: 'string' },
  'accept-repository-reviews': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A `scan` command's arguments. `workspaces` are expanded into `paths` by `runScanWithWorkspaces` (scanCommand.ts). */
export interface ScanArgs {
  paths: string[];
  workspaces: string[];
  jsonl?: string;
  acceptRepository: boolean;
  help: boolean;
}

/** Parses a `scan` command's arguments; throws a `CliUsageError` when they are wrong. */
export function parseScanArgs(args: readonly string[]): ScanArgs {
  const { values, positionals } = parseCommandArgs('scan', args, SCAN_OPTIONS, true);
  if (values.jsonl !== undefined && positionals.length > 0) throw new CliUsageError('scan', '--jsonl takes no PATH arguments');
  return {
    paths: positionals,
    workspaces: values.workspace ?? [],
    ...(values.jsonl !== undefined ? { jsonl: values.jsonl } : {}),
    acceptRepository: values['accept-repository-reviews'] === true,
    help: values.help === true,
  };
}

/**
 * Scans what a `scan` command names (its arguments, or as parsed with its workspaces already expanded). Resolves to
 * the exit status.
 */
export async function runScan(args: readonly string[] | ScanArgs, io: ScanIo, hooks: ScanHooks = {}): Promise<number> {
  let parsed: ScanArgs;
  try {
    parsed = isScanArgs(args) ? args : parseScanArgs(args);
    if (parsed.workspaces.length > 0 && !isScanArgs(args)) throw new CliUsageError('scan', '--workspace is read by session-knowledge scan, not here');
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    io.stderr(usageErrorText(err));
    return USAGE_EXIT;
  }
  if (parsed.help) {
    io.stdout(HELP);
    return 0;
  }
  if (parsed.jsonl !== undefined) return scanJsonlStream(parsed.jsonl, io);
  return scanPaths(parsed.paths, io, hooks);
}

const isScanArgs = (a: readonly string[] | ScanArgs): a is ScanArgs => !Array.isArray(a);

// ---------------------------------------------------------------------------------------------------------
// --jsonl mode

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function scanJsonlStream(source: string, io: ScanIo): Promise<number> {
  let raw: string;
  try {
    raw = source === '-' ? await readAll(io.stdin) : readFileSync(resolve(io.cwd, source), 'utf8');
  } catch (e) {
    io.stderr(`scan: cannot read ${source}: ${(e as Error).message}\n`);
    return 2;
  }
  // Validate everything first: a bad line produces no partial output.
  const inputs: Array<{ id: unknown; text: string }> = [];
  const errors: string[] = [];
  raw.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const v = JSON.parse(line) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
      const { id, text } = v as { id?: unknown; text?: unknown };
      if (typeof text !== 'string') throw new Error('"text" must be a string');
      if (typeof id !== 'string' && typeof id !== 'number') throw new Error('"id" must be a string or number');
      inputs.push({ id, text });
    } catch (e) {
      errors.push(`${source === '-' ? '<stdin>' : source}:${i + 1}: invalid line: ${(e as Error).message}`);
    }
  });
  if (errors.length) {
    io.stderr(`${errors.slice(0, 20).join('\n')}\n`);
    return 2;
  }
  let flagged = false;
  const out: string[] = [];
  for (const { id, text } of inputs) {
    // the one judgement, explained: what was flagged, and what the learned stage vetoed (rule, span, gate, score)
    const verdict = judge({ kind: 'text', id: String(id), text }, { explain: true });
    const findings = verdict.findings;
    if (findings.length) flagged = true;
    const vetoed = (verdict.vetoed ?? []).map(vetoJson);
    out.push(
      JSON.stringify({
        id,
        flagged: findings.length > 0,
        rules: findings.map((f) => ({ id: f.ruleId, category: f.category, start: f.start, end: f.end })),
        ...(vetoed.length > 0 ? { vetoed } : {}),
      }),
    );
  }
  if (out.length) io.stdout(`${out.join('\n')}\n`);
  return flagged ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// File mode

interface Report {
  flagged: number;
  files: number;
  bad: boolean;
  /** Findings per workspace folder, when a multi-root workspace was given. */
  byFolder?: Map<string, number>;
}

async function scanPaths(paths: string[], io: ScanIo, hooks: ScanHooks): Promise<number> {
  const useDefault = paths.length === 0;
  const roots = useDefault ? [join(io.cwd, '.knowledge')] : paths.map((p) => (isAbsolute(p) ? p : resolve(io.cwd, p)));
  const report: Report = { flagged: 0, files: 0, bad: false, ...(hooks.folderOf ? { byFolder: new Map<string, number>() } : {}) };
  const files: Array<{ path: string; explicit: boolean }> = [];
  for (const root of roots) {
    let st;
    try {
      st = statSync(root);
    } catch {
      io.stderr(`scan: ${rel(io, root)}: no such file or directory${useDefault ? ' (run in a workspace with a .knowledge/ folder, or pass PATH)' : ''}\n`);
      report.bad = true;
      continue;
    }
    if (st.isDirectory()) files.push(...(await walk(root, io, report)).map((p) => ({ path: p, explicit: false })));
    else files.push({ path: root, explicit: true });
  }
  for (const { path } of files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    let text: string;
    try {
      const ext = extname(path).toLowerCase();
      if (ext === '.json' || ext === '.jsonl') text = readFileSync(path, 'utf8');
      else {
        // Text is judged as every other reader judges it (`notes/knowledgeFile.ts`): up to the cap, which is all an agent is given.
        const read = readKnowledgeFileSync(path);
        if (read.truncated) io.stderr(`scan: ${rel(io, path)}: over ${MAX_KNOWLEDGE_BYTES / 1024} KiB; the first ${MAX_KNOWLEDGE_BYTES / 1024} KiB were scanned (no agent is given more)\n`);
        text = read.text;
      }
    } catch (e) {
      io.stderr(`scan: ${rel(io, path)}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      report.bad = true;
      continue;
    }
    report.files++;
    const ext = extname(path).toLowerCase();
    const folder = hooks.folderOf?.(path);
    const before = report.flagged;
    if (ext === '.jsonl') scanJsonLines(path, text, io, hooks, report, folder);
    else if (ext === '.json') scanJsonDocument(path, text, io, hooks, report, folder);
    else {
      // A note's name reaches the model too (`threat/names.ts`): its findings come first, at 1:1.
      const verdict = judge(subjectOf(hooks, rel(io, path), text, folder !== undefined ? `${folder}/${rel(io, path)}` : rel(io, path)));
      emit(io, report, verdict, (o) => lineCol(text, o), undefined, folder);
    }
    if (folder !== undefined && report.byFolder) report.byFolder.set(folder, (report.byFolder.get(folder) ?? 0) + report.flagged - before);
  }
  if (report.flagged) {
    const perFolder = report.byFolder && report.byFolder.size > 0 ? `; ${[...report.byFolder].map(([f, n]) => `${f}: ${n}`).join(', ')}` : '';
    io.stderr(`${report.flagged} finding${report.flagged === 1 ? '' : 's'} in ${report.files} file${report.files === 1 ? '' : 's'}${perFolder} (rule set ${RULESET_VERSION})\n`);
  }
  return report.bad ? 2 : report.flagged ? 1 : 0;
}

async function walk(dir: string, io: ScanIo, report: Report, depth = 0): Promise<string[]> {
  if (depth > 32) return [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    io.stderr(`scan: ${rel(io, dir)}: cannot read directory: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    report.bad = true;
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...(await walk(p, io, report, depth + 1)));
    } else if (e.isFile() && SCANNED_EXT.has(extname(e.name).toLowerCase())) out.push(p);
  }
  return out;
}

const rel = (io: ScanIo, p: string): string => relative(io.cwd, p) || p;

function lineCol(text: string, offset: number): [number, number] {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return [line, offset - lineStart + 1];
}

/** A scanned text as the judgement's subject: `reviewPath` names it for reviews; `name`, when it reaches a model. */
function subjectOf(hooks: ScanHooks, reviewPath: string, text: string, name?: string): Subject {
  const isReviewed = hooks.isReviewed;
  return {
    kind: 'file',
    id: reviewPath,
    text,
    ...(name !== undefined ? { name } : {}),
    ...(isReviewed ? { reviews: (revision: string) => ({ cleared: isReviewed(reviewPath, revision, RULESET_VERSION) }) } : {}),
  };
}

/** A veto as JSON: the rule, its span, the gate it needed and the score the text reached (null when not finite). */
const vetoJson = (v: Veto) => ({ id: v.ruleId, start: v.start, end: v.end, gate: Number.isFinite(v.gate) ? v.gate : null, score: Number.isFinite(v.score) ? v.score : null });

function emit(io: ScanIo, report: Report, verdict: Verdict, locate: (offset: number) => [number, number], displayPath = verdict.id, folder?: string): void {
  for (const f of verdict.findings) {
    const [line, col] = locate(f.start);
    const inner = f.inner?.length ? ` [uncovered text trips: ${f.inner.join(', ')}]` : '';
    io.stdout(`${displayPath}:${line}:${col} ${f.ruleId} ${f.message}${inner}${folder !== undefined ? ` [folder ${folder}]` : ''}\n`);
    report.flagged++;
  }
}

/** Every string value in a parsed JSON value, depth-first in document order (depth-bounded). */
function* strings(v: unknown, depth = 0): Generator<string> {
  if (depth > 16) return;
  if (typeof v === 'string') yield v;
  else if (Array.isArray(v)) for (const x of v) yield* strings(x, depth + 1);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) yield* strings(x, depth + 1);
}

/**
 * Scans the string values of one JSON value found at `base` in `raw`, locating each value by its JSON
 * encoding (exact when the file uses JSON.stringify-style escapes; otherwise falls back to the value start).
 */
function scanJsonValue(file: string, raw: string, base: number, value: unknown, reviewId: string, io: ScanIo, hooks: ScanHooks, report: Report, folder?: string): number {
  let cursor = base;
  const display = rel(io, file);
  for (const s of strings(value)) {
    if (s.length < 2) continue;
    const enc = JSON.stringify(s);
    const at = raw.indexOf(enc, cursor);
    const valueStart = at >= 0 ? at + 1 : base;
    if (at >= 0) cursor = at + enc.length;
    emit(io, report, judge(subjectOf(hooks, `${display}#${reviewId}`, s)), (o) => lineCol(raw, valueStart + (at >= 0 ? JSON.stringify(s.slice(0, o)).length - 2 : 0)), display, folder);
  }
  return cursor;
}

const entryId = (v: unknown, fallback: string): string => {
  const id = v && typeof v === 'object' && !Array.isArray(v) ? (v as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : fallback;
};

function scanJsonLines(file: string, raw: string, io: ScanIo, hooks: ScanHooks, report: Report, folder?: string): void {
  let offset = 0;
  raw.split('\n').forEach((line, i) => {
    const start = offset;
    offset += line.length + 1;
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      io.stderr(`scan: ${rel(io, file)}:${i + 1}: invalid JSON: ${(e as Error).message}\n`);
      report.bad = true;
      return;
    }
    scanJsonValue(file, raw, start, v, entryId(v, `L${i + 1}`), io, hooks, report, folder);
  });
}

function scanJsonDocument(file: string, raw: string, io: ScanIo, hooks: ScanHooks, report: Report, folder?: string): void {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (e) {
    io.stderr(`scan: ${rel(io, file)}: invalid JSON: ${(e as Error).message}\n`);
    report.bad = true;
    return;
  }
  // A memory store is usually an array of entries, or an object holding one; scan entry by entry so
  // review marks can name the entry.
  const list = Array.isArray(doc)
    ? doc
    : doc && typeof doc === 'object'
      ? Object.values(doc).find((v): v is unknown[] => Array.isArray(v))
      : undefined;
  if (list && (Array.isArray(doc) || Object.values(doc as object).filter(Array.isArray).length === 1)) {
    let cursor = 0;
    list.forEach((entry, i) => {
      cursor = scanJsonValue(file, raw, cursor, entry, entryId(entry, `${i}`), io, hooks, report, folder);
    });
    if (!Array.isArray(doc)) {
      const rest = Object.fromEntries(Object.entries(doc as object).filter(([, v]) => v !== list));
      scanJsonValue(file, raw, 0, rest, 'root', io, hooks, report, folder);
    }
  } else scanJsonValue(file, raw, 0, doc, 'root', io, hooks, report, folder);
}
