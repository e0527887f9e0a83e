// `npm start` as a new user meets it: `node scripts/start.mjs --check` serves the demo workspace (a throwaway
// copy) with the demo model (demo/demo-model) installed as a regular extension, pins a note to the next chat,
// sends the first `@knowledge` message in VS Code's Chat view and checks that the note rode with it: the demo
// model's answer shows the block as it arrived, the footer says "delivered 1 pinned item", and the status bar
// says the session carries it. The picture is test-results/chat-exchange.png (docs/chat-exchange.png in the README).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../scripts/vscodeWeb.mjs';

test('npm start with the demo model: the first @knowledge message carries the pinned note (screenshot)', { timeout: 240_000 }, () => {
  assert.ok(existsSync(join(repoRoot, 'dist/extension.js')), 'dist/extension.js is missing: run `npm run build` first');
  const shot = join(repoRoot, 'test-results/chat-exchange.png');
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/start.mjs'), '--check', '--no-build'], { cwd: repoRoot, encoding: 'utf8', timeout: 220_000 });
  assert.equal(r.status, 0, `npm start -- --check failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /first @knowledge message carried the pinned note to the demo model/);
  assert.ok(statSync(shot).mtimeMs >= started, 'the screenshot was taken by this run');
});
