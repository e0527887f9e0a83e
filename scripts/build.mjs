// One esbuild script for every bundle: the extension host, the language server, the CLI, and the
// integration tests that run inside a real VS Code extension host. Type-checking is `npm run typecheck`.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @param {string} dir */
function walk(dir) {
  let out = [];
  try {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) out = out.concat(walk(p));
      else if (p.endsWith('.ts')) out.push(p);
    }
  } catch { /* folder not there yet */ }
  return out;
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // lowdb is ESM-only; esbuild turns it into CommonJS inside each bundle.
  mainFields: ['module', 'main'],
};

const builds = [
  { ...common, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...common, entryPoints: { server: 'src/server/lsp/serverMain.ts' }, outdir: 'dist' },
  // The CLI: a small entry that loads the bundle its command needs (`scan` without the stores, zod or lowdb).
  { ...common, entryPoints: { cli: 'src/cli/entry.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  // minified in every build too: Claude Code's hook runs it as a new process on every prompt (source map beside it)
  { ...common, entryPoints: { 'cli-main': 'src/cli/cliMain.ts' }, outdir: 'dist', minify: true },
  // `hook claude-code`'s first stop: a prompt that owes nothing is answered from stats and two small JSON files,
  // with Node's built-ins only (no zod, lowdb, store or scanner); it loads cli-main.js otherwise
  { ...common, entryPoints: { 'cli-hook': 'src/cli/hookFast.ts' }, outdir: 'dist', minify: true },
  // minified in every build: most of a `scan` run's start is V8 reading this file (source map beside it)
  { ...common, entryPoints: { 'cli-scan': 'src/cli/scanEntry.ts' }, outdir: 'dist', minify: true },
  // `session-knowledge mcp`: the MCP server, with the SDK that no other command loads
  { ...common, entryPoints: { 'cli-mcp': 'src/cli/mcp.ts' }, outdir: 'dist' },
  // The knowledge panel's webview (browser, one IIFE; loaded with the render's nonce). Its codicons font and
  // stylesheet are copied beside it below.
  { ...common, platform: 'browser', target: 'chrome120', format: 'iife', entryPoints: { panel: 'media/panel/panelMain.ts' }, outdir: 'dist', tsconfig: 'media/panel/tsconfig.json' },
];
/** Assets the panel's webview loads from dist/ (see .vscodeignore). */
function copyPanelAssets() {
  mkdirSync('dist', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) copyFileSync(join('node_modules/@vscode/codicons/dist', f), join('dist', f));
}
/**
 * The threat model's weights: one data file beside the bundles that scan (server, cli-main, cli-scan, cli-mcp), which
 * read it on first use from their own folder (src/server/core/threat/model/classifier.ts `modelDataPath`). Not inlined.
 */
const MODEL_DATA = 'src/server/core/threat/model/threat-model.bin';
/**
 * The threat prefilter's derivation (scripts/gen-prefilter.ts, run below): read as data too, beside the bundles, and
 * checked against its sha256, which each bundle carries (`__SK_PREFILTER_SHA256__`; src/server/core/threat/prefilter.ts).
 */
const PREFILTER_DATA = 'src/server/core/threat/prefilter.generated.json';
function copyModelData() {
  mkdirSync('dist', { recursive: true });
  copyFileSync(MODEL_DATA, join('dist', 'threat-model.bin'));
  copyFileSync(PREFILTER_DATA, join('dist', 'prefilter.generated.json'));
}
const integration = walk('test/integration').filter((f) => !f.endsWith('.d.ts'));
if (integration.length > 0 && !production) {
  builds.push({
    ...common,
    entryPoints: integration,
    outbase: 'test/integration',
    outdir: 'out/test/integration',
    bundle: true,
    external: ['vscode', 'mocha'],
  });
}

/**
 * dist/api.d.ts must declare types only: a function, value or class declared there promises other extensions
 * something no shipped module exports (runtime helpers live in src/extension/pins.ts and the like).
 */
function checkTypesOnly(file) {
  const runtime = /^\s*export\s+(?:declare\s+)?(?:default\b|(?:async\s+)?function\b|const\b|let\b|var\b|(?:abstract\s+)?class\b|enum\b|namespace\b|module\b)|^\s*export\s*=|^\s*export\s*\{\s*[^}\s]/;
  const bad = readFileSync(file, 'utf8').split('\n').filter((line) => runtime.test(line));
  if (bad.length > 0) throw new Error(`${file} must declare types only; it declares runtime exports:\n  ${bad.join('\n  ')}`);
}

// The threat prefilter's formulas are derived from the rules' regexes once, here, not at every load.
{
  const gen = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/gen-prefilter.ts'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (gen.status !== 0) throw new Error('scripts/gen-prefilter.ts failed');
  const sha = createHash('sha256').update(readFileSync(PREFILTER_DATA)).digest('hex');
  for (const b of builds) b.define = { ...b.define, __SK_PREFILTER_SHA256__: JSON.stringify(sha) };
}
if (!watch) rmSync('dist', { recursive: true, force: true });
if (watch) {
  copyPanelAssets();
  copyModelData();
  for (const b of builds) await (await esbuild.context(b)).watch();
  console.log('[build] watching');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  copyPanelAssets();
  copyModelData();
  // The API's types ship as dist/api.d.ts (package.json "types"), from the one self-contained source file.
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', 'src/extension/api.ts', '--declaration', '--emitDeclarationOnly', '--skipLibCheck', '--target', 'ES2022', '--outDir', 'dist'], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error('could not emit dist/api.d.ts');
  checkTypesOnly('dist/api.d.ts');
  console.log(`[build] ${production ? 'production' : 'development'} bundles written to dist/`);
}
