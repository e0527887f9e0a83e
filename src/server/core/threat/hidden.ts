/**
 * Detectors for text a person cannot see: Unicode tag characters, bidi controls, zero-width characters
 * inside words, and HTML that renders as nothing (comments, display:none and friends).
 *
 * The character detectors run on the ORIGINAL text (the characters themselves are the finding). The HTML
 * detector runs on the matching view. Each detector also returns the text it uncovered (tag characters
 * decoded to ASCII, a right-to-left-override run read in display order) so the scanner can run the rules on
 * it. Pure module.
 */

/** A run of hidden characters in the original text, with what it hides (if anything readable). */
export interface HiddenRun {
  readonly start: number;
  readonly end: number;
  /** Text uncovered by the run, to be scanned too. */
  readonly uncovered?: string;
}

const TAG_RE = /[\u{e0000}-\u{e007f}]{1,4096}/gu;
/** Explicit directional formatting characters (embeddings, overrides, isolates). LRM/RLM/ALM are fine. */
const BIDI_RE = /[\u202a-\u202e\u2066-\u2069]/g;
const RLO = 0x202e;
const BIDI_END_RE = /[\u202c\u2069\n]/g;

/** Tag-character runs; `uncovered` is the run decoded to ASCII (U+E0020–E007E map to ' '…'~'). */
export function findTagRuns(text: string): HiddenRun[] {
  const runs: HiddenRun[] = [];
  TAG_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TAG_RE.exec(text)) !== null && runs.length < 256) {
    if (isEmojiTagSequence(text, m.index, m[0])) continue;
    let decoded = '';
    for (const ch of m[0]) {
      const cp = ch.codePointAt(0)! - 0xe0000;
      if (cp >= 0x20 && cp <= 0x7e) decoded += String.fromCharCode(cp);
    }
    runs.push({ start: m.index, end: m.index + m[0].length, uncovered: decoded || undefined });
  }
  return runs;
}

/**
 * Emoji flag subdivisions (🏴 + tag letters/digits + CANCEL TAG, e.g. Scotland) are the one legitimate use
 * of tag characters: U+1F3F4 right before, 2–6 tag letters/digits, ending in U+E007F.
 */
function isEmojiTagSequence(text: string, at: number, run: string): boolean {
  if (at < 2 || text.codePointAt(at - 2) !== 0x1f3f4) return false;
  const cps = Array.from(run, (c) => c.codePointAt(0)! - 0xe0000);
  if (cps.length < 3 || cps.length > 8 || cps[cps.length - 1] !== 0x7f) return false;
  return cps.slice(0, -1).every((c) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39));
}

/**
 * Bidi control runs. For a right-to-left override (U+202E) the text it reorders (up to the matching
 * pop, a paragraph end or 2 KiB) is returned reversed, i.e. in the order a reader sees it.
 */
export function findBidiRuns(text: string): HiddenRun[] {
  const runs: HiddenRun[] = [];
  BIDI_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = BIDI_RE.exec(text)) !== null && runs.length < 256) {
    const at = m.index;
    if (text.charCodeAt(at) === RLO) {
      BIDI_END_RE.lastIndex = at + 1;
      const e = BIDI_END_RE.exec(text);
      const stop = Math.min(e ? e.index : text.length, at + 1 + 2048);
      const shown = Array.from(text.slice(at + 1, stop).replace(/[\u202a-\u202e\u2066-\u2069]/g, '')).reverse().join('');
      runs.push({ start: at, end: stop, uncovered: shown });
      BIDI_RE.lastIndex = Math.max(BIDI_RE.lastIndex, stop);
    } else {
      runs.push({ start: at, end: at + 1 });
    }
  }
  return mergeRuns(runs, 8);
}

/** Zero-width characters that have no business inside a word of a spaced script. */
// eslint-disable-next-line no-misleading-character-class -- zero-width characters are what we look for
const ZW_RE = /[\u200b\u200c\u200d\u2060\ufeff\u180e\u034f]/g;
/** Joiners (ZWNJ/ZWJ) are legitimate in Indic/Arabic scripts and emoji: only flag them between ASCII letters. */
const JOINERS = new Set([0x200c, 0x200d]);
const SPACED_LETTER = /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u;
const ASCII_LETTER = /[A-Za-z]/;

