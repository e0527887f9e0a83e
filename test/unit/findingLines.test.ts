/**
 * Findings by line (`src/server/core/review/findingLines.ts`) and per-finding reviews (`review/reviewStore.ts`,
 * `review/userTrust.ts`), on real files in temp folders: the withheld notice names lines, a review of one finding
 * clears that finding and no other, a committed per-finding record in reviews.json decides nothing, and a record
 * whose finding was edited on disk is ignored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findingKey, findingLines, numberedLines, standingAfter, withheldByLines, withoutLines } from '../../src/server/core/review/findingLines';
import { ReviewStore } from '../../src/server/core/review/reviewStore';
import { UserTrustStore } from '../../src/server/core/review/userTrust';
import { judge } from '../../src/server/core/threat/judgement';
import { compileBlock, loadPinned, PinnedFileReader } from '../../src/server/core/delivery/knowledgeBlock';
import { TWO_ATTACKS } from '../helpers/flaggedNote';

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));


test('findings are told by line: lines that touch are one group, each group names its rules; removing them leaves the rest', () => {
  const text = 'a\nbad one\nbad two\nclean\nbad three\n';
  const f = (ruleId: string, line: string) => ({ ruleId, start: text.indexOf(line), end: text.indexOf(line) + line.length });
  const lines = findingLines(text, [f('r.one', 'bad one'), f('r.two', 'bad two'), f('r.three', 'bad three'), { ruleId: 'r.name', start: 0, end: 3, inName: true }]);
  assert.deepEqual(
    lines.groups.map((g) => [g.firstLine, g.lastLine, g.rules]),
    [
      [2, 3, ['r.one', 'r.two']],
      [5, 5, ['r.three']],
    ],
  );
  assert.equal(withheldByLines(lines), 'its name reads as an instruction (r.name); lines 2–3 matched r.one, r.two; line 5 matched r.three');
  assert.deepEqual(numberedLines(text, 2, 3), [
    { line: 2, text: 'bad one' },
    { line: 3, text: 'bad two' },
  ]);
  assert.equal(withoutLines(text, lines.groups), 'a\nclean\n');
  // A finding that ends with its line's break is on that line only.
  const withBreak = findingLines(text, [{ ruleId: 'r', start: 2, end: 10 }]);
  assert.deepEqual([withBreak.groups[0]!.firstLine, withBreak.groups[0]!.lastLine], [2, 2]);
});

test('the block withholds the whole note by default and names the withheld lines by number', async () => {
  const ws = temp('sk-lines-ws-');
  mkdirSync(join(ws, '.knowledge/notes'), { recursive: true });
  writeFileSync(join(ws, '.knowledge/notes/deploy.md'), TWO_ATTACKS);
  const items = await loadPinned(new PinnedFileReader(ws), ['.knowledge/notes/deploy.md'], (_id, text) => judge({ kind: 'text', text }).findings);
  assert.equal(items[0]!.state, 'withheld');
  const block = compileBlock(items, null, 8000);
  assert.ok(!block.text.includes('release branch'), 'whole-note withholding stays the default: not even the clean lines');
  assert.match(block.text, /\[A pinned item was withheld: \.knowledge\/notes\/deploy\.md — line 6 matched override\.ignore-instructions, exfil\.secret-to-sink; line 10 matched forged\.role-header[^\]]*\. The user can review it in VS Code\.\]/);
});

test('a per-finding review clears that finding only: another finding of the same revision still stands', async () => {
  const ws = temp('sk-lines-ws-');
  const trust = new UserTrustStore(temp('sk-lines-trust-'));
  const store = new ReviewStore(ws, undefined, { trust });
  await store.load();
  const verdict = judge({ kind: 'text', text: TWO_ATTACKS });
  const { groups } = findingLines(TWO_ATTACKS, verdict.findings);
  assert.equal(groups.length, 2);
  const [first, second] = groups;
  const revision = verdict.revision;
  await store.markReviewed({ id: '.knowledge/notes/deploy.md', contentHash: revision, rulesetVersion: 'v1', rules: first!.rules, findings: first!.keys });

  const c = store.clearance('.knowledge/notes/deploy.md', revision, 'v1');
  assert.equal(c.cleared, false, 'not the whole revision');
  assert.deepEqual([...(c.findings ?? [])].sort(), [...first!.keys].sort());
  const standing = standingAfter(verdict.findings, c);
  assert.deepEqual(standing.map(findingKey), second!.keys, 'the other finding stands');
  assert.equal(store.isReviewed('.knowledge/notes/deploy.md', revision, 'v1'), false);
  // Another revision or rule set: nothing cleared.
  assert.equal(store.clearance('.knowledge/notes/deploy.md', 'b'.repeat(64), 'v1').findings, undefined);
  assert.equal(store.clearance('.knowledge/notes/deploy.md', revision, 'v2').findings, undefined);

  // The second finding too: both cleared, one by one; the team's record joins them in one review.
  await store.markReviewed({ id: '.knowledge/notes/deploy.md', contentHash: revision, rulesetVersion: 'v1', rules: second!.rules, findings: second!.keys });
  assert.deepEqual(standingAfter(verdict.findings, store.clearance('.knowledge/notes/deploy.md', revision, 'v1')), []);
  const team = JSON.parse(readFileSync(join(ws, '.knowledge/reviews.json'), 'utf8')) as { reviews: { findings?: string[]; rules: string[] }[] };
  assert.equal(team.reviews.length, 1);
  assert.deepEqual([...team.reviews[0]!.findings!].sort(), [...first!.keys, ...second!.keys].sort());

  // A finding edited in this person's record on disk: its MAC fails, the finding stands again.
  const path = join(trust.dir, 'records.json');
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { records: { finding?: string }[] };
  doc.records.find((r) => r.finding === second!.keys[0])!.finding = 'forged.rule@0-1';
  writeFileSync(path, JSON.stringify(doc));
  const fresh = new ReviewStore(ws, undefined, { trust: new UserTrustStore(trust.dir) });
  await fresh.load();
  assert.deepEqual(standingAfter(verdict.findings, fresh.clearance('.knowledge/notes/deploy.md', revision, 'v1')).map(findingKey), [second!.keys[0]]);
});

test("a per-finding record committed in reviews.json decides nothing until accepted; accepting it clears those findings only", async () => {
  const ws = temp('sk-lines-ws-');
  const verdict = judge({ kind: 'text', text: TWO_ATTACKS });
  const { groups } = findingLines(TWO_ATTACKS, verdict.findings);
  mkdirSync(join(ws, '.knowledge'), { recursive: true });
  const record = { id: '.knowledge/notes/deploy.md', contentHash: verdict.revision, rulesetVersion: 'v1', rules: groups[0]!.rules, reviewedBy: 'someone', reviewedAt: new Date().toISOString(), findings: groups[0]!.keys };
  writeFileSync(join(ws, '.knowledge/reviews.json'), JSON.stringify({ schemaVersion: 1, reviews: [record] }));
  const store = new ReviewStore(ws, undefined, { trust: new UserTrustStore(temp('sk-lines-trust-')) });
  await store.load();
  const c = store.clearance(record.id, record.contentHash, 'v1');
  assert.equal(c.cleared, false);
  assert.equal(c.findings, undefined, "the repository's record clears nothing");
  assert.equal(c.team?.reviewedBy, 'someone');
  assert.equal(store.unaccepted('v1').length, 1);
  await store.accept(store.unaccepted('v1'));
  assert.deepEqual(standingAfter(verdict.findings, store.clearance(record.id, record.contentHash, 'v1')).map(findingKey), groups[1]!.keys);
  assert.equal(store.unaccepted('v1').length, 0);
  // The scan's opt-in obeys a per-finding record for its findings only, never the whole revision.
  const ci = new ReviewStore(ws, undefined, { trust: new UserTrustStore(temp('sk-lines-trust-')), acceptRepository: true });
  await ci.load();
  assert.equal(ci.isReviewed(record.id, record.contentHash, 'v1'), false);
  assert.deepEqual(standingAfter(verdict.findings, ci.clearance(record.id, record.contentHash, 'v1')).map(findingKey), groups[1]!.keys);
});
