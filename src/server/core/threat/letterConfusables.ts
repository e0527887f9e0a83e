/**
 * Letters a reader (or a model) takes for the Latin letters of our envelope markers' names (`knowledge`,
 * `untrusted`, `begin`, `end`: b d e g i k l n o r s t u w): the envelope gate's skeleton folds them to those
 * letters, so `‹/ᴋɴᴏᴡʟᴇᴅɢᴇ-ᴜɴᴛʀᴜꜱᴛᴇᴅ>` or the Lisu `ꓰꓠꓓ_ꓴꓠꓔꓣꓴꓢꓔꓰꓓ_…` read as the names they imitate.
 *
 * Origin of the table (checked by hand, no network at build time):
 * - every entry of Unicode's confusables.txt 10.0.0 whose prototype is one of those letters (either case) and
 *   that NFKC does not already fold to ASCII, read from the table Luau derives from it (Ast/src/Confusables.cpp):
 *   Greek, Cyrillic, Armenian, Cherokee, Lisu, Canadian syllabics, runic, Coptic, Old Italic, Carian, Lycian,
 *   Warang Citi, Miao, mathematical Greek, digits of other scripts read as `o`, …;
 * - added by hand, where confusables.txt maps to a non-ASCII prototype or nowhere: the Latin small capitals
 *   (ʙ ᴅ ᴇ ɢ ɪ ᴋ ʟ ɴ ᴏ ʀ ꜱ ᴛ ᴜ ᴡ), and Greek/Cyrillic/Armenian/Cherokee/Coptic letters of the same shapes
 *   (β в ε е Є κ к ќ қ η п ո ռ о ο σ г т τ ս υ ω ԝ ѡ ա Ꭰ Ꭱ Ꭲ Ꭼ Ꮐ Ꮟ Ꮢ Ꮥ Ꮪ Ꮶ Ꮮ Ⲕ Ⲛ Ⲟ Ⲧ …), and the barred
 *   O shapes Θ ϴ Ѳ ѳ Ꮎ read as `o`.
 * Lookups try the character and its other case, so Cherokee and Coptic small letters fold with their capitals.
 * Mathematical, enclosed, fullwidth and other compatibility forms of ASCII letters need no entry: matching runs on
 * the NFKC view (normalize.ts). `i` and `l` are one class for the skeleton (confusables.txt maps `I`, `1`, `|`
 * and many others to `l`). Pure module.
 */

