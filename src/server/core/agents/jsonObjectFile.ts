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
import { assertConfined, readNoFollow } from '../store/confinedPath';
import { MalformedDocumentError, parseJsonObject, serializeJsonDocument } from '../store/jsonDocument';

export type JsonObjectFileProblem = 'not-json' | 'not-an-object';

export interface JsonObjectFileEdit {
  path: string;
  /** False when the file already said this (it was not rewritten). */
  changed: boolean;
  /** True when the file did not exist before. */
  created: boolean;
}

/**
 * The object a JSON file holds (blank: an empty one), or undefined when there is no file; a link or a path leaving
 * `root` throws `LinkedPathError`, and a file that is not a JSON object `MalformedDocumentError` (nothing is changed).
 */
export async function readJsonObjectFile(path: string, root: string): Promise<Record<string, unknown> | undefined> {
  await assertConfined(root, path);
  const text = await readNoFollow(path);
  return text === undefined ? undefined : text.trim() === '' ? {} : parseJsonObject(text);
}

/**
 * `edit` mutates the object; it answers `false` when nothing needs writing (the file keeps its formatting).
 * `fail` makes the error for a file that cannot be edited; `hint` ends the message about invalid JSON.
 * `onlyIfPresent` (an edit that only removes): a missing file is left missing — nothing is created, not even its
 * folder — and a root that is not an object holds nothing to remove; both answer unchanged.
 */
export async function editJsonObjectFile(
  path: string,
  edit: (doc: Record<string, unknown>) => boolean | void,
  options: { root: string; hint: string; fail?: (reason: JsonObjectFileProblem, message: string) => Error; onlyIfPresent?: boolean },
): Promise<JsonObjectFileEdit> {
  const fail = options.fail ?? ((_reason: JsonObjectFileProblem, message: string) => new Error(message));
  const confineTo = options.root;
  const unchanged = { path, changed: false, created: false };
  if (options.onlyIfPresent) {
    await assertConfined(confineTo, path);
    // Checked before the lock: taking it would create the folder of a file that is not there.
    if ((await readNoFollow(path)) === undefined) return unchanged;
  }
  return withFileLock(path, async () => {
    const before = await readNoFollow(path);
    if (before === undefined && options.onlyIfPresent) return unchanged;
    let doc: Record<string, unknown> = {};
    if (before !== undefined && before.trim() !== '') {
      try {
        doc = parseJsonObject(before);
      } catch (err) {
        if (!MalformedDocumentError.is(err)) throw err;
        if (err.problem === 'not-json') throw fail('not-json', `${path} is ${err.message}; it was left as it is. ${options.hint}`);
        if (options.onlyIfPresent) return unchanged;
        throw fail('not-an-object', `${path} does not hold a JSON object; it was left as it is.`);
      }
    }
    if (edit(doc) === false) return unchanged;
    const after = serializeJsonDocument(doc);
    if (after === before) return unchanged;
    await writeFileAtomic(path, after, { keepMode: true, mode: 0o644, confineTo });
    return { path, changed: true, created: before === undefined };
  }, { confineTo });
}
