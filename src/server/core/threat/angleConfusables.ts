/**
 * Characters a reader (or a model) can take for `<` or `>`: the envelope gate folds them to angle brackets before
 * it looks for a marker, and the scanner's closer check does the same, so `❮/knowledge-untrusted❯` is a closer.
 *
 * Origin of the table (checked by hand, no network at build time):
 * - every entry of Unicode's confusables.txt whose prototype is `<`, `<<`, `<<<`, `>`, `>>`, `>>>` or `><`
 *   (U+02C2/02C3, 1433, 1438, 16B2, 2039/203A, 226A/226B, 22D8/22D9, 276E/276F, 2A20, 2AA5, 16F3F, 1D236/1D237),
 *   read from the table Luau derives from confusables.txt 10.0.0 (Ast/src/Confusables.cpp);
 * - the forms NFKC folds to `<`/`>` (U+FE64/FE65, FF1C/FF1E) and the negated `≮ ≯` (NFD: `<`/`>` + U+0338);
 * - angle brackets and quotation marks that confusables.txt maps to each other rather than to `<`/`>`, which
 *   still read as a tag bracket: `⟨ ⟩ 〈 〉 〈 〉 ⧼ ⧽ 《 》 ⟪ ⟫ « » ❬ ❭ ❰ ❱ ⦉ ⦊ ⦑ ⦒ ≺ ≻ ⋖ ⋗ ⪡ ⪢ ⫷ ⫸ ⊲ ⊳ ◁ ▷ ◀ ▶`
 *   (their vertical presentation forms, U+FE3F/FE40 and FE3D/FE3E, are NFKC of these and fold with them);
 * - the other arrowheads, less-than/greater-than signs and pointing shapes a reader takes for a tag bracket
 *   (found delivered unescaped by a security test, then their family completed by hand from the code charts):
 *   `˱ ˲ ⪦ ⪧ ⧀ ⧁ ⩹ ⩺ ≤ ≥ ≦ ≧ ≨ ≩ ≲ ≳ ≰ ≱ ⩽ ⩾ ⋜ ⋝ ≼ ≽ ⊰ ⊱ ᐊ ᐅ ᐋ ᐆ ᚛ ᚜ 〔 〕 〘 〙 ❲ ❳ ⦗ ⦘ ⟬ ⟭ ⦓ ⦔ ⦕ ⦖`
 *   `◃ ▹ ◅ ▻ ◂ ▸ ◄ ► ⊴ ⊵ ⋪ ⋫ ⧏ ⧐ ⯇ ⯈ ⏴ ⏵ ⮜ ⮞` `【 】 〖 〗` (and the presentation forms ︹ ︺ ﹝ ﹞ ︻ ︼ ︗ ︘, whose NFKC are among these). Plain arrows (`← →`) are not
 *   in the table: they read as arrows, not as brackets. Folding `≤ ≥` costs ordinary text nothing: the gate
 *   escapes only marker-like runs, and the closer rule needs a marker name between the brackets.
 * Matching always runs on the NFKC view (`normalize.ts`), so compatibility forms of any of these fold too.
 *
 * The envelope's escape glyphs (`[` and `]`, see envelope.ts) are deliberately none of these. Pure module.
 */

/** Every character read as `<` (one UTF-16 string per code point). */
export const LT_CONFUSABLES: readonly string[] = [
  '<', '\uff1c', '\ufe64', '\u226e', '\u02c2', '\u1438', '\u16b2', '\u2039', '\u276e', '\u{1d236}', '\u226a', '\u22d8', '\u2aa5',
  '\u27e8', '\u2329', '\u3008', '\u29fc', '\u300a', '\u27ea', '\u00ab', '\u276c', '\u2770', '\u2989', '\u2991', '\u227a', '\u22d6',
  '\u2aa1', '\u2af7', '\u22b2', '\u25c1', '\u25c0', '\ufe3f', '\ufe3d',
  // The shapes of the same family (see the header): arrowheads, curved/circled/equal-to less-than signs,
  // tortoise shells, syllabics, Ogham feather marks, pointers and small triangles.
  '\u02f1', '\u2aa6', '\u29c0', '\u2264', '\u2266', '\u2268', '\u2272', '\u2270', '\u2a7d', '\u22dc', '\u140a',
  '\u140b', '\u169b', '\u3014', '\u3018', '\u2772', '\u2997', '\u27ec', '\u2993', '\u2995', '\u25c3', '\u25c5',
  '\u25c2', '\u25c4', '\u22b4', '\u22ea', '\u2bc7', '\u23f4', '\u2b9c', '\u227c', '\u22b0', '\u2a79', '\u29cf',
  '\ufe39', '\ufe5d', '\u3010', '\u3016', '\ufe3b', '\ufe17',
];

/** Every character read as `>`. */
export const GT_CONFUSABLES: readonly string[] = [
  '>', '\uff1e', '\ufe65', '\u226f', '\u02c3', '\u1433', '\u203a', '\u276f', '\u{1d237}', '\u{16f3f}', '\u226b', '\u22d9', '\u2a20',
  '\u27e9', '\u232a', '\u3009', '\u29fd', '\u300b', '\u27eb', '\u00bb', '\u276d', '\u2771', '\u298a', '\u2992', '\u227b', '\u22d7',
  '\u2aa2', '\u2af8', '\u22b3', '\u25b7', '\u25b6', '\ufe40', '\ufe3e',
  '\u02f2', '\u2aa7', '\u29c1', '\u2265', '\u2267', '\u2269', '\u2273', '\u2271', '\u2a7e', '\u22dd', '\u1405',
  '\u1406', '\u169c', '\u3015', '\u3019', '\u2773', '\u2998', '\u27ed', '\u2994', '\u2996', '\u25b9', '\u25bb',
  '\u25b8', '\u25ba', '\u22b5', '\u22eb', '\u2bc8', '\u23f5', '\u2b9e', '\u227d', '\u22b1', '\u2a7a', '\u29d0',
  '\ufe3a', '\ufe5e', '\u3011', '\u3017', '\ufe3c', '\ufe18',
];

const LT_SET = new Set(LT_CONFUSABLES);
const GT_SET = new Set(GT_CONFUSABLES);

/** `<` or `>` for a character (a whole code point) read as one, else undefined. */
export function angleOf(ch: string): '<' | '>' | undefined {
  return LT_SET.has(ch) ? '<' : GT_SET.has(ch) ? '>' : undefined;
}

/** A regex character class (source, for a `u` regex) matching every character read as `<` or `>` (none needs escaping in a class). */
export const ANGLE_CLASS = `[${LT_CONFUSABLES.join('')}${GT_CONFUSABLES.join('')}]`;

/** Matches any character read as `<` or `>`. */
export const ANGLE_LIKE_RE = new RegExp(ANGLE_CLASS, 'u');
export const ANGLE_LIKE_GLOBAL_RE = new RegExp(ANGLE_CLASS, 'gu');
