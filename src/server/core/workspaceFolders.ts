/**
 * The folders of a workspace and how a pin id names one. Shared by the server, the CLI and the extension host, so
 * all three turn paths into ids (and back) the same way (Node only: the webview never imports it).
 *
 * Ids: in a window with one folder an id is that folder's relative path, exactly as before multi-root support
 * (`.knowledge/notes/x.md`). With more than one folder an id starts with its folder's name:
 * `<folder name>/.knowledge/notes/x.md`. A folder's name is VS Code's `WorkspaceFolder.name` (a `.code-workspace`
 * entry's `name`, else the folder's base name), made safe for an id (no `/`, `\`, control characters or angle
 * brackets); two folders of one workspace that would share a name get a suffix, ` (2)`, ` (3)`…, in workspace
 * order (folders already named keep their names when another is added).
 *
 * An id without a folder name in a multi-folder workspace names the first folder: what the first folder's pins
 * were called before (one folder, or a multi-root window before multi-root support), so old sessions keep their
 * pins and their delivered signatures.
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { WorkspaceFolderRoot } from '../../shared/schemas';
import { ANGLE_LIKE_RE, LT_CONFUSABLES, GT_CONFUSABLES } from './threat/angleConfusables';

export type { WorkspaceFolderRoot };

/** A folder as a client names it (its name may be missing, unsafe or shared with another folder). */
export interface FolderSpec {
  name?: string | undefined;
  path: string;
}

const UNSAFE_NAME = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069${LT_CONFUSABLES.join('')}${GT_CONFUSABLES.join('')}/\\\\]`, 'gu');

// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const LINE_BREAK = /[\n\r\u000b\u000c\u0085\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** `:` and the characters NFKC reads as one (fullwidth, small form) and the ratio sign, a common look-alike. */
const COLON = /[:\uff1a\ufe55\ufe13\u2236\u02d0\ua789]/;

/**
 * Why a folder's display name (a `.code-workspace` entry's `name`, VS Code's `WorkspaceFolder.name`) is refused,
 * or undefined when it may be shown. Whoever commits the workspace file chooses it, and it starts every pin id of
 * the folder in what a model reads: a line break or a control character can start a line of its own, `:` a
 * `SYSTEM:` header, an angle bracket (or a look-alike of one) a closer. A refused name is never used: the folder
 * is named by its base name, and the person is told.
 */
export function folderNameProblem(raw: string): string | undefined {
  if (LINE_BREAK.test(raw)) return 'holds a line break';
  if (CONTROL.test(raw)) return 'holds a control character';
  if (COLON.test(raw.normalize('NFKC')) || COLON.test(raw)) return 'holds ":"';
  if (ANGLE_LIKE_RE.test(raw) || ANGLE_LIKE_RE.test(raw.normalize('NFKC'))) return 'holds an angle bracket or a look-alike of one';
  return undefined;
}

/** The folder's base name (the last segment of its path). */
export const baseNameOf = (path: string): string => path.split(/[\\/]/).filter(Boolean).pop() ?? '';

/** What a person is told about a refused folder name: the folder, why, and the name shown instead. */
export function refusedFolderNameNote(raw: string, path: string, problem: string): string {
  return `the folder name ${JSON.stringify(raw)} of ${path} ${problem}, so it is not used: the folder is named "${safeFolderName(undefined, path)}" (its base name)`;
}

/** A folder name made safe to start an id: no separators, control characters or angle brackets; never empty, `.` or `..`. A refused name ({@link folderNameProblem}) gives way to the base name. */
export function safeFolderName(raw: string | undefined, path: string): string {
  const base = baseNameOf(path);
  const name = (raw === undefined || folderNameProblem(raw) !== undefined ? '' : raw).replace(UNSAFE_NAME, '_').trim().slice(0, 100);
  const fallback = base.replace(UNSAFE_NAME, '_').trim().slice(0, 100);
  for (const candidate of [name, fallback]) if (candidate !== '' && candidate !== '.' && candidate !== '..') return candidate;
  return 'folder';
}

/**
 * Names for `specs`, in order. A folder in `keep` (path → name, the names given before) keeps its name; the
 * others take their own (safe) name, or that name with ` (2)`, ` (3)`… when another folder has it. The same
 * path given twice is one folder.
 */
export function assignFolderNames(specs: readonly FolderSpec[], keep: ReadonlyMap<string, string> = new Map()): WorkspaceFolderRoot[] {
  const out: WorkspaceFolderRoot[] = [];
  const used = new Set<string>();
  const seen = new Set<string>();
  const unique = specs.filter((s) => (seen.has(s.path) ? false : (seen.add(s.path), true)));
  // Kept names first, so a newcomer never takes the name of a folder that already has it.
  for (const s of unique) {
    const kept = keep.get(s.path);
    if (kept !== undefined && !used.has(kept)) used.add(kept);
  }
  for (const s of unique) {
    const kept = keep.get(s.path);
    if (kept !== undefined && out.every((o) => o.name !== kept)) {
      out.push({ name: kept, path: s.path });
      continue;
    }
    const base = safeFolderName(s.name, s.path);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base} (${n})`;
    used.add(name);
    out.push({ name, path: s.path });
  }
  return out;
}

/** `abs` relative to `root` with forward slashes, or undefined when it is not inside (lexically). */
export function relativeInside(root: string, abs: string): string | undefined {
  const rel = relative(root, abs);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** The folder that holds `abs` (the innermost, when folders nest) and the path inside it; lexical, no links resolved. */
export function folderOfPath<R extends WorkspaceFolderRoot>(folders: readonly R[], abs: string): { folder: R; rel: string } | undefined {
  let best: { folder: R; rel: string } | undefined;
  for (const folder of folders) {
    const rel = relativeInside(folder.path, abs);
    if (rel !== undefined && (!best || folder.path.length > best.folder.path.length)) best = { folder, rel };
  }
  return best;
}

/** The id of `rel` inside `folder`: prefixed with the folder's name when the workspace has more than one folder. */
export function idInFolder(folders: readonly WorkspaceFolderRoot[], folder: WorkspaceFolderRoot, rel: string): string {
  return folders.length > 1 ? `${folder.name}/${rel}` : rel;
}

/** The id of an absolute path, or undefined when no folder holds it (lexically). */
export function idOfPath(folders: readonly WorkspaceFolderRoot[], abs: string): string | undefined {
  const hit = folderOfPath(folders, abs);
  return hit ? idInFolder(folders, hit.folder, hit.rel) : undefined;
}

/**
 * The folder a workspace-relative id names and the path inside it. With several folders: the folder whose name
 * starts the id, else the first folder (an id from before multi-root support). With one folder: that folder; an id
 * that starts with the folder's own name (from when the workspace had more folders) names the rest of it, unless
 * `exists(folder, firstSegment)` says the folder really has an entry of that name.
 */
export function locateId<R extends WorkspaceFolderRoot>(folders: readonly R[], id: string, exists?: (folder: R, entry: string) => boolean): { folder: R; rel: string } | undefined {
  const first = folders[0];
  if (!first) return undefined;
  const slash = id.indexOf('/');
  const head = slash > 0 ? id.slice(0, slash) : undefined;
  if (folders.length > 1) {
    const named = head !== undefined ? folders.find((f) => f.name === head) : undefined;
    return named ? { folder: named, rel: id.slice(slash + 1) } : { folder: first, rel: id };
  }
  if (head !== undefined && head === first.name && exists && !exists(first, head)) return { folder: first, rel: id.slice(slash + 1) };
  return { folder: first, rel: id };
}
