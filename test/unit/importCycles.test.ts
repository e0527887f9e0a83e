/**
 * No import cycles in src/, type-only imports included. Lint's `import-x/no-cycle` catches runtime cycles but
 * skips `import type`, which is how the old memory routes ↔ server cycle was written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '../..');
const src = join(root, 'src');

/** Each .ts file under src/ → the .ts files under src/ it imports (relative specifiers only). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => join(src, f));
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const deps = importedFiles
      .filter((i) => i.fileName.startsWith('.'))
      .map((i) => resolve(dirname(file), i.fileName))
      .map((base) => [`${base}.ts`, join(base, 'index.ts')].find((c) => existsSync(c)))
      .filter((d): d is string => d !== undefined);
    graph.set(file, deps);
  }
  return graph;
}

/** One import path that leads from `start` back to itself, or undefined. */
function cycleFrom(graph: Map<string, string[]>, start: string): string[] | undefined {
  const seen = new Set<string>();
  const walk = (file: string, path: string[]): string[] | undefined => {
    for (const dep of graph.get(file) ?? []) {
      if (dep === start) return [...path, dep];
      if (seen.has(dep)) continue;
      seen.add(dep);
      const found = walk(dep, [...path, dep]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

test('src/ has no import cycles, counting type-only imports', () => {
  const graph = importGraph();
  assert.ok(graph.size > 50, `read ${graph.size} files`);
  for (const file of graph.keys()) {
    const cycle = cycleFrom(graph, file);
    assert.equal(cycle, undefined, `import cycle: ${cycle?.map((f) => relative(root, f)).join(' → ')}`);
  }
});
