/**
 * The workspace a command works on, from `--workspace` values: folders, or `.code-workspace` files (VS Code's
 * multi-root workspaces). A `.code-workspace` file is JSONC — comments and trailing commas — with
 * `folders: [{ "path": "…", "name"?: "…" } | { "uri": "file:///…", "name"?: "…" }]`, each `path` relative to the
 * file. Pure Node and dependency-free: the `scan` bundle loads it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { folderNameProblem, refusedFolderNameNote } from '../server/core/workspaceFolders';

/** A folder of the workspace: its path, and the name VS Code shows for it when the workspace file gives one. */
export interface WorkspaceFolderArg {
  name?: string;
  path: string;
}

export class WorkspaceArgError extends Error {}

/**
 * JSONC → JSON: removes `//` and `/* *\/` comments and trailing commas, never inside strings (a `//` in a path or
 * a URL stays). Line breaks inside block comments are kept, so JSON.parse's positions still name the line.
 */
export function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      // A string, escapes included, copied as it is.
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === ',') {
      // A trailing comma: only whitespace and comments before the closing bracket.
      let j = i + 1;
      for (;;) {
        while (j < n && /\s/.test(text[j]!)) j++;
        if (text[j] === '/' && text[j + 1] === '/') while (j < n && text[j] !== '\n') j++;
        else if (text[j] === '/' && text[j + 1] === '*') {
          const end = text.indexOf('*/', j + 2);
          j = end < 0 ? n : end + 2;
        } else break;
      }
      if (text[j] !== '}' && text[j] !== ']') out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The folders of a `.code-workspace` file's text, each path made absolute against the file's own folder. */
export function parseCodeWorkspace(text: string, file: string): { folders: WorkspaceFolderArg[]; skipped: string[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(stripJsonc(text.replace(/^\uFEFF/, '')));
  } catch (err) {
    throw new WorkspaceArgError(`${file} is not a valid .code-workspace file: ${(err as Error).message}`);
  }
  const folders = (doc as { folders?: unknown } | null)?.folders;
  if (!doc || typeof doc !== 'object' || !Array.isArray(folders)) throw new WorkspaceArgError(`${file} has no "folders" list`);
  const base = dirname(file);
  const out: WorkspaceFolderArg[] = [];
  const skipped: string[] = [];
  folders.forEach((entry: unknown, i) => {
    const e = entry as { path?: unknown; uri?: unknown; name?: unknown } | null;
    const name = typeof e?.name === 'string' && e.name.trim() !== '' ? e.name : undefined;
    let path: string | undefined;
    if (typeof e?.path === 'string' && e.path !== '') path = isAbsolute(e.path) ? e.path : resolve(base, e.path);
    else if (typeof e?.uri === 'string' && e.uri.startsWith('file:')) {
      try {
        path = fileURLToPath(e.uri);
      } catch {
        path = undefined;
      }
    }
    if (path === undefined) skipped.push(`folders[${i}]: ${typeof e?.uri === 'string' ? `${e.uri} is not on this disk` : 'no path'}`);
    else out.push({ ...(name !== undefined ? { name } : {}), path: resolve(path) });
  });
  return { folders: out, skipped };
}

/** True for a `--workspace` value that names a workspace file rather than a folder. */
export function isWorkspaceFile(value: string): boolean {
  return value.endsWith('.code-workspace');
}

/**
 * The folders `--workspace` values name, in order: each a folder, or a `.code-workspace` file's folders. A
 * `--workspace` folder that does not exist is an error; so is a workspace file that cannot be read or parsed. A
 * workspace file's folder that is not on this disk (missing, remote) is left out, as VS Code does, and said in `notes`.
 * A folder `name` that may not be shown ({@link folderNameProblem}: a line break, a control character, `:`, an angle
 * bracket or a look-alike) is dropped, so the folder goes by its base name, and said in `notes` and `refusedNames`.
 */
export function workspaceFoldersOf(values: readonly string[], cwd: string): { folders: WorkspaceFolderArg[]; notes: string[]; refusedNames: string[] } {
  const folders: WorkspaceFolderArg[] = [];
  const notes: string[] = [];
  /** The notes about refused folder names (also in `notes`): said even where other notes are not. */
  const refusedNames: string[] = [];
  const isFolder = (p: string) => existsSync(p) && statSync(p).isDirectory();
  for (const value of values) {
    const abs = resolve(cwd, value);
    if (isWorkspaceFile(value)) {
      let text: string;
      try {
        text = readFileSync(abs, 'utf8');
      } catch (err) {
        throw new WorkspaceArgError(`cannot read ${abs}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      const parsed = parseCodeWorkspace(text, abs);
      notes.push(...parsed.skipped.map((s) => `${abs}: ${s} (left out)`));
      // As VS Code does, a folder that is not on this disk is left out (and said), the others open.
      for (const f of parsed.folders) {
        if (!isFolder(f.path)) {
          notes.push(`${abs}: ${f.path} is not a folder (left out)`);
          continue;
        }
        // A name that may not be shown (a line break, `:`, a bracket look-alike) is dropped: the base name stands in.
        const problem = f.name !== undefined ? folderNameProblem(f.name) : undefined;
        if (problem !== undefined) {
          const note = `${abs}: ${refusedFolderNameNote(f.name!, f.path, problem)}`;
          notes.push(note);
          refusedNames.push(note);
          folders.push({ path: f.path });
        } else folders.push(f);
      }
    } else if (!isFolder(abs)) throw new WorkspaceArgError(`--workspace ${abs} is not a folder`);
    else folders.push({ path: abs });
  }
  const seen = new Set<string>();
  return { folders: folders.filter((f) => (seen.has(f.path) ? false : (seen.add(f.path), true))), notes, refusedNames };
}
