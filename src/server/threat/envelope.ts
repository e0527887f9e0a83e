/**
 * The untrusted-data envelope that wraps stored knowledge before it reaches a model.
 *
 * The block compiler writes {@link ENVELOPE_OPEN} … {@link ENVELOPE_CLOSE} (an XML-style tag pair) and,
 * inside it, {@link ENVELOPE_BEGIN_SENTINEL} … {@link ENVELOPE_END_SENTINEL} (a sentinel pair for models that
 * ignore tags). Stored text must never be able to close either: the scanner flags any closing marker
 * (rule `forged.envelope-close`), and the compiler passes every stored body through
 * {@link escapeEnvelopeMarkers} before it wraps it, so even an unflagged look-alike cannot end the envelope.
 *
 * Pure module: no `vscode`, no language-server imports.
 */

/** Opening tag of the envelope. */
export const ENVELOPE_TAG = 'knowledge-untrusted';
export const ENVELOPE_OPEN = `<${ENVELOPE_TAG}>`;
export const ENVELOPE_CLOSE = `</${ENVELOPE_TAG}>`;
/** Sentinel lines just inside the tags. */
export const ENVELOPE_BEGIN_SENTINEL = '<<<BEGIN_UNTRUSTED_KNOWLEDGE>>>';
export const ENVELOPE_END_SENTINEL = '<<<END_UNTRUSTED_KNOWLEDGE>>>';

/** Every marker string the compiler emits, in the order they appear in a block. */
export const ENVELOPE_MARKERS: readonly string[] = [ENVELOPE_OPEN, ENVELOPE_BEGIN_SENTINEL, ENVELOPE_END_SENTINEL, ENVELOPE_CLOSE];

/**
 * Matches anything that could be read as one of our markers: the tag with any case, inner whitespace or
 * `_`/`-` spelling (`</ Knowledge_Untrusted >`), and the sentinels with any case and 2+ angle brackets.
 * Bounded quantifiers only.
 */
const MARKER_LIKE =
  /<\s{0,4}\/?\s{0,4}knowledge[\s_-]{0,3}untrusted\s{0,4}>|<{2,8}\s{0,4}(?:BEGIN|END)[\s_-]{0,3}UNTRUSTED[\s_-]{0,3}KNOWLEDGE\s{0,4}>{0,8}/gi;

/** True when `text` contains something a model could read as one of our envelope markers. */
export function containsEnvelopeMarker(text: string): boolean {
  MARKER_LIKE.lastIndex = 0;
  return MARKER_LIKE.test(text);
}

/**
 * Makes stored text safe to place inside the envelope: every marker-like run has its angle brackets
 * replaced by the look-alike `‹`/`›` (U+2039/U+203A), so the text stays readable but can no longer
 * close (or re-open) the envelope. Text without markers is returned unchanged (same string).
 */
export function escapeEnvelopeMarkers(text: string): string {
  if (!text.includes('<')) return text;
  MARKER_LIKE.lastIndex = 0;
  return text.replace(MARKER_LIKE, (m) => m.replace(/</g, '\u2039').replace(/>/g, '\u203a'));
}
