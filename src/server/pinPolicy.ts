/**
 * What may be pinned: any text file inside the workspace, except secret files. Paths are resolved through
 * symlinks first, so a link inside the workspace pointing outside it (or at a secret) is refused too.
 * Pure Node: the CLI and tests use it directly.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pinIdProblem } from '../shared/schemas';
import { folderOfPath, idInFolder, locateId, type WorkspaceFolderRoot } from '../shared/workspaceFolders';

export type PinCheck = { ok: true; id: string } | { ok: false; reason: string };

/** A pin checked against every folder of a workspace: also which folder holds it and the path inside that folder. */
export type FolderPinCheck<R extends WorkspaceFolderRoot = WorkspaceFolderRoot> = { ok: true; id: string; folder: R; rel: string; path: string } | { ok: false; reason: string };

const SECRET_BASENAMES = [
  /^\.env$/i,
  /^\.env\.(?!example$|sample$|template$|dist$).+$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)(?!\.pub$).*$/i,
  /\.(pem|key|p12|pfx|keystore|jks)$/i,
  /^\.npmrc$/i,
  /^\.netrc$/i,
  /^\.pypirc$/i,
  /^\.git-credentials$/i,
];

/** True for files that hold secrets and must never be pinned or remembered. `rel` uses forward slashes. */
export function isSecretPath(rel: string): boolean {
  const parts = rel.split('/');
  const base = parts[parts.length - 1] ?? '';
  if (parts.includes('.ssh')) return true;
  if (/(^|\/)\.aws\/credentials$/i.test(rel)) return true;
  if (/(^|\/)\.docker\/config\.json$/i.test(rel)) return true;
  return SECRET_BASENAMES.some((re) => re.test(base));
}

export function realpathOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p; // a file that does not exist (yet) is checked by its own path
  }
}

/**
 * Checks a workspace-relative id or an absolute path; answers the normalised id or a reason to refuse. An id
 * with control characters, line breaks or angle brackets, or over the length limit, is refused first (the
 * same rule as the protocol's `PinIdSchema`), and so is a normalised id that would break it.
 */
export function checkPinnable(workspaceFolder: string, idOrPath: string): PinCheck {
  const problem = pinIdProblem(idOrPath);
  if (problem) return { ok: false, reason: problem };
  const root = realpathOrSelf(workspaceFolder);
  const absolute = isAbsolute(idOrPath) ? idOrPath : resolve(workspaceFolder, idOrPath);
  const literalRel = relative(workspaceFolder, absolute).split(sep).join('/');
  const real = realpathOrSelf(absolute);
  const rel = relative(root, real).split(sep).join('/');
  if (rel === '' || rel.startsWith('../') || rel === '..' || isAbsolute(rel)) {
    return { ok: false, reason: `${idOrPath} is outside the workspace (after resolving links); only workspace files can be pinned` };
  }
  if (isSecretPath(rel) || isSecretPath(literalRel)) {
    return { ok: false, reason: `${idOrPath} looks like a secret file; secrets are never pinned` };
  }
  const id = literalRel.startsWith('../') ? rel : literalRel;
  const idProblem = pinIdProblem(id);
  if (idProblem) return { ok: false, reason: idProblem };
  return { ok: true, id };
}

/** Whether `folder` has an entry `name` (a file, folder or link): what tells an id's folder name from a real sub-folder. */
export function folderHasEntry(folder: WorkspaceFolderRoot, name: string): boolean {
  try {
    lstatSync(join(folder.path, name));
    return true;
  } catch {
    return false;
  }
}

/**
 * `checkPinnable` for a workspace of one or more folders. A file is inside the workspace when it is inside one of
 * its folders after resolving links: a link in folder A to a file in folder B is inside (its id stays A's path, as
 * the person named it); a link to anything outside every folder is outside. With one folder this is exactly
 * `checkPinnable` (the same ids as ever). Answers the folder and the path inside it too.
 */
export function checkPinnableInFolders<R extends WorkspaceFolderRoot>(folders: readonly R[], idOrPath: string): FolderPinCheck<R> {
  const problem = pinIdProblem(idOrPath);
  if (problem) return { ok: false, reason: problem };
  const at = isAbsolute(idOrPath) ? undefined : locateId(folders, idOrPath, folderHasEntry);
  if (!isAbsolute(idOrPath) && !at) return { ok: false, reason: 'no workspace folder is open' };
  if (folders.length === 1) {
    const only = folders[0]!;
    const check = checkPinnable(only.path, at ? at.rel : idOrPath);
    return check.ok ? { ok: true, id: check.id, folder: only, rel: check.id, path: join(only.path, check.id) } : check;
  }
  if (folders.length === 0) return { ok: false, reason: 'no workspace folder is open' };
  const absolute = at ? resolve(at.folder.path, at.rel) : idOrPath;
  const real = realpathOrSelf(absolute);
  const realFolders = folders.map((f) => ({ name: f.name, path: (f as { realPath?: string }).realPath ?? realpathOrSelf(f.path), folder: f }));
  const inside = folderOfPath(realFolders, real);
  if (!inside) return { ok: false, reason: `${idOrPath} is outside the workspace folders (after resolving links); only files inside one of them can be pinned` };
  const literal = folderOfPath(folders, absolute);
  if (isSecretPath(inside.rel) || (literal && isSecretPath(literal.rel))) {
    return { ok: false, reason: `${idOrPath} looks like a secret file; secrets are never pinned` };
  }
  const folder = literal ? literal.folder : inside.folder.folder;
  const rel = literal ? literal.rel : inside.rel;
  const id = idInFolder(folders, folder, rel);
  const idProblem = pinIdProblem(id);
  if (idProblem) return { ok: false, reason: idProblem };
  return { ok: true, id, folder, rel, path: join(folder.path, rel) };
}