/** Look-alikes of each letter (one string of code points per letter). */
export const LETTER_CONFUSABLES: Readonly<Record<string, string>> = {
  b: '\u0184\u0299\u0392\u03b2\u0412\u042c\u0432\u13cf\u13f4\u15af\u15f7\ua4d0\ua7b4\u{10282}\u{102a1}\u{10301}\u{1d6a9}\u{1d6e3}\u{1d71d}\u{1d757}\u{1d791}', // Ƅ ʙ Β β В Ь в Ꮟ Ᏼ ᖯ ᗷ ꓐ Ꞵ 𐊂 𐊡 𐌁 𝚩 𝛣 𝜝 𝝗 𝞑
  d: '\u0500\u0501\u13a0\u13e7\u146f\u15de\u15ea\u1d05\ua4d2\ua4d3', // Ԁ ԁ Ꭰ Ꮷ ᑯ ᗞ ᗪ ᴅ ꓒ ꓓ
  e: '\u0395\u03b5\u0404\u0415\u0435\u04bd\u13ac\u1d07\u212e\u22ff\u2c88\u2c89\u2d39\ua4f0\uab32\u{10286}\u{118a6}\u{118ae}\u{1d6ac}\u{1d6e6}\u{1d720}\u{1d75a}\u{1d794}', // Ε ε Є Е е ҽ Ꭼ ᴇ ℮ ⋿ Ⲉ ⲉ ⴹ ꓰ ꬲ 𐊆 𑢦 𑢮 𝚬 𝛦 𝜠 𝝚 𝞔
  g: '\u018d\u0261\u0262\u050c\u0581\u13c0\u13f3\u1d83\ua4d6', // ƍ ɡ ɢ Ԍ ց Ꮐ Ᏻ ᶃ ꓖ
  i: '\u0131\u0269\u026a\u037a\u03b9\u0456\u04cf\u13a5\u1fbe\u2373\ua647\uab75\u{118c3}\u{1d6a4}\u{1d6ca}\u{1d704}\u{1d73e}\u{1d778}\u{1d7b2}', // ı ɩ ɪ ͺ ι і ӏ Ꭵ ι ⍳ ꙇ ꭵ 𑣃 𝚤 𝛊 𝜄 𝜾 𝝸 𝞲
  k: '\u039a\u03ba\u03f0\u041a\u043a\u045c\u049b\u049d\u13e6\u16d5\u1d0b\u2c94\u2c95\ua4d7\u{10518}\u{1d6b1}\u{1d6eb}\u{1d725}\u{1d75f}\u{1d799}', // Κ κ ϰ К к ќ қ ҝ Ꮶ ᛕ ᴋ Ⲕ ⲕ ꓗ 𐔘 𝚱 𝛫 𝜥 𝝟 𝞙
  l: '\u0196\u01c0\u029f\u0399\u0406\u04c0\u05c0\u05d5\u05df\u0627\u0661\u06f1\u07ca\u13de\u14aa\u16c1\u2223\u23fd\u2c92\u2c93\u2cd0\u2d4f\ua4e1\ua4f2\ufe8d\ufe8e\uffe8\u{1028a}\u{10309}\u{10320}\u{1041b}\u{10526}\u{118a3}\u{118b2}\u{16f16}\u{16f28}\u{1d22a}\u{1d6b0}\u{1d6ea}\u{1d724}\u{1d75e}\u{1d798}\u{1e8c7}\u{1ee00}\u{1ee80}', // Ɩ ǀ ʟ Ι І Ӏ ׀ ו ן ا ١ ۱ ߊ Ꮮ ᒪ ᛁ ∣ ⏽ Ⲓ ⲓ Ⳑ ⵏ ꓡ ꓲ ﺍ ﺎ ￨ 𐊊 𐌉 𐌠 𐐛 𐔦 𑢣 𑢲 𖼖 𖼨 𝈪 𝚰 𝛪 𝜤 𝝞 𝞘 𞣇 𞸀 𞺀
  n: '\u0274\u039d\u03b7\u043f\u0578\u057c\u1d0e\u2c9a\u2c9b\ua4e0\u{10513}\u{1d6b4}\u{1d6ee}\u{1d728}\u{1d762}\u{1d79c}', // ɴ Ν η п ո ռ ᴎ Ⲛ ⲛ ꓠ 𐔓 𝚴 𝛮 𝜨 𝝢 𝞜
  o: '\u039f\u03bf\u03c3\u041e\u043e\u0555\u0585\u05e1\u0647\u0665\u06be\u06c1\u06d5\u06f5\u07c0\u0966\u09e6\u0a66\u0ae6\u0b20\u0b66\u0be6\u0c02\u0c66\u0c82\u0ce6\u0d02\u0d20\u0d66\u0d82\u0e50\u0ed0\u101d\u1040\u10ff\u12d0\u1d0f\u1d11\u2c9e\u2c9f\u2d54\u3007\ua4f3\uab3d\ufba6\ufba7\ufba8\ufba9\ufbaa\ufbab\ufbac\ufbad\ufee9\ufeea\ufeeb\ufeec\u{10292}\u{102ab}\u{10404}\u{1042c}\u{104c2}\u{104ea}\u{10516}\u{114d0}\u{118b5}\u{118c8}\u{118d7}\u{118e0}\u{1d6b6}\u{1d6d0}\u{1d6d4}\u{1d6f0}\u{1d70a}\u{1d70e}\u{1d72a}\u{1d744}\u{1d748}\u{1d764}\u{1d77e}\u{1d782}\u{1d79e}\u{1d7b8}\u{1d7bc}\u{1ee24}\u{1ee64}\u{1ee84}\u0398\u03f4\u0472\u0473\u13be', // Ο ο σ О о Օ օ ס ه ٥ ھ ہ ە ۵ ߀ ० ০ ੦ ૦ ଠ ୦ ௦ ం ౦ ಂ ೦ ം ഠ ൦ ං ๐ ໐ ဝ ၀ ჿ ዐ ᴏ ᴑ Ⲟ ⲟ ⵔ 〇 ꓳ ꬽ ﮦ ﮧ ﮨ ﮩ ﮪ ﮫ ﮬ ﮭ ﻩ ﻪ ﻫ ﻬ 𐊒 𐊫 𐐄 𐐬 𐓂 𐓪 𐔖 𑓐 𑢵 𑣈 𑣗 𑣠 𝚶 𝛐 𝛔 𝛰 𝜊 𝜎 𝜪 𝝄 𝝈 𝝤 𝝾 𝞂 𝞞 𝞸 𝞼 𞸤 𞹤 𞺄
  r: '\u01a6\u0280\u0433\u13a1\u13d2\u1587\u1d26\u2c85\ua4e3\uab47\uab48\uab81\u{104b4}\u{16f35}\u{1d216}', // Ʀ ʀ г Ꭱ Ꮢ ᖇ ᴦ ⲅ ꓣ ꭇ ꭈ ꮁ 𐒴 𖼵 𝈖
  s: '\u01bd\u0405\u0455\u054f\u13d5\u13da\ua4e2\ua731\uabaa\u{10296}\u{10420}\u{10448}\u{118c1}\u{16f3a}', // ƽ Ѕ ѕ Տ Ꮥ Ꮪ ꓢ ꜱ ꮪ 𐊖 𐐠 𐑈 𑣁 𖼺
  t: '\u03a4\u03c4\u0422\u0442\u13a2\u1d1b\u22a4\u27d9\u2ca6\u2ca7\ua4d4\u{10297}\u{102b1}\u{10315}\u{118bc}\u{16f0a}\u{1d6bb}\u{1d6f5}\u{1d72f}\u{1d769}\u{1d7a3}\u{1f768}', // Τ τ Т т Ꭲ ᴛ ⊤ ⟙ Ⲧ ⲧ ꓔ 𐊗 𐊱 𐌕 𑢼 𖼊 𝚻 𝛵 𝜯 𝝩 𝞣 🝨
  u: '\u028b\u03c5\u054d\u057d\u1200\u144c\u1d1c\u222a\u22c3\ua4f4\ua79f\uab4e\uab52\u{104ce}\u{104f6}\u{118b8}\u{118d8}\u{16f42}\u{1d6d6}\u{1d710}\u{1d74a}\u{1d784}\u{1d7be}', // ʋ υ Ս ս ሀ ᑌ ᴜ ∪ ⋃ ꓴ ꞟ ꭎ ꭒ 𐓎 𐓶 𑢸 𑣘 𖽂 𝛖 𝜐 𝝊 𝞄 𝞾
  w: '\u026f\u03c9\u0461\u051c\u051d\u0561\u13b3\u13d4\u1d21\ua4ea\uab83\u{1170a}\u{1170e}\u{1170f}\u{118e6}\u{118ef}', // ɯ ω ѡ Ԝ ԝ ա Ꮃ Ꮤ ᴡ ꓪ ꮃ 𑜊 𑜎 𑜏 𑣦 𑣯
};

const LETTER_OF = new Map<string, string>();
for (const [letter, chars] of Object.entries(LETTER_CONFUSABLES)) for (const ch of chars) LETTER_OF.set(ch, letter);

/** The marker-name letter `ch` (one code point) is read as, or undefined. */
export function letterOf(ch: string): string | undefined {
  return LETTER_OF.get(ch) ?? LETTER_OF.get(ch.toUpperCase()) ?? LETTER_OF.get(ch.toLowerCase());
}

/** A regex character class (source, for a `u` regex) of `letter` and every look-alike of it. */
export function letterClass(letter: string): string {
  return `[${letter}${letter.toUpperCase()}${LETTER_CONFUSABLES[letter] ?? ''}]`;
}
