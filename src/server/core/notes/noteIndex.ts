/**
 * The index of notes and plans: `.knowledge/notes/*.md` and `.knowledge/plans/*.md` in one workspace
 * folder. Id = workspace-relative path with forward slashes; title = first Markdown heading, else the
 * file name; revision = sha256 of the bytes judged (up to the cap of `knowledgeFile.ts`). Pure Node: no `vscode` import.
 */
import { promises as fs, constants as fsConstants } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { KnowledgeItem, KnowledgeKind, StoreProblem } from '../../../shared/schemas';
import { O_NOFOLLOW, assertConfined } from '../store/confinedPath';
import type { KnowledgeRead } from './knowledgeFile';
import { RevisionReader } from './revisionReader';
import { kindOfId } from './pinKind';

export { kindOfId };

export const KNOWLEDGE_DIR = '.knowledge';
const REBUILD_CONCURRENCY = 64;

export const KIND_FOLDERS: Record<KnowledgeKind, string> = { note: 'notes', plan: 'plans' };

/** First ATX (`# Title`) or setext heading of a Markdown text, skipping front matter and code fences. */
export function extractTitle(text: string): string | undefined {
  const lines = text.split(/\r?\n/, 400);
  let i = 0;
  if (lines[0]?.trim() === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) i = end + 1;
  }
  let inFence = false;
  for (; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s{0,3}(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const atx = /^\s{0,3}#{1,6}[ \t]+(.{1,300}?)[ \t#]*$/.exec(line);
    if (atx?.[1]) return atx[1].trim();
    const next = lines[i + 1];
    if (line.trim() !== '' && next !== undefined && /^\s{0,3}(=+|-+)\s*$/.test(next) && !/^\s{0,3}[-*+]\s/.test(line)) {
      return line.trim().slice(0, 300);
    }
  }
  return undefined;
}

export function toId(workspaceFolder: string, absolutePath: string): string {
  return relative(workspaceFolder, absolutePath).split(sep).join('/');
}

/** Turns a title into a file-name slug: lower-case ASCII words joined by dashes. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug || 'untitled';
}

export class NoteIndex {
  private readonly items = new Map<string, KnowledgeItem>();
  readonly problems: StoreProblem[] = [];

  /** `reader`: the core's one reader (shared with judgement and the block, so a changed file is read once). */
  constructor(
    readonly workspaceFolder: string,
    private readonly reader: RevisionReader = new RevisionReader(),
  ) {}

  get size(): number {
    return this.items.size;
  }

  list(kind?: KnowledgeKind): KnowledgeItem[] {
    const all = [...this.items.values()].filter((item) => kind === undefined || item.kind === kind);
    return all.sort((a, b) => (a.kind === b.kind ? a.title.localeCompare(b.title) || a.id.localeCompare(b.id) : a.kind === 'note' ? -1 : 1));
  }

  get(id: string): KnowledgeItem | undefined {
    return this.items.get(id);
  }

  /** Full rescan of both folders. Answers the ids that changed (added, edited or removed). */
  async rebuild(): Promise<string[]> {
    this.problems.length = 0;
    const seen = new Set<string>();
    const changed: string[] = [];
    for (const kind of Object.keys(KIND_FOLDERS) as KnowledgeKind[]) {
      const dir = join(this.workspaceFolder, KNOWLEDGE_DIR, KIND_FOLDERS[kind]);
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') this.report(dir, `cannot read the folder (${code ?? (err as Error).message})`);
        continue;
      }
      const paths = names.filter((name) => name.endsWith('.md')).map((name) => join(dir, name));
      // Bounded parallelism: fast on 100k files without exhausting file descriptors.
      for (let start = 0; start < paths.length; start += REBUILD_CONCURRENCY) {
        const batch = paths.slice(start, start + REBUILD_CONCURRENCY);
        const results = await Promise.all(batch.map((path) => this.refreshPath(path)));
        batch.forEach((path, i) => {
          const id = toId(this.workspaceFolder, path);
          seen.add(id);
          if (results[i]) changed.push(id);
        });
      }
    }
    for (const id of [...this.items.keys()]) {
      if (!seen.has(id)) {
        this.items.delete(id);
        changed.push(id);
      }
    }
    return changed;
  }

  /**
   * Re-reads one file (created, edited or deleted). Answers true when the index changed.
   * Paths outside the two folders are ignored.
   */
  async refreshPath(absolutePath: string): Promise<boolean> {
    const id = toId(this.workspaceFolder, absolutePath);
    const kind = kindOfId(id);
    if (!kind) return false;
    let read: KnowledgeRead;
    try {
      const stat = await fs.stat(absolutePath, { bigint: true });
      if (!stat.isFile()) return this.items.delete(id);
      // Up to the cap, revision of what is read: the same read (and revision) the block, judgement and reviews use.
      read = await this.reader.read(absolutePath, stat);
    } catch (err) {
      this.reader.forget(absolutePath);
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.report(absolutePath, `cannot read the file (${code ?? (err as Error).message})`);
      return this.items.delete(id);
    }
    const { revision, text } = read;
    const previous = this.items.get(id);
    if (previous?.revision === revision && previous.size === read.size) return false;
    this.items.set(id, {
      id,
      kind,
      title: extractTitle(text) ?? basename(absolutePath, '.md'),
      revision,
      size: read.size,
      path: absolutePath,
      flaggedRules: [],
    });
    return true;
  }

  private report(path: string, message: string): void {
    this.problems.push({ source: 'notes', path, message: `${path}: ${message}`, at: new Date().toISOString() });
  }
}

/** Creates a new note or plan file with a heading; never overwrites (adds -2, -3… to the name). */
export async function createKnowledgeFile(workspaceFolder: string, kind: KnowledgeKind, title: string): Promise<string> {
  const dir = join(workspaceFolder, KNOWLEDGE_DIR, KIND_FOLDERS[kind]);
  // A committed link at `.knowledge` or its notes folder never makes us create a file outside the folder.
  await assertConfined(workspaceFolder, dir);
  await fs.mkdir(dir, { recursive: true });
  const slug = slugify(title);
  const body =
    kind === 'note'
      ? `# ${title}\n\n`
      : `# ${title}\n\n## Goal\n\n## Steps\n\n- [ ] \n`;
  for (let n = 1; n < 1000; n++) {
    const path = join(dir, n === 1 ? `${slug}.md` : `${slug}-${n}.md`);
    try {
      await fs.writeFile(path, body, { flag: fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | O_NOFOLLOW });
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(`Could not find a free file name for "${title}" in ${dir}`);
}
