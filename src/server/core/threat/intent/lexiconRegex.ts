// Owns turning the intent lexicon (lexicon.ts) into regexes: an entry's regex source (spaces, Cyrillic look-alikes,
// word-start guard), its prefilter cue (the literal it starts with, folded as textFold.ts folds text), and each
// group's compiled regex. The intent engine, its prefilter and the shared negation rules (negationRules.ts) read
// the lexicon through here only.
/** Pure module: no `vscode`, no language-server imports. */
import { CYRILLIC_LATIN, foldCode } from '../textFold';
import * as L from './lexicon';
import type { LexGroup } from './lexicon';

/** A lexicon group's name. */
export type GroupName = Exclude<keyof typeof L, 'Lang' | 'LexGroup'>;

const LATIN_OR_CYRILLIC_START = /^[A-Za-z0-9\u00C0-\u024F\u0400-\u04FF]/;

/** Regex source of one lexicon entry: spaces → bounded whitespace, Cyrillic → [cyr+latin], word-start guard. */
export function entrySource(entry: string): string {
  let body = '';
  for (let i = 0; i < entry.length; i++) {
    const ch = entry[i]!;
    if (ch === ' ') {
      if (entry[i + 1] === '?') {
        body += String.raw`\s{0,3}`;
        i++;
      } else body += String.raw`\s{1,3}`;
    } else if (ch === '\\' && i + 1 < entry.length) {
      body += ch + entry[i + 1];
      i++;
    } else {
      const f = CYRILLIC_LATIN[ch.toLowerCase()];
      body += f ? `[${ch}${f}]` : ch;
    }
  }
  return LATIN_OR_CYRILLIC_START.test(entry) ? String.raw`(?<![A-Za-z0-9_\u00C0-\u024F\u0400-\u04FF])(?:${body})` : `(?:${body})`;
}

export const entriesOf = (g: LexGroup): string[] => Object.values(g).flatMap((v) => [...(v ?? [])]);

const compiled = new Map<GroupName, RegExp>();
/** The group's regex (global, case-insensitive), compiled on first use. */
export function groupRegex(name: GroupName): RegExp {
  let re = compiled.get(name);
  if (!re) {
    re = new RegExp(entriesOf(L[name] as LexGroup).map(entrySource).join('|'), 'gi');
    compiled.set(name, re);
  }
  return re;
}

/**
 * The literal an entry starts with (folded like the prefilter folds text), or '' when the entry does not
 * start with one. Every match of the entry contains it.
 */
export function entryCue(entry: string): string {
  let out = '';
  for (let i = 0; i < entry.length; i++) {
    const ch = entry[i]!;
    const next = entry[i + 1];
    if (ch === '\\') {
      if (next !== undefined && /[.$/?()[\]{}|*+\\^'"-]/.test(next)) {
        if (entry[i + 2] === '?' || entry[i + 2] === '*' || entry[i + 2] === '{') break;
        out += next;
        i++;
        continue;
      }
      break;
    }
    if ('([.|^$'.includes(ch)) break;
    if (ch === '?' || ch === '*' || ch === '{') {
      out = out.slice(0, -1);
      break;
    }
    if (ch === '+') break;
    if (ch === ' ' && next === '?') break;
    out += ch;
  }
  let folded = '';
  for (let i = 0; i < out.length; i++) folded += String.fromCharCode(foldCode(out.charCodeAt(i)));
  return folded;
}

/** One regex over every entry of `groups` (case-insensitive), with `flags` added. */
export function lexiconRegex(groups: readonly LexGroup[], flags = ''): RegExp {
  return new RegExp(groups.flatMap(entriesOf).map(entrySource).join('|'), `i${flags}`);
}

/** Every group regex, compiled (for tests and benchmarks). */
export function allIntentPatterns(): RegExp[] {
  return (Object.keys(L) as string[]).filter((k) => typeof (L as Record<string, unknown>)[k] === 'object').map((k) => groupRegex(k as GroupName));
}
