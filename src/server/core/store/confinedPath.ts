/**
 * Writers never follow links. Every file this tool writes inside a workspace folder — for another tool
 * (`.claude/settings.local.json`, `.mcp.json`, the Copilot instruction file) or for itself (`.knowledge/pins.json`,
 * `reviews.json`, `memory.jsonl`, new notes) — is checked here first, because a repository chooses its own links:
 *
 * - the target and every folder between the workspace folder and it must not be a symbolic link (a junction on
 *   Windows reads as one too), and the real path of the deepest part that exists must stay inside the folder;
 * - a file about to be rewritten is read through a handle opened with `O_NOFOLLOW` where the platform has it, so a
 *   link swapped in after the check is refused rather than read (outside bytes never reach a repository file);
 * - `writeFileAtomic` creates its temp file with `O_EXCL` and renames over the target, which replaces a link itself
 *   and never writes through it; appends open with `O_NOFOLLOW`.
 *
 * The workspace folder itself may be reached through a link (a person may open a folder that way): only what lies
 * under it is judged. Pure Node, no `vscode`.
 */
import { promises as fs, constants as fsConstants } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/** `O_NOFOLLOW` where the platform has it (not on Windows, where the lstat walk is the guard). */
export const O_NOFOLLOW: number = (fsConstants as { O_NOFOLLOW?: number }).O_NOFOLLOW ?? 0;

/** Why a write was refused: `link` — a part of the path is a link; `outside` — the path (or its real path) leaves the folder. */
export class LinkedPathError extends Error {
  readonly reason = 'linked-path' as const;
  constructor(
    /** The file we were asked to write. */
    readonly path: string,
    /** The part of it that is a link or that leaves the folder. */
    readonly at: string,
    readonly kind: 'link' | 'outside',
    detail?: string,
  ) {
    super(
      kind === 'link'
        ? `Refused to write ${path}: ${at} is a symbolic link, and Session Knowledge never writes through a link (a repository can commit one that points outside the workspace). Nothing was written. Replace the link with a real ${at === path ? 'file' : 'folder'}, then try again.`
        : `Refused to write ${path}: ${detail ?? `${at} is outside the workspace folder`}. Nothing was written.`,
    );
  }
  static is(err: unknown): err is LinkedPathError {
    return err instanceof Error && (err as LinkedPathError).reason === 'linked-path';
  }
}

const isInside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
};

const missing = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/**
 * Throws `LinkedPathError` unless `target` lies under `root` with no link at the target or at any folder between
 * them, and the real path of what exists of it stays under the real `root`. Parts that do not exist yet are fine
 * (they will be created as plain folders).
 */
export async function assertConfined(root: string, target: string): Promise<void> {
  const rel = relative(root, target);
  if (rel === '' || isAbsolute(rel) || rel.split(sep)[0] === '..') throw new LinkedPathError(target, target, 'outside', `${target} is not inside the workspace folder ${root}`);
  let at = root;
  let deepest = root;
  for (const part of rel.split(sep)) {
    at = join(at, part);
    try {
      const stat = await fs.lstat(at);
      if (stat.isSymbolicLink()) throw new LinkedPathError(target, at, 'link');
      deepest = at;
    } catch (err) {
      if (missing(err)) break;
      throw err;
    }
  }
  let realRoot: string;
  let real: string;
  try {
    realRoot = await fs.realpath(root);
    real = await fs.realpath(deepest);
  } catch (err) {
    if (missing(err)) return; // the folder went away meanwhile: the write fails on its own
    throw err;
  }
  if (!isInside(realRoot, real)) throw new LinkedPathError(target, deepest, 'outside', `${deepest} resolves to ${real}, outside the workspace folder ${root}`);
}

/**
 * Reads a file that is about to be rewritten without following a link at its name (`O_NOFOLLOW`): undefined when it
 * does not exist, `LinkedPathError` when it is a link.
 */
export async function readNoFollow(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await fs.open(path, fsConstants.O_RDONLY | O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw new LinkedPathError(path, path, 'link');
    throw err;
  }
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
