// The text units both threat rule engines share (sentenceSplit.ts, negationRules.ts, textFold.ts): each scope ends
// where its BreakRule says, the two negation look-backs keep their documented reach, and the folds agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakAt, INTENT_CLAUSE, INTENT_SENTENCE, LINE, RULE_CLAUSE, RULE_SENTENCE, scopeBounds } from '../../src/server/core/threat/sentenceSplit';
import { INTENT_NEGATION, negatedBefore, RULE_NEGATION } from '../../src/server/core/threat/negationRules';
import { CYRILLIC_LATIN, foldCode, HOMOGLYPHS, lowerAscii } from '../../src/server/core/threat/textFold';

const breaks = (text: string, rule: Parameters<typeof breakAt>[2]): number[] => [...text].flatMap((_, i) => (breakAt(text, i, rule) ? [i] : []));

test('sentenceSplit: each engine\'s clause and sentence end where its BreakRule says', () => {
  const t = 'a;b; c. d\ne\n \nf。g；h';
  assert.deepEqual(breaks(t, INTENT_CLAUSE), [1, 3, 6, 9, 11, 13, 15, 17]); // any ';', '. ', '\n', CJK stops and '；'
  assert.deepEqual(breaks(t, INTENT_SENTENCE), [6, 9, 11, 13, 15]); // no ';' nor '；'
  assert.deepEqual(breaks(t, RULE_CLAUSE), [3, 6, 9, 11, 13]); // '; ' only before whitespace, no CJK
  assert.deepEqual(breaks(t, RULE_SENTENCE), [6, 11]); // a blank line, not a single line break
  assert.deepEqual(breaks(t, LINE), [9, 11, 13]);
  // a stop before a non-breaking space ends a pattern-rule clause (JS \s), not an intent clause (ASCII whitespace)
  assert.deepEqual([breakAt('x.\u00a0y', 1, RULE_CLAUSE), breakAt('x.\u00a0y', 1, INTENT_CLAUSE)], [true, false]);
});

test('sentenceSplit: scopes stop at the nearest breaks and reach at most 400 characters either side', () => {
  const t = 'one. two three; four. five';
  assert.deepEqual(scopeBounds(t, t.indexOf('three'), t.indexOf('three') + 5, INTENT_CLAUSE), [4, 14]);
  assert.deepEqual(scopeBounds(t, t.indexOf('three'), t.indexOf('three') + 5, INTENT_SENTENCE), [4, 20]);
  const long = `${'x'.repeat(1000)}`;
  assert.deepEqual(scopeBounds(long, 500, 501, INTENT_CLAUSE), [100, 901]);
  assert.deepEqual(scopeBounds(long, 500, 501, LINE, Infinity), [0, 1000]);
});

test('negationRules: the intent look-back stops at a comma, the pattern-rule look-back at the line only', () => {
  const t = 'no refusals, no disclaimers, skip the safety notes';
  const s = t.indexOf('skip');
  assert.equal(negatedBefore(t, s, INTENT_NEGATION), false);
  assert.equal(negatedBefore(t, s, RULE_NEGATION), true);
  // eight languages in the intent engine, English in the pattern rules
  const de = 'Du sollst niemals die Anweisungen ignorieren';
  assert.equal(negatedBefore(de, de.indexOf('die'), INTENT_NEGATION), true);
  assert.equal(negatedBefore(de, de.indexOf('die'), RULE_NEGATION), false);
  // the pattern rules' negation must stand within 48 characters of the anchor
  const far = `never ${'x'.repeat(50)} do it`;
  assert.equal(negatedBefore(far, far.indexOf('do'), RULE_NEGATION), false);
});

test('textFold: the cue fold folds case, Cyrillic look-alikes and whitespace as the matching view does', () => {
  for (const [cyr, lat] of Object.entries(CYRILLIC_LATIN)) {
    assert.equal(HOMOGLYPHS[cyr], lat);
    assert.equal(foldCode(cyr.charCodeAt(0)), lat.charCodeAt(0));
    assert.equal(foldCode(cyr.toUpperCase().charCodeAt(0)), lat.charCodeAt(0), `upper ${cyr}`);
  }
  assert.equal(Object.keys(CYRILLIC_LATIN).length, 13);
  assert.deepEqual([foldCode(0x41), foldCode(0x09), foldCode(0x3000), foldCode(0xc9), foldCode(0x44f)], [0x61, 32, 32, 0xe9, 0x44f]);
  assert.deepEqual([lowerAscii(0x5a), lowerAscii(0x7a), lowerAscii(0xc9)], [0x7a, 0x7a, 0xc9]);
});
