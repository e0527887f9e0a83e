/**
 * V8's code cache for a bundle, by hand: Node 22.1+ has `module.enableCompileCache()`, Node 20 does not. Loads a
 * CommonJS bundle through `vm.Script` with the cached data kept in `cacheDir`, named by the sha256 of the bundle's
 * exact text (V8's own check of the data against its source compares only the length), and writes that data once the
 * process has run (so the functions it compiled are in it), replacing the data of older builds. V8 also checks its
 * version and flags and rejects data that does not match (the bundle then compiles as usual and the data is written
 * anew): the cache makes a start faster, never different. The folder is this person's (0700), like the rest of the
 * per-user state: a repository cannot write it.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

/** What the last load did with the cache (the hook's trace says it). */
export let codeCacheState: 'used' | 'rejected' | 'absent' | 'unreadable' = 'absent';

/** Requires `file` (a CommonJS bundle) with V8's code cache kept in `cacheDir`; a plain require when anything fails. */
export function requireWithCodeCache(file: string, cacheDir: string): unknown {
  // Loaded here, not at the top: the hook's first stop imports this module, and a prompt that owes nothing needs neither.
  const load = createRequire(__filename);
  const { createHash } = load('node:crypto') as typeof import('node:crypto');
  const { Script } = load('node:vm') as typeof import('node:vm');
  let source: string;
  let cachePath: string;
  try {
    const bytes = readFileSync(file);
    source = bytes.toString('utf8');
    const digest = createHash('sha256').update(bytes).update(process.version).update(process.arch).digest('hex').slice(0, 32);
    cachePath = join(cacheDir, `${basename(file)}.${digest}.v8cache`);
  } catch {
    codeCacheState = 'unreadable';
    return createRequire(file)(file);
  }
  let cached: Buffer | undefined;
  try {
    cached = readFileSync(cachePath);
  } catch {
    cached = undefined;
  }
  const script = new Script(Module.wrap(source), { filename: file, ...(cached ? { cachedData: cached } : {}) });
  const mod = new Module(file, require.main ?? undefined);
  mod.filename = file;
  mod.paths = (Module as unknown as { _nodeModulePaths: (dir: string) => string[] })._nodeModulePaths(dirname(file));
  (require.cache as Record<string, NodeJS.Module>)[file] = mod as unknown as NodeJS.Module;
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  mod.loaded = true;
  codeCacheState = !cached ? 'absent' : script.cachedDataRejected ? 'rejected' : 'used';
  if (!cached || script.cachedDataRejected) {
    // Once the process has run: the data then holds the functions it compiled, not only the top level.
    process.once('beforeExit', () => {
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        const tmp = `${cachePath}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        renameSync(tmp, cachePath);
        // The data of earlier builds of this bundle is of no use any more.
        const prefix = `${basename(file)}.`;
        for (const name of readdirSync(cacheDir)) {
          if (name.startsWith(prefix) && name.endsWith('.v8cache') && join(cacheDir, name) !== cachePath) rmSync(join(cacheDir, name), { force: true });
        }
      } catch {
        // a cache that cannot be written only costs the next start its compile
      }
    });
  }
  return mod.exports;
}
