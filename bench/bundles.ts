/**
 * What the package ships: each bundle in dist/ with its size and whether it carries the threat model's weights
 * inline, beside the one data file that should be the only copy (`dist/threat-model.bin`). A bundle "carries the
 * weights" when it holds a base64 run of 20,000 characters or more (training used to inline the deflated weights as
 * two such runs, ~148k characters; nothing else we ship is one). Needs the built bundles (npm run build).
 *
 *   node --import tsx bench/bundles.ts
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export async function runBundlesBench(): Promise<void> {
  const dist = resolve(__dirname, '..', 'dist');
  console.log('\n## What the package ships: bundles and copies of the model\'s weights\n');
  const data = join(dist, 'threat-model.bin');
  if (!existsSync(data)) {
    console.log('(dist/threat-model.bin not built: run npm run build first)');
    return;
  }
  const weights = readFileSync(data);
  const blobs = (text: string): number => (text.match(/[A-Za-z0-9+/]{20000,}={0,2}/g) ?? []).reduce((n, b) => n + b.length, 0);
  const shipped = new Set(
    readFileSync(resolve(__dirname, '..', '.vscodeignore'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('!dist/'))
      .map((l) => l.slice('!dist/'.length)),
  );
  console.log('| file in dist/ | bytes | shipped in the .vsix | inline base64 blobs (characters) |');
  console.log('|---|---|---|---|');
  let copies = 0;
  let shippedBytes = 0;
  for (const name of readdirSync(dist).filter((n) => /\.(js|bin|json)$/.test(n)).sort()) {
    const path = join(dist, name);
    const bytes = statSync(path).size;
    const inline = name.endsWith('.js') ? blobs(readFileSync(path, 'latin1')) : 0;
    if (inline > 0) copies += 1;
    if (shipped.has(name)) shippedBytes += bytes;
    console.log(`| ${name} | ${bytes.toLocaleString('en')} | ${shipped.has(name) ? 'yes' : 'no'} | ${name === 'threat-model.bin' ? '(the data file)' : inline.toLocaleString('en')} |`);
  }
  console.log(`\nweights: ${copies} inline cop${copies === 1 ? 'y' : 'ies'} in bundles + 1 data file of ${weights.length.toLocaleString('en')} bytes; shipped dist/ files ${shippedBytes.toLocaleString('en')} bytes (uncompressed)`);
}

if (typeof module !== 'undefined' && require.main === module) {
  runBundlesBench().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
