/**
 * What may be pinned: any text file inside the workspace, except secret files. Paths are resolved through
 * symlinks first, so a link inside the workspace pointing outside it (or at a secret) is refused too.
 * Pure Node: the CLI and tests use it directly.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pinIdProblem } from '../shared/schemas';

export type PinCheck = { ok: true; id: string } | { ok: false; reason: string };

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

function realpathOrSelf(p: string): string {
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