/** Zero-width characters sitting between two letters of a spaced script (Latin, Cyrillic, Greek). */
export function findZeroWidthInWords(text: string): HiddenRun[] {
  const runs: HiddenRun[] = [];
  ZW_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ZW_RE.exec(text)) !== null && runs.length < 1024) {
    const at = m.index;
    // neighbours, skipping adjacent zero-width characters
    let p = at - 1;
    while (p >= 0 && at - p < 16 && isZw(text.charCodeAt(p))) p--;
    let q = at + 1;
    while (q < text.length && q - at < 16 && isZw(text.charCodeAt(q))) q++;
    if (p < 0 || q >= text.length) continue;
    const before = text[p]!;
    const after = text[q]!;
    const letterTest = JOINERS.has(text.charCodeAt(at)) ? ASCII_LETTER : SPACED_LETTER;
    if (letterTest.test(before) && letterTest.test(after)) runs.push({ start: at, end: at + 1 });
  }
  return mergeRuns(runs, 64);
}

function isZw(c: number): boolean {
  return c === 0x200b || c === 0x200c || c === 0x200d || c === 0x2060 || c === 0xfeff || c === 0x180e || c === 0x034f;
}

/** Merges runs closer than `gap` characters (keeps diagnostics few and readable). */
function mergeRuns(runs: HiddenRun[], gap: number): HiddenRun[] {
  const out: HiddenRun[] = [];
  for (const r of runs) {
    const last = out[out.length - 1];
    if (last && r.start - last.end <= gap) {
      const uncovered = [last.uncovered, r.uncovered].filter(Boolean).join(' ') || undefined;
      out[out.length - 1] = { start: last.start, end: Math.max(last.end, r.end), uncovered };
    } else out.push(r);
  }
  return out;
}

/** An HTML construct that renders as nothing, and the span of its content (view offsets). */
export interface HiddenContainer {
  readonly start: number;
  readonly end: number;
  readonly contentStart: number;
  readonly contentEnd: number;
}

const INVISIBLE_STYLE_RE =
  /display\s{0,3}:\s{0,3}none|visibility\s{0,3}:\s{0,3}hidden|font-size\s{0,3}:\s{0,3}0(?![.\d])|opacity\s{0,3}:\s{0,3}0(?![.\d])|(?:^|[\s;"'])color\s{0,3}:\s{0,3}(?:transparent|white|#fff(?:fff)?)\b|\bhidden(?:=["']?(?:hidden|true)["']?)?(?=[\s/]|$)|aria-hidden\s{0,3}=\s{0,3}["']?true/i;

const VOID_ELEMENTS = new Set(['input', 'img', 'br', 'hr', 'meta', 'link', 'source', 'area', 'base', 'col', 'embed', 'track', 'wbr', 'param']);

/**
 * HTML comments and elements styled invisible. Linear: comments are found with indexOf, elements by
 * looking at each start tag (bounded to 512 characters) and taking the content up to the next `</`.
 */
export function findHiddenContainers(view: string): HiddenContainer[] {
  const out: HiddenContainer[] = [];
  if (view.indexOf('<') < 0) return out;
  // Comments.
  let i = 0;
  while (out.length < 128) {
    const s = view.indexOf('<!--', i);
    if (s < 0) break;
    const e = view.indexOf('-->', s + 4);
    const end = e < 0 ? view.length : e + 3;
    out.push({ start: s, end, contentStart: s + 4, contentEnd: e < 0 ? view.length : e });
    if (e < 0) break;
    i = end;
  }
  // Invisible elements.
  const TAG_RE = /<([a-z][a-z0-9-]{0,20})\b([^<>]{0,512})>/gi;
  let m: RegExpExecArray | null;
  while ((m = TAG_RE.exec(view)) !== null && out.length < 256) {
    if (!INVISIBLE_STYLE_RE.test(m[2]!)) continue;
    const cs = m.index + m[0].length;
    if (VOID_ELEMENTS.has(m[1]!.toLowerCase()) || m[2]!.endsWith('/')) {
      out.push({ start: m.index, end: cs, contentStart: cs, contentEnd: cs });
      continue;
    }
    const close = view.indexOf('</', cs);
    const ce = close < 0 ? view.length : close;
    const gt = close < 0 ? -1 : view.indexOf('>', close);
    out.push({ start: m.index, end: gt < 0 ? ce : gt + 1, contentStart: cs, contentEnd: ce });
  }
  return out;
}
