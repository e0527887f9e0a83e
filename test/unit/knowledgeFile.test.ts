import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_KNOWLEDGE_BYTES, capKnowledgeText, readKnowledgeFile } from '../../src/server/core/notes/knowledgeFile';
import { tempWorkspace } from '../helpers/tempWorkspace';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

test('one cap and one revision: a file over the cap is read up to it on a whole character, the same from disk and from an editor', async () => {
  const { workspace } = tempWorkspace('sk-kfile-');
  // Every offset of a 3-byte and a 4-byte character against the cap.
  for (const pad of [0, 1, 2, 3]) {
    const text = `${'a'.repeat(MAX_KNOWLEDGE_BYTES - 6 + pad)}€😀${'b'.repeat(100)}`;
    const path = join(workspace, `f${pad}.md`);
    writeFileSync(path, text);
    const disk = await readKnowledgeFile(path);
    assert.equal(disk.truncated, true);
    assert.equal(disk.size, Buffer.byteLength(text));
    assert.ok(!disk.text.includes('\uFFFD'), `no split character (pad ${pad})`);
    assert.ok(Buffer.byteLength(disk.text) <= MAX_KNOWLEDGE_BYTES);
    assert.ok(text.startsWith(disk.text));
    assert.equal(disk.revision, sha(Buffer.from(disk.text, 'utf8')), 'the revision is the hash of exactly the text judged');
    const live = capKnowledgeText(text);
    assert.deepEqual({ text: live.text, revision: live.revision, truncated: live.truncated }, { text: disk.text, revision: disk.revision, truncated: true }, 'the editor reads it as the disk does');
  }
  // Under the cap: the whole file, its revision the hash of the whole file (as before the cap existed).
  const small = '# Small\n\nÄ note.\n';
  writeFileSync(join(workspace, 'small.md'), small);
  const read = await readKnowledgeFile(join(workspace, 'small.md'));
  assert.deepEqual([read.text, read.revision, read.truncated], [small, sha(small), false]);
  assert.equal(capKnowledgeText(small).revision, read.revision);
});
