/**
 * Watches a workspace's `.knowledge/` for the MCP server (`session-knowledge mcp`): notes and plans added, edited
 * or removed, `reviews.json` (verdicts) and `memory.jsonl` (project memory) changed. Events are debounced and
 * reported together. `fs.watch` is not recursive here and a watched folder that is deleted (or created later) is
 * not followed by the OS, so after every batch the watches are armed again: a folder that appeared is watched, one
 * that went (or was replaced: another inode) is dropped or watched anew. The watches never keep the process alive.
 * Pure Node, no `vscode`.
 */
import { watch, statSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

export interface KnowledgeChanges {
  /** Note or plan files named by an event (absolute paths; may be deleted). */
  paths: Set<string>;
  /** Something happened that a file name does not describe (a folder came or went): rescan both folders. */
  rescan: boolean;
  reviews: boolean;
  memory: boolean;
}

interface Watch {
  watcher: FSWatcher;
  ino: number;
}

export class KnowledgeWatcher {
  private readonly watches = new Map<string, Watch>();
  private pending: KnowledgeChanges | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    readonly workspaceFolder: string,
    private readonly onChanges: (changes: KnowledgeChanges) => void,
    private readonly options: { debounceMs?: number; log?: (message: string) => void } = {},
  ) {}

  private get knowledgeDir(): string {
    return join(this.workspaceFolder, '.knowledge');
  }

  start(): void {
    this.arm();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const w of this.watches.values()) w.watcher.close();
    this.watches.clear();
  }

  /** Watches what exists now and should be watched; drops what went or was replaced. */
  private arm(): void {
    if (this.closed) return;
    const knowledgeExists = inode(this.knowledgeDir) !== undefined;
    const wanted = knowledgeExists ? [this.knowledgeDir, join(this.knowledgeDir, 'notes'), join(this.knowledgeDir, 'plans')] : [this.workspaceFolder];
    for (const [dir, w] of this.watches) {
      if (!wanted.includes(dir) || inode(dir) !== w.ino) {
        w.watcher.close();
        this.watches.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.watches.has(dir)) continue;
      const ino = inode(dir);
      if (ino === undefined) continue;
      try {
        const watcher = watch(dir, { persistent: false }, (_event, name) => this.event(dir, name === null ? null : String(name)));
        watcher.on('error', () => {
          watcher.close();
          if (this.watches.get(dir)?.watcher === watcher) this.watches.delete(dir);
          this.record((c) => (c.rescan = true));
        });
        this.watches.set(dir, { watcher, ino });
      } catch (err) {
        this.options.log?.(`Cannot watch ${dir}: ${(err as Error).message}`);
      }
    }
  }

  private event(dir: string, name: string | null): void {
    if (dir === this.workspaceFolder) {
      if (name === null || name === '.knowledge') this.record((c) => (c.rescan = true));
      return;
    }
    if (dir === this.knowledgeDir) {
      if (name === 'reviews.json') this.record((c) => (c.reviews = true));
      else if (name === 'memory.jsonl') this.record((c) => (c.memory = true));
      else if (name === null || name === 'notes' || name === 'plans') this.record((c) => (c.rescan = true));
      return;
    }
    // notes/ or plans/: a file name we can re-read alone; anything else (no name) means rescan.
    if (name === null) this.record((c) => (c.rescan = true));
    else if (name.endsWith('.md')) this.record((c) => c.paths.add(join(dir, name)));
  }

  private record(change: (c: KnowledgeChanges) => void): void {
    if (this.closed) return;
    this.pending ??= { paths: new Set(), rescan: false, reviews: false, memory: false };
    change(this.pending);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.options.debounceMs ?? 150);
    this.timer.unref();
  }

  private flush(): void {
    this.timer = null;
    const changes = this.pending;
    this.pending = null;
    this.arm();
    if (changes && !this.closed) this.onChanges(changes);
  }
}

function inode(path: string): number | undefined {
  try {
    const s = statSync(path);
    return s.isDirectory() ? s.ino : undefined;
  } catch {
    return undefined;
  }
}
