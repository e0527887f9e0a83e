/**
 * Crash-safe file primitives for the store. No `vscode` import: the CLI and tests use them directly.
 *
 * - `writeFileAtomic`: write to a unique temp file beside the target, fsync, then rename over the target.
 *   A process killed at any point leaves either the old or the new file, never a torn one.
 *   `writeSmallFileAtomic`: the same without the folder's fsync, for the session files (see there).
 * - `withFileLock`: an advisory lock shared by every process that writes the same file (two VS Code
 *   windows on one workspace run two servers). `O_EXCL` creation of `<file>.lock` (or, with `link`, a symbolic
 *   link whose target is the owner); a lock whose owner process is gone, or that is older than `staleMs`, is broken.
 */
import { closeSync, fsync, lstatSync, mkdirSync, openSync, promises as fs, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync, writeSync, constants as fsConstants } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { assertConfined } from './confinedPath';

export async function writeFileAtomic(path: string, data: string, options: { mode?: number; keepMode?: boolean; confineTo?: string } = {}): Promise<void> {
  // A file inside a workspace folder: no link at it or above it up to the folder (see confinedPath.ts).
  if (options.confineTo !== undefined) await assertConfined(options.confineTo, path);
  await fs.mkdir(dirname(path), { recursive: true });
  // keepMode: the new file keeps the mode of the one it replaces (a shared 0644 file stays 0644).
  let mode: number | undefined;
  if (options.keepMode) {
    try {
      mode = (await fs.stat(path)).mode & 0o7777;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(tmp, 'wx', mode ?? options.mode ?? 0o600);
  try {
    if (mode !== undefined) await handle.chmod(mode); // exactly the old mode, whatever the umask
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await syncDirectory(dirname(path));
}

/**
 * The session store's write of one small file: temp + fsync + rename, and nothing else. The small steps are
 * synchronous system calls (each microseconds; a thread-pool round trip costs more than the call), only the fsync
 * leaves the event loop. Unlike `writeFileAtomic`, the folder is not fsynced after the rename: a kill -9 after
 * the rename keeps the new file (the rename is in the kernel), and a power loss leaves the old or the new file,
 * never a torn one — the guarantee the store gives; only the last acknowledged write may be undone by a power
 * loss, which for a session means a block sent again. The folder must exist (created on the first ENOENT).
 */
export async function writeSmallFileAtomic(path: string, data: string, mode = 0o600): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number;
  try {
    fd = openSync(tmp, 'wx', mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(tmp, 'wx', mode);
  }
  try {
    writeSync(fd, data);
    await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable. Not every platform lets a directory be opened; that is fine.
  try {
    const handle = await fs.open(dir, fsConstants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* best effort */
  }
}

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this (ms) is considered abandoned. */
  staleMs?: number;
  /**
   * Sweep the file's crash leftovers on its first lock in this process (default true). A folder of many small
   * files (one per session) turns it off and calls `removeDeadTempFiles` once for the folder instead.
   */
  sweepTemps?: boolean;
  /**
   * The workspace folder the file lies in: the lock (and the folders it creates) is refused when the file or a
   * folder above it is a link, or leaves that folder (`LinkedPathError`), so nothing is created outside.
   */
  confineTo?: string;
  /**
   * The lock is a symbolic link whose target is its owner (`pid@host`): one system call to take, one to release, and
   * never empty. For the store's own files in global storage (the session files); where links cannot be made
   * (Windows without the privilege) it falls back to the lock file. Both kinds exclude each other (same name).
   */
  link?: boolean;
}

export class LockTimeoutError extends Error {
  readonly reason = 'lock-timeout' as const;
  constructor(readonly lockPath: string) {
    super(`Timed out waiting for the lock ${lockPath}. If no other VS Code window is writing, delete that file.`);
  }
  static is(err: unknown): err is LockTimeoutError {
    return err instanceof Error && (err as LockTimeoutError).reason === 'lock-timeout';
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates the lock file with its owner already in it: the content is written to a temp file, which is then
 * hard-linked to the lock's name (fails with EEXIST when the lock is held). A writer killed at any moment leaves
 * either no lock or a complete one, never an empty lock that nobody can tell is abandoned.
 */
async function createLockFile(lockPath: string, owner: string): Promise<void> {
  const tmp = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.new`;
  await fs.writeFile(tmp, owner, { flag: 'wx' });
  try {
    await fs.link(tmp, lockPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
    // A file system without hard links: create, then write (an empty lock is then broken after EMPTY_LOCK_MS).
    const handle = await fs.open(lockPath, 'wx');
    try {
      await handle.writeFile(owner);
    } finally {
      await handle.close();
    }
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/** An empty lock (left by an older version killed between create and write) is abandoned after this long. */
const EMPTY_LOCK_MS = 1_000;

/** A lock's owner: a link's target, or a lock file's content. */
async function lockOwner(path: string): Promise<string> {
  try {
    return readlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
    return fs.readFile(path, 'utf8'); // a lock file (not a link)
  }
}

async function tryBreakStaleLock(lockPath: string, staleMs: number): Promise<void> {
  let content: string;
  let mtimeMs: number;
  try {
    content = await lockOwner(lockPath);
    mtimeMs = lstatSync(lockPath).mtimeMs;
  } catch {
    return; // released meanwhile
  }
  const [pidText, host] = content.split('@');
  const sameHost = host === undefined || host.trim() === hostTag();
  const ownerGone = sameHost && pidText !== undefined && pidText !== '' && !processAlive(Number(pidText));
  const age = Date.now() - mtimeMs;
  if (ownerGone || age > staleMs || (content === '' && age > EMPTY_LOCK_MS)) {
    // Rename first so that two processes breaking the same stale lock cannot delete a fresh one.
    const grave = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
    try {
      await fs.rename(lockPath, grave);
      const again = await lockOwner(grave);
      if (again !== content) {
        // Someone took the lock between our read and rename: give it back.
        await fs.rename(grave, lockPath).catch(() => undefined);
        return;
      }
      await fs.rm(grave, { force: true });
    } catch {
      /* someone else handled it */
    }
  }
}

function hostTag(): string {
  return hostname();
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs `fn` while holding `<path>.lock`. Locks are per file and re-entrant within a process only via the caller's own queue. */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lockPath = `${path}.lock`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  if (options.confineTo !== undefined) await assertConfined(options.confineTo, path);
  const owner = `${process.pid}@${hostTag()}`;
  let link = options.link === true;
  if (!link) await fs.mkdir(dirname(path), { recursive: true });
  let delay = 2;
  for (;;) {
    try {
      if (link) {
        try {
          symlinkSync(owner, lockPath);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') {
            mkdirSync(dirname(path), { recursive: true });
            continue;
          }
          if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') {
            link = false; // no links here: the lock file
            continue;
          }
          throw err;
        }
      } else {
        await createLockFile(lockPath, owner);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() > deadline) throw new LockTimeoutError(lockPath);
      await tryBreakStaleLock(lockPath, staleMs);
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 50);
    }
  }
  try {
    if (options.sweepTemps !== false) await removeStaleTempFiles(path);
    return await fn();
  } finally {
    if (link) {
      try {
        unlinkSync(lockPath);
      } catch {
        /* broken as stale by another process: nothing of ours to remove */
      }
    } else await fs.rm(lockPath, { force: true });
  }
}

const cleaned = new Set<string>();

/**
 * Removes temp files a killed writer left beside `path` (`.<name>.<pid>.<random>.tmp`, and lock drafts of dead
 * processes). Called while holding
 * the file's lock: every writer of a locked file writes its temp file under that lock, so any temp file seen
 * now belongs to a writer that died. Once per file and process: it is a crash leftover, not a hot path.
 */
export async function removeStaleTempFiles(path: string): Promise<number> {
  if (cleaned.has(path)) return 0;
  cleaned.add(path);
  const prefix = `.${basename(path)}.`;
  const lockPrefix = `${basename(path)}.lock.`;
  let removed = 0;
  try {
    for (const name of await fs.readdir(dirname(path))) {
      const tempFile = name.startsWith(prefix) && /^\d+\.[0-9a-f]+\.tmp$/.test(name.slice(prefix.length));
      // A lock's content file (`<name>.lock.<pid>.<random>.new`) whose writer died before it cleaned up.
      const lockDraft = name.startsWith(lockPrefix) && /^(\d+)\.[0-9a-f]+\.new$/.exec(name.slice(lockPrefix.length));
      if (tempFile || (lockDraft && !processAlive(Number(lockDraft[1])))) {
        await fs.rm(join(dirname(path), name), { force: true });
        removed += 1;
      }
    }
  } catch {
    /* the folder may not exist yet */
  }
  return removed;
}

/**
 * Removes, in one folder, the temp files and lock drafts whose writer process is gone (`.<name>.<pid>.<random>.tmp`,
 * `<name>.lock.<pid>.<random>.new`), whatever file they belong to: a live writer's files are left alone, so this needs
 * no lock. For folders of many small files, once when the folder is opened (a per-file sweep would list the folder
 * at every file's first write). Same host assumed, as for the locks.
 */
export async function removeDeadTempFiles(dir: string): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = /^\..+\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name) ?? /\.lock\.(\d+)\.[0-9a-f]+\.new$/.exec(name);
    if (m && Number(m[1]) !== process.pid && !processAlive(Number(m[1]))) {
      await fs.rm(join(dir, name), { force: true });
      removed += 1;
    }
  }
  return removed;
}
