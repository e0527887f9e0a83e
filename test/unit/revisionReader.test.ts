import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RevisionReader } from '../../src/server/core/notes/revisionReader';
import { sha256Hex } from '../../src/server/core/sha256Hex';
import { tempWorkspace } from '../helpers/tempWorkspace';

const past = new Date(Date.now() - 60_000);
/** Past the window in which a read is too close to the file's last change (its ctime moves with utimes too). */
const settle = () => sleep(120);

test('the one reader: an unchanged file is read once; any change of its stat reads it again, with the revision of what is read now', async () => {
  const path = join(tempWorkspace('sk-revreader-').workspace, '.knowledge/notes/a.md');
  writeFileSync(path, '# A\n\nfirst\n');
  utimesSync(path, past, past);
  await settle();
  const reader = new RevisionReader();
  const one = await reader.read(path);
  const two = await reader.read(path);
  assert.equal(reader.reads, 1, 'the second ask is answered from the first read');
  assert.equal(two, one);
  assert.equal(one.revision, sha256Hex('# A\n\nfirst\n'));
  // Same size, same mtime put back: the ctime still moved, so it is read again.
  writeFileSync(path, '# A\n\nfir5t\n');
  utimesSync(path, past, past);
  const three = await reader.read(path);
  assert.equal(reader.reads, 2);
  assert.equal(three.revision, sha256Hex('# A\n\nfir5t\n'));
});

test('the one reader: a read too close to the write is not trusted again (the file could change within the same tick)', async () => {
  const path = join(tempWorkspace('sk-revreader-').workspace, '.knowledge/notes/b.md');
  writeFileSync(path, '# B\n');
  const reader = new RevisionReader();
  await reader.read(path);
  await reader.read(path);
  assert.equal(reader.reads, 2, 'just written: read again');
});

test('the one reader: two asks of the same file at once share one read', async () => {
  const path = join(tempWorkspace('sk-revreader-').workspace, '.knowledge/notes/c.md');
  writeFileSync(path, '# C\n');
  utimesSync(path, past, past);
  await settle();
  const reader = new RevisionReader();
  const [a, b] = await Promise.all([reader.read(path), reader.read(path)]);
  assert.equal(reader.reads, 1);
  assert.equal(a, b);
});
