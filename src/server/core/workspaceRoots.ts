/**
 * Every folder of the workspace and what each one owns: its note/plan index, its reviews (`.knowledge/reviews.json`)
 * and its agent pins (`.knowledge/pins.json`). Each folder's files keep folder-relative ids on disk, so they travel
 * with that folder's repository and mean the same when it is opened alone; the workspace's ids (prefixed with the
 * folder's name when there is more than one folder, see `src/server/core/workspaceFolders.ts`) exist only in memory and
 * in the sessions store. Folders come and go while the server runs (`set`); a folder keeps its name and its parts.
 * A folder without `.knowledge/` costs two failed directory reads when indexed, nothing else. Pure Node.
 */
import type { StoreProblem } from '../../shared/schemas';
import { assignFolderNames, folderNameProblem, folderOfPath, idInFolder, locateId, refusedFolderNameNote, type FolderSpec, type WorkspaceFolderRoot } from './workspaceFolders';
import { AgentPinsStore } from './agents/agentPins';
import { NoteIndex } from './notes/noteIndex';
import { RevisionReader } from './notes/revisionReader';
import { existsSync } from 'node:fs';
import { checkPinnableInFolders, folderHasEntry, realpathOrSelf, type FolderPinCheck } from './pinPolicy';
import { ReviewStore } from './review/reviewStore';

/** One folder of the workspace and its parts. */
export class KnowledgeFolder implements WorkspaceFolderRoot {
  readonly notes: NoteIndex;
  readonly reviews: ReviewStore;
  readonly agentPins: AgentPinsStore;

  private resolved: string | undefined;

  constructor(
    readonly name: string,
    readonly path: string,
    onProblem: (p: StoreProblem) => void,
    reader: RevisionReader,
  ) {
    this.notes = new NoteIndex(path, reader);
    this.reviews = new ReviewStore(path, onProblem);
    this.agentPins = new AgentPinsStore(path, onProblem);
  }

  /** The folder's path after resolving links, once it exists (the pin policy compares real paths). */
  get realPath(): string {
    if (this.resolved !== undefined) return this.resolved;
    const real = realpathOrSelf(this.path);
    if (real !== this.path || existsSync(this.path)) this.resolved = real;
    return real;
  }
}

export class WorkspaceRoots {
  /** The one reader of knowledge files for every folder: the note index, judgement and the block share it. */
  readonly reader = new RevisionReader();
  private folders: KnowledgeFolder[] = [];
  /** Refused folder names already told (path and name). */
  private readonly refusedNames = new Set<string>();

  constructor(
    specs: readonly FolderSpec[],
    private readonly onProblem: (p: StoreProblem) => void,
  ) {
    this.set(specs);
  }

  /** Every folder, in workspace order. */
  get all(): readonly KnowledgeFolder[] {
    return this.folders;
  }

  /** The first folder: the one ids without a folder name belong to. */
  get primary(): KnowledgeFolder | undefined {
    return this.folders[0];
  }

  /** More than one folder: ids carry their folder's name. */
  get multi(): boolean {
    return this.folders.length > 1;
  }

  byName(name: string): KnowledgeFolder | undefined {
    return this.folders.find((f) => f.name === name);
  }

  /** The workspace id of `rel` inside `folder`. */
  idOf(folder: KnowledgeFolder, rel: string): string {
    return idInFolder(this.folders, folder, rel);
  }

  /** The folder a workspace id names and the path inside it (no policy applied: see `check`). */
  locate(id: string): { folder: KnowledgeFolder; rel: string } | undefined {
    return locateId(this.folders, id, folderHasEntry);
  }

  /** The folder that holds an absolute path (the innermost), lexically. */
  ofPath(abs: string): { folder: KnowledgeFolder; rel: string } | undefined {
    return folderOfPath(this.folders, abs);
  }

  /** The pin policy over every folder (`checkPinnableInFolders`). */
  check(idOrPath: string): FolderPinCheck<KnowledgeFolder> {
    return checkPinnableInFolders(this.folders, idOrPath);
  }

  /**
   * Replaces the folder list. Folders that stay keep their names and parts (nothing is reloaded for them);
   * answers the folders added (not loaded yet) and removed.
   */
  set(specs: readonly FolderSpec[]): { added: KnowledgeFolder[]; removed: KnowledgeFolder[] } {
    // A display name the workspace file chose that may not be shown (a line break, `:`, a bracket look-alike):
    // the folder goes by its base name, and the person is told once per folder and name.
    for (const spec of specs) {
      const problem = spec.name !== undefined ? folderNameProblem(spec.name) : undefined;
      const key = `${spec.path}\u0000${spec.name ?? ''}`;
      if (problem === undefined || this.refusedNames.has(key)) continue;
      this.refusedNames.add(key);
      const message = refusedFolderNameNote(spec.name!, spec.path, problem);
      this.onProblem({ source: 'workspace folder name', path: spec.path, message: message.charAt(0).toUpperCase() + message.slice(1), at: new Date().toISOString() });
    }
    const byPath = new Map(this.folders.map((f) => [f.path, f]));
    const named = assignFolderNames(specs, new Map(this.folders.map((f) => [f.path, f.name])));
    const added: KnowledgeFolder[] = [];
    const next = named.map((n) => {
      const existing = byPath.get(n.path);
      if (existing && existing.name === n.name) return existing;
      const created = new KnowledgeFolder(n.name, n.path, this.onProblem, this.reader);
      added.push(created);
      return created;
    });
    const kept = new Set(next);
    const removed = this.folders.filter((f) => !kept.has(f));
    this.folders = next;
    return { added, removed };
  }
}
