/**
 * What may be pinned: any text file inside the workspace, except secret files. Paths are resolved through
 * symlinks first, so a link inside the workspace pointing outside it (or at a secret) is refused too.
 * Pure Node: the CLI and tests use it directly.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pinIdProblem } from '../../shared/pinIdSchemas';
import { folderOfPath, idInFolder, locateId, type WorkspaceFolderRoot } from './workspaceFolders';

export type PinCheck = { ok: true; id: string } | { ok: false; reason: string };

/** A pin checked against every folder of a workspace: also which folder holds it and the path inside that folder. */
export type FolderPinCheck<R extends WorkspaceFolderRoot = WorkspaceFolderRoot> = { ok: true; id: string; folder: R; rel: string; path: string } | { ok: false; reason: string };

/**
 * Secret files by their name (matched lower-cased, so `.ENV` on a case-insensitive file system is `.env`). The
 * templates people commit on purpose stay pinnable: `.env.example`, `.env.sample`, `.env.template`, `id_rsa.pub`,
 * `credentials.md`.
 */
const SECRET_BASENAMES = [
  /\.env$/, // .env, production.env
  /^\.env\.(?!example$|sample$|template$).+$/, // .env.local, .env.production
  /^\.envrc$/, // direnv
  /^id_[^.]+$/, // ssh keys: id_rsa, id_ed25519, id_ecdsa_sk, id_github (never id_rsa.pub)
  /^id_(rsa|dsa|ecdsa|ed25519)(?!.*\.pub$).*$/, // id_rsa.old, id_ed25519.bak
  /\.(pem|key|p12|pfx|keystore|jks|ppk)$/,
  /^\.npmrc$/,
  /^\.netrc$/,
  /^_netrc$/,
  /^\.pypirc$/,
  /^\.git-credentials$/,
  /^credentials.*\.json$/, // credentials.json, credentials-prod.json (Google service accounts, gcloud)
  /\.tfstate/, // terraform.tfstate, terraform.tfstate.backup
  /^\.pgpass$/,
  /^\.vault-token$/,
  /^\.htpasswd$/,
  /^\.s3cfg$/,
  /^\.boto$/,
  // Found by a security pass after the first list (each a common home of tokens or keys):
  /^\.dev\.vars$/, // Cloudflare Workers
  /^\.?secrets?(\.(json|ya?ml|toml|env|ini|conf|cfg|properties|txt))?$/, // secrets.json, secrets.yaml, secrets.toml, .secrets, secret.env
  /\.tfvars(\.json)?$/, // terraform.tfvars, prod.auto.tfvars
  /^\.terraformrc$/,
  /^service[-_]?account.*\.json$/, // service-account.json, serviceAccountKey.json
  /[-_]key\.json$/, // gcp-key.json, sa_key.json
  /^auth\.json$/, // composer, various CLIs
  /^kubeconfig/, // kubeconfig, kubeconfig.yaml
  /^\.yarnrc\.yml$/, // npmAuthToken
];

/** Secret files by their folder and name (lower-cased, forward slashes, matched at the end of the path). */
const SECRET_TAILS = [
  /(^|\/)\.aws\/credentials$/,
  /(^|\/)\.docker\/config\.json$/,
  /(^|\/)\.kube\/config/, // config, config.bak
  /(^|\/)\.cargo\/credentials(\.toml)?$/,
  /(^|\/)\.gem\/credentials$/,
  /(^|\/)\.config\/gh\/hosts\.yml$/,
  /(^|\/)\.streamlit\/secrets\.toml$/,
];

/** Folders whose every file is secret: `.ssh/`, and a `.git/` (its config holds remote URLs with tokens). */
const SECRET_FOLDERS = new Set(['.ssh', '.git']);

/**
 * The name a file system may really open for `part`: Windows drops trailing dots and spaces (`.envrc.` is `.envrc`)
 * and reads `name:stream` as the file `name`.
 */
function openedName(part: string): string {
  if (part === '.' || part === '..') return part;
  const stream = part.indexOf(':');
  return (stream > 0 ? part.slice(0, stream) : part).replace(/[. ]+$/, '');
}

function isSecretForm(parts: readonly string[]): boolean {
  const base = parts[parts.length - 1] ?? '';
  if (parts.slice(0, -1).some((p) => SECRET_FOLDERS.has(p)) || SECRET_FOLDERS.has(base)) return true;
  const rel = parts.join('/');
  if (SECRET_TAILS.some((re) => re.test(rel))) return true;
  return SECRET_BASENAMES.some((re) => re.test(base));
}

/**
 * True for files that hold secrets and must never be pinned or remembered. `rel` uses forward slashes (a
 * backslash counts as one too). Judged as written and as a file system would open it (lower case, trailing dots and
 * spaces dropped, a `:stream` suffix cut): a secret in either reading is a secret.
 */
export function isSecretPath(rel: string): boolean {
  const parts = rel.toLowerCase().split(/[\\/]+/).filter((p) => p !== '');
  return isSecretForm(parts) || isSecretForm(parts.map(openedName));
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
