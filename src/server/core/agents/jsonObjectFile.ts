/**
 * Edits a JSON settings file that belongs to another tool (Claude Code's `.claude/settings.local.json`, the MCP
 * configuration `.mcp.json`): under the file's lock, read it (missing or blank: an empty object), refuse a file that
 * is not valid JSON or whose root is not an object — leaving it byte for byte — let `edit` change the object, and
 * write it atomically, keeping the file's mode, only when the text changed. The file lies in a workspace folder
 * (`root`), which a repository shapes: a link at the file or at any folder above it up to `root`, or a path whose
 * real path leaves it, is refused (`LinkedPathError`) before anything is read, locked or created, and the file is
 * read with `O_NOFOLLOW` (see `confinedPath.ts`). Pure Node, no `vscode`.
 */
import { withFileLock, writeFileAtomic } from '../store/atomicFile';
import { readNoFollow } from '../store/confinedPath';

export type JsonObjectFileProblem = 'not-json' | 'not-an-object';

export interface JsonObjectFileEdit {
  path: string;
  /** False when the file already said this (it was not rewritten). */
  changed: boolean;
  /** True when the file did not exist before. */
  created: boolean;
}

/**
 * `edit` mutates the object; it answers `false` when nothing needs writing (the file keeps its formatting).
 * `fail` makes the error for a file that cannot be edited; `hint` ends the message about invalid JSON.
 */
export async function editJsonObjectFile(
  path: string,
  edit: (doc: Record<string, unknown>) => boolean | void,
  options: { root: string; hint: string; fail?: (reason: JsonObjectFileProblem, message: string) => Error },
): Promise<JsonObjectFileEdit> {
  const fail = options.fail ?? ((_reason: JsonObjectFileProblem, message: string) => new Error(message));
  const confineTo = options.root;
  return withFileLock(path, async () => {
    const before = await readNoFollow(path);
    let doc: Record<string, unknown> = {};
    if (before !== undefined && before.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(before);
      } catch (err) {
        throw fail('not-json', `${path} is not valid JSON (${(err as Error).message}); it was left as it is. ${options.hint}`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw fail('not-an-object', `${path} does not hold a JSON object; it was left as it is.`);
      doc = parsed as Record<string, unknown>;
    }
    if (edit(doc) === false) return { path, changed: false, created: false };
    const after = `${JSON.stringify(doc, null, 2)}\n`;
    if (after === before) return { path, changed: false, created: false };
    await writeFileAtomic(path, after, { keepMode: true, mode: 0o644, confineTo });
    return { path, changed: true, created: before === undefined };
  }, { confineTo });
}
