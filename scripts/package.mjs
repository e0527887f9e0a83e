// `npm run package`: the .vsix, from any state of the clone (a fresh one has no dist-package/ and no dist/).
//   npm run package                        # dist-package/session-knowledge.vsix
//   npm run package -- --out DIR/NAME.vsix # elsewhere (test/protocol/installFromClone.test.ts packs into a temp folder)
// vsce builds the production bundles itself (package.json "vscode:prepublish") and takes only what the
// .vscodeignore allowlist names; it does not create the output's folder, so this script does.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = resolve(values.out ?? join(root, 'dist-package/session-knowledge.vsix'));
mkdirSync(dirname(out), { recursive: true });

const vsce = join(root, 'node_modules/@vscode/vsce/vsce');
const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--no-rewrite-relative-links', '-o', out], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`[package] vsce package failed (exit ${r.status ?? r.signal})`);
  process.exit(r.status || 1);
}
console.log(`[package] wrote ${out}\n[package] install it with: code --install-extension ${out}`);
