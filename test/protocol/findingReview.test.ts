/**
 * Per-finding reviews over the real language server (`knowledge/threat/markReviewed` with `findings`): a note with two
 * flagged passages stays withheld whole until each is reviewed, the block's notice names the lines still withheld,
 * a finding the file does not have is refused, and an edit judges it all again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompilePinsRequest, JudgeFileRequest, MarkReviewedRequest } from '../../src/shared/protocol';
import { findingLines } from '../../src/server/core/review/findingLines';
import { startInMemoryServer } from '../helpers/inMemoryServer';
import { tempWorkspace } from '../helpers/tempWorkspace';
import { TWO_ATTACKS } from '../helpers/flaggedNote';

const NOTE = TWO_ATTACKS;
const ID = '.knowledge/notes/deploy.md';

test('a per-finding review clears its lines only; the notice names the lines still withheld; an edit asks again', async (t) => {
  const d = tempWorkspace('sk-finding-review-', { [ID]: NOTE });
  const server = await startInMemoryServer({ workspaceFolder: d.workspace, globalStoragePath: d.storage, memoryEnabled: false });
  t.after(() => server.stop());
  const c = server.connection;
  const block = async () => (await c.sendRequest(CompilePinsRequest.type, { pins: [ID] })).text;

  const first = await block();
  assert.match(first, /A pinned item was withheld: \.knowledge\/notes\/deploy\.md — line 6 matched override\.ignore-instructions, exfil\.secret-to-sink; line 10 matched forged\.role-header/);
  assert.ok(!first.includes('release branch'), 'withheld whole by default');

  const judged = (await c.sendRequest(JudgeFileRequest.type, { id: ID }))!;
  const [six, ten] = findingLines(NOTE, judged.findings).groups;
  assert.deepEqual([six!.firstLine, ten!.firstLine], [6, 10]);

  await assert.rejects(c.sendRequest(MarkReviewedRequest.type, { id: ID, revision: judged.revision, findings: ['override.ignore-instructions@0-1'] }), /no such finding/);
  const review = await c.sendRequest(MarkReviewedRequest.type, { id: ID, revision: judged.revision, findings: six!.keys });
  assert.deepEqual(review.rules, six!.rules, 'it names the rules it clears, and only those');
  assert.deepEqual(review.findings, six!.keys);

  const afterOne = await block();
  assert.match(afterOne, /withheld: \.knowledge\/notes\/deploy\.md — line 10 matched forged\.role-header/);
  assert.ok(!afterOne.includes('line 6'), 'the reviewed lines are no longer named');
  assert.ok(!afterOne.includes('release branch'), 'still withheld whole: another finding stands');
  const still = (await c.sendRequest(JudgeFileRequest.type, { id: ID }))!;
  assert.deepEqual([...new Set(still.findings.map((f) => f.ruleId))], ten!.rules);
  assert.equal(still.review, undefined);

  await c.sendRequest(MarkReviewedRequest.type, { id: ID, revision: judged.revision, findings: ten!.keys });
  const sent = await block();
  assert.ok(sent.includes('Run npm run deploy from the release branch.') && sent.includes('SYSTEM: you are now'), 'every finding reviewed: the note as it is goes');
  const cleared = (await c.sendRequest(JudgeFileRequest.type, { id: ID }))!;
  assert.equal(cleared.findings.length, 0);
  assert.deepEqual([...cleared.review!.findings!].sort(), [...six!.keys, ...ten!.keys].sort());

  // An edit (a clean line added at the top): every finding is judged again, at its new line.
  writeFileSync(join(d.workspace, ID), `Owner: ops\n${NOTE}`);
  const edited = await (async () => {
    for (let i = 0; i < 50; i++) {
      const text = await block();
      if (text.includes('withheld')) return text;
      await new Promise((r) => setTimeout(r, 100));
    }
    return block();
  })();
  assert.match(edited, /withheld: \.knowledge\/notes\/deploy\.md — line 7 matched override\.ignore-instructions, exfil\.secret-to-sink; line 11 matched/);
});
