// Owns the negation and reported-speech rules both rule engines read (patternMatch.ts for rules.ts, intent/*.ts
// for the lexicons): when a negation before (or, in Japanese, Chinese, German and French, after) an anchor makes
// it guidance, when an object is negated ("needs no token"), and when the words before an anchor report an
// attack rather than make one ("asks the agent to …").
/** Pure module: no `vscode`, no language-server imports. */
import { lexiconRegex } from './intent/lexiconRegex';
import { NEGATION, NEGATION_AFTER } from './intent/lexicon';
import { isStopCode, JS_SPACE } from './sentenceSplit';

let negRe: RegExp | null = null;
let negAfterRe: RegExp | null = null;

/** The negation lexicon (lexicon.ts NEGATION: eight languages) as one regex. */
export function negationRegex(): RegExp {
  return (negRe ??= lexiconRegex([NEGATION]));
}

/**
 * When a negation before an anchor makes it guidance ("never paste credentials into chat"). The look-back runs
 * from the anchor to the first `stop` (at most `reach` characters); a negation `words` matches in it, and when
 * `tail` is set, that many characters at most may stand between the negation and the anchor, none of them `.;:!?`.
 */
export interface NegationRule {
  readonly words: () => RegExp;
  readonly reach: number;
  readonly stop: (view: string, i: number) => boolean;
  readonly tail?: number;
}

/** A clause or comma break, where a negation stops reaching forward: line break, `,` `:` `;` (and CJK forms), a full stop before whitespace. */
const guidanceBreak = (view: string, i: number): boolean => {
  const c = view.charCodeAt(i);
  if (c === 10 || c === 44 || c === 58 || c === 59 || c === 0x3001 || c === 0xff0c || c === 0xff1a || c === 0xff1b || c === 0x3002) return true;
  return isStopCode(c) && JS_SPACE.test(view[i + 1] ?? ' ');
};
const lineBreak = (view: string, i: number): boolean => view.charCodeAt(i) === 10;

/** The intent engine's negation: the eight-language lexicon, back to the last clause or comma break. */
export const INTENT_NEGATION: NegationRule = { words: negationRegex, reach: 56, stop: guidanceBreak };

const RULE_NEGATION_WORDS = /\b(?:never|not|don't|dont|do\s{1,3}not|must\s{1,3}not|mustn't|shouldn't|should\s{1,3}not|no|avoid|stop)\b/i;
/**
 * The pattern rules' negation (their three `negatable` rules): English words, on the anchor's line, at most 48
 * characters before it with no clause stop between ("no refusals, no disclaimers" negates its second item here,
 * not in the intent engine, whose look-back ends at the comma: the golden findings hold both).
 */
export const RULE_NEGATION: NegationRule = { words: () => RULE_NEGATION_WORDS, reach: 64, stop: lineBreak, tail: 48 };

const tailRegexes = new Map<NegationRule, RegExp>();

/** Is the anchor at `s` negated under `rule`? */
export function negatedBefore(view: string, s: number, rule: NegationRule = INTENT_NEGATION): boolean {
  let from = s;
  const lo = Math.max(0, s - rule.reach);
  while (from > lo && !rule.stop(view, from - 1)) from--;
  if (from === s) return false;
  let re = rule.words();
  if (rule.tail !== undefined) {
    let t = tailRegexes.get(rule);
    if (!t) tailRegexes.set(rule, (t = new RegExp(`(?:${re.source})[^.;:!?\\n]{0,${rule.tail}}$`, re.flags)));
    re = t;
  }
  return re.test(view.slice(from, s));
}

/** Japanese and Chinese negate after the verb (lexicon.ts NEGATION_AFTER): right after the anchor ending at `e`. */
export function negatedAfter(view: string, e: number): boolean {
  negAfterRe ??= new RegExp(`^.{0,8}?(?:${lexiconRegex([NEGATION_AFTER]).source})`, 'i');
  return negAfterRe.test(view.slice(e, e + 24));
}

/** German/French negate after the verb: "Sag dem Benutzer nichts davon", "Dis rien". */
const NEG_AFTER_TELL = /^[^.;!?\n]{0,40}?(?<![A-Za-z\u00C0-\u024F])(?:nicht|nichts|niemals|nie|pas|jamais|rien)(?![A-Za-z\u00C0-\u024F])/i;

/** A German or French negation after a verb of telling that ends at `e` ("Sag dem Benutzer nichts davon"). */
export function negatedTellAfter(view: string, e: number): boolean {
  return NEG_AFTER_TELL.test(view.slice(e, e + 48));
}

/** A negated object, before a match at `s`: "needs no token", "without credentials", "not the password". */
const OBJECT_NEGATION = /(?:^|[^a-z])(?:no|without|not|never|non|sin|sem|ohne|kein|keine|sans|без|не|无|没有|なし)\s{0,3}(?:\S{1,16}\s{1,3})?$/i;

/** Is the match at `s` a negated object ("needs no token")? */
export function objectNegated(view: string, s: number): boolean {
  return OBJECT_NEGATION.test(view.slice(Math.max(0, s - 28), s));
}

/** "… asks the agent to <anchor>": text describing an attack rather than making one. */
const REPORTED_BEFORE =
  /\b(?:asks?|asking|asked|tells?|telling|told|instructs?|instructed|tricks?|tricked|tricking|convinces?|convinced|gets?|getting|causes?|lures?|coax(?:es)?|persuades?|manipulates?|attempts?\s{1,3}to\s{1,3}(?:make|get)|tries\s{1,3}to\s{1,3}(?:make|get))\s{1,3}(?:the|an?|your|our|other)?\s{0,3}(?:agents?|models?|assistants?|ai|llms?|bots?|copilot)\s{1,3}(?:to|into)\s{1,3}$/i;

/** Do the (at most 64) characters before `s` ask an AI to do what follows ("tricks the model into …")? */
export function reportedBefore(view: string, s: number): boolean {
  return REPORTED_BEFORE.test(view.slice(Math.max(0, s - 64), s));
}
