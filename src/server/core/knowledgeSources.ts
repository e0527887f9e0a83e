/**
 * The one loader of the core's sources and the one path for "files changed on disk", used by the language server,
 * the MCP server and the CLI (stats, the hook) alike:
 * - `loadSources`: the sessions store and every folder's notes and reviews, each part a process needs (`LoadScope`);
 *   a source that fails is reported and left out, it never blanks the others.
 * - `followChangedFiles`: paths changed on disk (the client's watcher, or the MCP server's own watch) routed to the
 *   folder that holds each: notes and plans re-read (a folder that came or went rescanned), a folder's `reviews.json`
 *   reloaded, and EVERY folder's `memory.jsonl` reloaded as project memory.
 * No `vscode`, no connection: callers publish what changed their own way.
 */
import { join } from 'node:path';
import type { StoreProblem } from '../../shared/schemas';
import type { MemoryService } from './memory/memoryService';
import type { SessionStore } from './store/sessionStore';
import type { KnowledgeFolder, WorkspaceRoots } from './workspaceRoots';

/**
 * What a process loads: `all` (the language server, `stats`: sessions, notes, reviews, every item judged), `agents`
 * (the hook: sessions and reviews; it reads only the files it sends), `knowledge` (the MCP server: notes and reviews,
 * every item judged; it records no sessions).
 */
export type LoadScope = 'all' | 'agents' | 'knowledge';

/** What of the core the loader and the files-changed path read. */
export interface KnowledgeSources {
  readonly folders: WorkspaceRoots;
  readonly sessions: SessionStore;
  readonly memory: MemoryService | null;
  /** Judges the given items again (all when omitted). */
  refreshFlags(ids?: readonly string[]): Promise<unknown>;
  /** Every item's id as listed now. */
  listItems(): readonly { id: string }[];
}

const messageOf = (reason: unknown): string => (reason as Error)?.message ?? String(reason);

/** One folder's notes (unless `notes` is false) and reviews; each that fails is reported and left out. */
export async function loadFolder(folder: KnowledgeFolder, problem: (p: StoreProblem) => void, notes = true): Promise<void> {
  const parts: [string, () => Promise<unknown>][] = [...(notes ? [['notes', () => folder.notes.rebuild()] as [string, () => Promise<unknown>]] : []), ['reviews', () => folder.reviews.load()]];
  const results = await Promise.allSettled(parts.map(([, run]) => run()));
  results.forEach((r, i) => {
    const name = parts[i]![0];
    if (r.status === 'rejected') problem({ source: name, path: folder.path, message: `Could not load ${name} of ${folder.path}: ${messageOf(r.reason)}`, at: new Date().toISOString() });
  });
  if (notes) for (const p of folder.notes.problems) problem(p);
}

/** Loads what `scope` needs (see `LoadScope`), then judges every item unless the scope is `agents`. */
export async function loadSources(core: KnowledgeSources, scope: LoadScope, problem: (p: StoreProblem) => void): Promise<void> {
  const sessions = scope === 'knowledge' ? undefined : core.sessions.open();
  const [opened] = await Promise.allSettled([sessions, ...core.folders.all.map((f) => loadFolder(f, problem, scope !== 'agents'))]);
  if (opened.status === 'rejected') {
    problem({ source: 'sessions', path: core.sessions.indexPath, message: `Could not load sessions: ${messageOf(opened.reason)}`, at: new Date().toISOString() });
  }
  if (scope !== 'agents') await core.refreshFlags();
}

/** What `followChangedFiles` found. */
export interface ChangedSources {
  /** Items whose text changed, or every item when a `reviews.json` changed (each must be judged again). */
  ids: string[];
  /** A folder's `reviews.json` changed: every item is to be judged again. */
  reviews: boolean;
  /** A folder's `memory.jsonl` changed: project memory was read and judged again. */
  memory: boolean;
}

/** Files a folder's `.knowledge/` holds that are not notes or plans: a change to one is never a rescan. */
const OWN_FILES = new Set(['.knowledge/reviews.json', '.knowledge/memory.jsonl', '.knowledge/pins.json']);

/**
 * Files changed on disk (absolute paths, maybe deleted; a folder's path for a folder that came or went): each routed
 * to the workspace folder that holds it. `log` hears what could not be reloaded.
 */
export async function followChangedFiles(core: KnowledgeSources, changedPaths: Iterable<string>, log: (message: string) => void): Promise<ChangedSources> {
  const out: ChangedSources = { ids: [], reviews: false, memory: false };
  if (core.folders.all.length === 0) return out;
  const paths = [...new Set(changedPaths)].filter((p) => !p.endsWith('sessions.json'));
  for (const path of paths) {
    const at = core.folders.ofPath(path);
    if (at && (await at.folder.notes.refreshPath(path))) out.ids.push(core.folders.idOf(at.folder, at.rel));
  }
  // A folder rename or delete arrives as one event for the folder: rescan the folders it touched to be sure.
  // (Only the folder's own .knowledge/: a watcher may also see nested ones, which are not indexed.)
  const touched = new Set(
    paths
      .filter((p) => !p.endsWith('.md'))
      .map((p) => core.folders.ofPath(p))
      .filter((at) => at !== undefined && !OWN_FILES.has(at.rel) && (at.rel === '.knowledge' || at.rel.startsWith('.knowledge/')))
      .map((at) => at!.folder),
  );
  for (const folder of touched) for (const rel of await folder.notes.rebuild()) out.ids.push(core.folders.idOf(folder, rel));
  // Any folder's memory.jsonl changed (a pull, a teammate's entries, another window): project memory is every
  // folder's, so it is read and judged again whichever folder it was.
  if (core.memory && core.folders.all.some((f) => paths.includes(join(f.path, '.knowledge', 'memory.jsonl')))) {
    out.memory = true;
    try {
      await core.memory.reload('project');
    } catch (err) {
      log(`Could not reload project memory: ${messageOf(err)}`);
    }
  }
  // A folder's reviews.json changed (a pull, another window): reload it; every item is judged again.
  const reviewed = core.folders.all.filter((f) => paths.includes(join(f.path, '.knowledge', 'reviews.json')));
  if (reviewed.length > 0) {
    for (const f of reviewed) await f.reviews.load();
    out.reviews = true;
    out.ids.push(...core.listItems().map((i) => i.id));
  }
  out.ids = [...new Set(out.ids)];
  return out;
}
