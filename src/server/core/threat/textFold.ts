// Owns how the threat scanner folds text, in one place: the look-alike table the matching view applies
// (normalize.ts), the per-code-unit fold the intent prefilter and its cues share (case, Cyrillic look-alikes,
// whitespace), and the lowercasing the learned stage's features read (model/*, keywords.ts). Each fold is a
// strict subset of the one above it, so the stages agree on what a letter is.
/** Pure module: no `vscode`, no language-server imports. */

/** Look-alike letters folded to ASCII in the matching view (subset of Unicode confusables, 1:1 only). */
export const HOMOGLYPHS: Readonly<Record<string, string>> = {
  // Cyrillic lower / upper
  'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x',
  'ѕ': 's', 'і': 'i', 'ј': 'j', 'ԁ': 'd', 'һ': 'h', 'ӏ': 'l', 'ԛ': 'q', 'ԝ': 'w', 'ь': 'b',
  'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X',
  'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ү': 'Y',
  // Greek
  'α': 'a', 'ο': 'o', 'ν': 'v', 'ρ': 'p', 'τ': 't', 'ι': 'i', 'κ': 'k', 'υ': 'u', 'ε': 'e',
  'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P',
  'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
  // Latin look-alikes outside ASCII that NFKC keeps
  'ı': 'i', 'ɡ': 'g', 'ɑ': 'a', 'ꓲ': 'I',
  // typographic quotes and dashes, so quote- and hyphen-sensitive rules see one form
  '\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"', '\u2010': '-', '\u2011': '-',
};

/**
 * The basic lowercase Cyrillic letters (а..я) the view folds to Latin: the part of {@link HOMOGLYPHS} the intent
 * lexicon's Cyrillic entries are written against (an entry's `о` must also match the view's `o`).
 */
export const CYRILLIC_LATIN: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(HOMOGLYPHS).filter(([k]) => k.charCodeAt(0) >= 0x430 && k.charCodeAt(0) <= 0x44f),
);
const CYRILLIC_LATIN_CODES = (() => {
  const a = new Uint16Array(32);
  for (const [k, v] of Object.entries(CYRILLIC_LATIN)) a[k.charCodeAt(0) - 0x430] = v.charCodeAt(0);
  return a;
})();

/** ASCII `A`–`Z` to lowercase; every other code unit as it is. */
export const lowerAscii = (c: number): number => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);

/** Whitespace the cue fold reads as one space: ASCII `\t`–`\r`, NBSP and the Unicode space separators. */
export const isFoldSpace = (c: number): boolean =>
  (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;

/**
 * The cue fold of one UTF-16 code unit: ASCII and Latin-1 case, Cyrillic case then its Latin look-alike
 * ({@link CYRILLIC_LATIN}), whitespace to a space. The intent prefilter folds text and its cues with it.
 */
export function foldCode(c: number): number {
  if (c < 128) {
    if (c >= 65 && c <= 90) return c + 32;
    if (c >= 9 && c <= 13) return 32;
    return c;
  }
  if (c >= 0xc0 && c <= 0xde && c !== 0xd7) return c + 32;
  if (c >= 0x410 && c <= 0x42f) c += 32;
  else if (c === 0x401) c = 0x451;
  if (c >= 0x430 && c <= 0x44f) {
    const f = CYRILLIC_LATIN_CODES[c - 0x430]!;
    return f || c;
  }
  return isFoldSpace(c) ? 32 : c;
}

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Lowercases without changing offsets (a few characters lowercase to two code units: keep those as they are).
 * ASCII text is returned as it is: the feature pass folds ASCII letters itself ({@link lowerAscii}).
 */
export function lowerSameLength(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text;
}
