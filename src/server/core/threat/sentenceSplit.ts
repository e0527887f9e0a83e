// Owns where text is cut into clauses, sentences and lines, for every stage that reads text in such units: both
// rule engines (patternMatch.ts for rules.ts, intent/*.ts for the lexicons) through scopeBounds, and the model's
// sentence windows (model/features.ts, keywords' fused pass), which end on the same stop characters.
/** Pure module: no `vscode`, no language-server imports. */

export type Span = readonly [number, number];

/** How far a scope reaches either side of its anchor. */
export const MAX_SCOPE = 400;

/** `.` `!` `?`: they end a sentence when whitespace (or the end) follows. */
export const isStopCode = (c: number): boolean => c === 0x2e || c === 0x21 || c === 0x3f;
/** `。` `！` `？`: they end a sentence wherever they stand. */
export const isCjkStopCode = (c: number): boolean => c === 0x3002 || c === 0xff01 || c === 0xff1f;
/** `;`: a clause stop (the model's windows end on it as on a full stop). */
export const SEMICOLON = 0x3b;

/**
 * What ends a scope. The engines differ in a few points that their findings depend on (test/unit/threatFindingsGolden.test.ts),
 * so those points are named here rather than written twice.
 */
export interface BreakRule {
  /** `.` `!` `?` end it (a line scope ends at line breaks only). */
  readonly stops: boolean;
  /** `;` ends it: anywhere (`any`), like a full stop before whitespace (`spaced`), or not at all. */
  readonly semicolon: 'any' | 'spaced' | 'none';
  /** `。！？` end it (and `；` unless `semicolon` is `none`). */
  readonly cjk: boolean;
  /** What counts as whitespace after a stop: space, tab, CR, LF (`ascii`), or a JS `\s` (`unicode`). */
  readonly space: 'ascii' | 'unicode';
  /** A line break ends it (`line`), or only a blank line (`paragraph`: `\n`, up to 8 spaces or tabs, `\n`). */
  readonly newline: 'line' | 'paragraph';
}

/** The intent engine's scopes. */
export const INTENT_CLAUSE: BreakRule = { stops: true, semicolon: 'any', cjk: true, space: 'ascii', newline: 'line' };
export const INTENT_SENTENCE: BreakRule = { stops: true, semicolon: 'none', cjk: true, space: 'ascii', newline: 'line' };
/** A line (both engines). */
export const LINE: BreakRule = { stops: false, semicolon: 'none', cjk: false, space: 'ascii', newline: 'line' };
/** The pattern rules' scopes (`sameClause`, `sameSentence` in rules.ts). */
export const RULE_CLAUSE: BreakRule = { stops: true, semicolon: 'spaced', cjk: false, space: 'unicode', newline: 'line' };
export const RULE_SENTENCE: BreakRule = { stops: true, semicolon: 'none', cjk: false, space: 'unicode', newline: 'paragraph' };

/** Whitespace as a JS regex `\s` reads it. */
export const JS_SPACE = /\s/;

/** Does the character at `i` end a scope under `r`? */
export function breakAt(text: string, i: number, r: BreakRule): boolean {
  const re = breakRegex(r, true);
  re.lastIndex = i;
  return re.test(text);
}

const breakRegexes = new Map<BreakRule, RegExp>();
const stickyRegexes = new Map<BreakRule, RegExp>();

/**
 * The breaks of `r` as one regex, global (to search) or sticky (to test one position). Every alternative matches
 * one character, so a search from any position finds the next break; the engine's native search is several
 * times faster than a loop over the characters.
 */
function breakRegex(r: BreakRule, sticky = false): RegExp {
  const cache = sticky ? stickyRegexes : breakRegexes;
  let re = cache.get(r);
  if (!re) {
    const space = r.space === 'ascii' ? '[ \\n\\t\\r]' : '\\s';
    const alts = [r.newline === 'line' ? '\\n' : '\\n(?=[ \\t]{0,8}\\n)'];
    if (r.stops) {
      alts.push(`[.!?${r.semicolon === 'spaced' ? ';' : ''}](?=${space}|$)`);
      if (r.semicolon === 'any') alts.push(';');
      if (r.cjk) alts.push(`[\\u3002\\uff01\\uff1f${r.semicolon === 'none' ? '' : '\\uff1b'}]`);
    }
    re = new RegExp(alts.join('|'), sticky ? 'y' : 'g');
    cache.set(r, re);
  }
  return re;
}

/** Where the scope holding `[s, e)` starts: after the last break before `s`, at most `reach` back. */
export function scopeStart(text: string, s: number, r: BreakRule, reach = MAX_SCOPE): number {
  const lo = Math.max(0, s - reach);
  if (r === LINE) return s > 0 ? Math.max(lo, text.lastIndexOf('\n', s - 1) + 1) : 0;
  const re = breakRegex(r);
  re.lastIndex = lo;
  let from = lo;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null && m.index < s) from = m.index + 1;
  return from;
}

/** Where the scope holding `[s, e)` ends: at the first break from `e` on, at most `reach` on. */
export function scopeEnd(text: string, e: number, r: BreakRule, reach = MAX_SCOPE): number {
  const hi = Math.min(text.length, e + reach);
  if (r === LINE) {
    const n = text.indexOf('\n', e);
    return n < 0 ? hi : Math.min(n, hi);
  }
  const re = breakRegex(r);
  re.lastIndex = e;
  const m = re.exec(text);
  return m && m.index < hi ? m.index : hi;
}

/** Bounds of the scope (clause, sentence, line) holding `[s, e)`, at most `reach` either side. */
export function scopeBounds(text: string, s: number, e: number, r: BreakRule, reach = MAX_SCOPE): Span {
  return [scopeStart(text, s, r, reach), scopeEnd(text, e, r, reach)];
}

