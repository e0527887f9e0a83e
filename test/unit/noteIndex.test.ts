import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NoteIndex, createKnowledgeFile, extractTitle, kindOfId, slugify } from '../../src/server/core/notes/noteIndex';
import { sha256Hex as contentRevision } from '../../src/server/core/sha256Hex';

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'sk-notes-'));
  mkdirSync(join(ws, '.knowledge/notes'), { recursive: true });
  mkdirSync(join(ws, '.knowledge/plans'), { recursive: true });
  return ws;
}

test('title is the first heading, skipping front matter and code fences; else undefined', () => {
  assert.equal(extractTitle('# Hello world\n\ntext'), 'Hello world');
  assert.equal(extractTitle('---\ntitle: x\n---\n\n## Second level  ##\n'), 'Second level');
  assert.equal(extractTitle('```\n# not a title\n```\n# Real'), 'Real');
  assert.equal(extractTitle('Setext title\n===\n'), 'Setext title');
  assert.equal(extractTitle('just text\nmore text'), undefined);
  assert.equal(extractTitle('#hashtag is not a heading'), undefined);
});

test('ids are workspace-relative and only direct .md children of notes/ and plans/ count', () => {
  assert.equal(kindOfId('.knowledge/notes/a.md'), 'note');
  assert.equal(kindOfId('.knowledge/plans/b.md'), 'plan');
  assert.equal(kindOfId('.knowledge/notes/sub/a.md'), undefined);
  assert.equal(kindOfId('.knowledge/notes/a.txt'), undefined);
  assert.equal(kindOfId('docs/a.md'), undefined);
  assert.equal(slugify('Release 1.2 — Ünïcode plan!'), 'release-1-2-unicode-plan');
  assert.equal(slugify('***'), 'untitled');
});

test('the index follows files created, edited, renamed and deleted on disk', async () => {
  const ws = workspace();
  writeFileSync(join(ws, '.knowledge/notes/setup.md'), '# Setup\n\nnpm ci\n');
  writeFileSync(join(ws, '.knowledge/plans/release.md'), 'no heading here\n');
  writeFileSync(join(ws, '.knowledge/notes/ignored.txt'), '# Not markdown');
  const index = new NoteIndex(ws);
  const changed = await index.rebuild();
  assert.deepEqual(changed.sort(), ['.knowledge/notes/setup.md', '.knowledge/plans/release.md']);
  assert.deepEqual(index.list().map((i) => [i.id, i.kind, i.title]), [
    ['.knowledge/notes/setup.md', 'note', 'Setup'],
    ['.knowledge/plans/release.md', 'plan', 'release'],
  ]);
  const before = index.get('.knowledge/notes/setup.md')!.revision;
  assert.equal(before, contentRevision('# Setup\n\nnpm ci\n'));

  // Saved unchanged: no change reported, same revision.
  writeFileSync(join(ws, '.knowledge/notes/setup.md'), '# Setup\n\nnpm ci\n');
  assert.equal(await index.refreshPath(join(ws, '.knowledge/notes/setup.md')), false);

  // Edited: new revision and title.
  writeFileSync(join(ws, '.knowledge/notes/setup.md'), '# Set-up\n\nnpm ci && npm test\n');
  assert.equal(await index.refreshPath(join(ws, '.knowledge/notes/setup.md')), true);
  assert.notEqual(index.get('.knowledge/notes/setup.md')!.revision, before);
  assert.equal(index.get('.knowledge/notes/setup.md')!.title, 'Set-up');

  // Renamed outside the extension: the old id goes, the new one comes.
  renameSync(join(ws, '.knowledge/notes/setup.md'), join(ws, '.knowledge/notes/getting-started.md'));
  assert.equal(await index.refreshPath(join(ws, '.knowledge/notes/setup.md')), true);
  assert.equal(await index.refreshPath(join(ws, '.knowledge/notes/getting-started.md')), true);
  assert.deepEqual(index.list('note').map((i) => i.id), ['.knowledge/notes/getting-started.md']);

  // Deleted, and a whole folder removed: a rebuild drops them.
  rmSync(join(ws, '.knowledge/plans'), { recursive: true });
  assert.deepEqual(await index.rebuild(), ['.knowledge/plans/release.md']);
  assert.equal(index.size, 1);
  assert.deepEqual(index.problems, [], 'a missing folder is not a problem');
});

test('new notes and plans never overwrite an existing file', async () => {
  const ws = workspace();
  const a = await createKnowledgeFile(ws, 'note', 'Coding conventions');
  const b = await createKnowledgeFile(ws, 'note', 'Coding conventions');
  assert.match(a, /coding-conventions\.md$/);
  assert.match(b, /coding-conventions-2\.md$/);
  const plan = await createKnowledgeFile(ws, 'plan', 'Release 2');
  const index = new NoteIndex(ws);
  await index.rebuild();
  assert.equal(index.list('plan')[0]?.title, 'Release 2');
  assert.match(plan, /\.knowledge\/plans\/release-2\.md$/);
});
