/**
 * The words of the status bar, its tooltip, the status quick pick, Preview and the chat footer (`statusWords.ts`):
 * the vocabulary (pinned, delivered, due, due again, withheld, cut, missing), plurals done properly, the memory index
 * counted in the footer, and the tooltip saying what the quick pick says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactedFooter, deliveredFooter, deliveryState, itemMark, pickTitle, previewLines, statusBarWords, type BlockFacts } from '../../src/extension/statusWords';
import { counted } from '../../src/server/core/delivery/blockWords';

const budget = (extra: Partial<BlockFacts['budget']> = {}) => ({ budgetTokens: 8000, usedTokens: 212, cutItems: [], cutMemoryEntries: 0, ...extra });
const ok = (id: string) => ({ id, state: 'ok' as const });
const block = (items: BlockFacts['items'], extra: Partial<BlockFacts> = {}): BlockFacts => ({ items, budget: budget(), ...extra });

test('a session is delivered, due or due again; the draft is for the next chat; nothing pinned says so', () => {
  assert.equal(deliveryState({ delivered: true }, 1, false), 'delivered');
  assert.equal(deliveryState({ delivered: true }, 1, true), 'due again');
  assert.equal(deliveryState({ delivered: false }, 1, true), 'due');
  assert.equal(deliveryState({ delivered: false }, 0, false), 'nothing pinned');
  assert.equal(deliveryState({ delivered: true }, 0, true), 'due again', 'the memory index changed: due again with no pin');
  assert.equal(deliveryState(undefined, 2, true), 'next chat');
  assert.equal(deliveryState(undefined, 0, false), 'nothing pinned');
});

test('the status bar says it in words, short; the tooltip and the quick pick share the headline and its sentence', () => {
  const b = block([ok('.knowledge/notes/a.md')]);
  const chat = { name: 'How do we format code in this repository?' };
  const due = statusBarWords({ session: chat, pins: 1, state: 'due again', block: b, inbox: 0 });
  assert.equal(due.text, '$(comment-discussion) How do we format code i…: 1 pinned · due again', "this chat's icon and its name, cut to 24 characters");
  assert.ok(due.text.replace(/\$\([a-z-]+\)/g, '◆').length <= 60, 'short as shown (an icon is one glyph)');
  assert.doesNotMatch(due.tooltip, /carrying/);
  const title = pickTitle({ session: chat, pins: 1, state: 'due again' });
  assert.equal(title, 'Session Knowledge — This chat — How do we format code in this repository?: 1 pinned · due again: changed since it was delivered, so the next message sends the block again');
  assert.ok(due.tooltip.includes(title.split(': ').slice(1).join(': ')), `the tooltip says what the quick pick says\n${due.tooltip}`);
  assert.match(due.label, /^Session Knowledge: 1 pinned · due again \(this chat “How do we format code in this repository\?”\), 212 of 8000 tokens$/);

  assert.equal(statusBarWords({ session: { name: 'Short' }, pins: 1, state: 'delivered', block: b, inbox: 0 }).text, '$(comment-discussion) Short: 1 pinned · delivered');
  assert.equal(statusBarWords({ session: undefined, pins: 2, state: 'next chat', block: b, inbox: 0 }).text, '$(arrow-right) Knowledge: 2 pinned · next chat');
  assert.equal(statusBarWords({ session: undefined, pins: 0, state: 'nothing pinned', block: block([]), inbox: 0 }).text, '$(arrow-right) Knowledge: nothing pinned');
});

test('withheld, missing and cut are counted in the status bar, each in its own word, and warned', () => {
  const b = block([ok('a'), { id: 'b', state: 'withheld', reason: 'reads as an instruction (x)' }, { id: 'c', state: 'unavailable', reason: 'deleted or moved' }], { budget: budget({ cutItems: ['a (partly)'], cutMemoryEntries: 2 }) });
  const w = statusBarWords({ session: undefined, pins: 3, state: 'next chat', block: b, inbox: 1 });
  assert.equal(w.text, '$(arrow-right) Knowledge: 3 pinned · next chat · 1 withheld · 1 missing · 3 cut $(warning) $(inbox) 1');
  assert.equal(w.problem, true);
  assert.match(w.tooltip, /1 withheld: it reads as an instruction and is never sent\./);
  assert.match(w.tooltip, /Cut to fit the budget: a \(partly\), 2 memory entries\./);
  assert.match(w.tooltip, /1 item waits in the memory inbox/);
  assert.equal(itemMark(b, 'a').text, 'partly cut — the rest did not fit the token budget');
  assert.equal(itemMark(b, 'b').text, 'withheld — reads as an instruction (x)');
  assert.equal(itemMark(b, 'c').text, 'missing — deleted or moved');
  assert.equal(itemMark(block([ok('d')]), 'd').text, 'in the block, in full');
});

test('footers: plurals done properly, the memory index counted, never "0 pinned item(s)" nor "no pinned item in full"', () => {
  assert.equal(deliveredFooter(block([ok('a')])), 'delivered 1 pinned item with this message.');
  assert.equal(deliveredFooter(block([ok('a'), ok('b')])), 'delivered 2 pinned items with this message.');
  assert.equal(deliveredFooter(block([], { memoryEntries: 3 })), 'delivered the memory index (3 entries) with this message.');
  assert.equal(deliveredFooter(block([ok('a')], { memoryEntries: 1 })), 'delivered 1 pinned item and the memory index (1 entry) with this message.');
  assert.equal(
    deliveredFooter(block([ok('a'), { id: 'b', state: 'withheld' }, { id: 'c', state: 'unavailable' }])),
    'delivered 1 pinned item with this message; 1 withheld, 1 missing.',
  );
  assert.equal(deliveredFooter(block([{ id: 'b', state: 'withheld' }, { id: 'c', state: 'withheld' }])), 'delivered no pinned item with this message; 2 withheld (the block names them).');
  assert.equal(deliveredFooter({ items: [ok('a'), ok('big')], budget: budget({ cutItems: ['big'] }) }), 'delivered 1 pinned item with this message; cut to fit: big.');
  for (const f of [deliveredFooter(block([], { memoryEntries: 3 })), compactedFooter(0), compactedFooter(2)]) assert.doesNotMatch(f, /\(s\)|0 pinned|in full/);
  assert.equal(compactedFooter(1), 'the conversation was compacted; the pinned knowledge was delivered again with it, with 1 pinned message.');
  assert.equal(counted(1, 'entry', 'entries'), '1 entry');
});

test('Preview says the state in the same words and marks each pin', () => {
  const lines = previewLines({ pins: ['a', 'b'], state: 'delivered', block: block([ok('a'), { id: 'b', state: 'withheld', reason: 'reads as an instruction (x)' }], { memoryEntries: 2 }) });
  assert.equal(lines[0], '2 pinned · delivered: the session carries the block, so the next message sends nothing again. An edit, a pin or unpin, or a compaction makes it due again.');
  assert.equal(lines[1], '212 of 8000 tokens; 2 pinned items; memory index: 2 entries.');
  assert.deepEqual(lines.slice(2), ['- a: in the block, in full', '- b: withheld — reads as an instruction (x)']);
});
