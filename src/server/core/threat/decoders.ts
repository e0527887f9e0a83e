/**
 * Finds encoded runs (base64, hex bytes, `\xNN` / `\uNNNN` escapes, percent-encoding) and decodes the ones
 * that decode to readable text, so the scanner can run the rules on what they say.
 *
 * Every pattern is a bounded character-class run (no nested quantifiers), so finding runs is linear.
 * Pure module.
 */

export type Encoding = 'base64' | 'hex' | 'escape' | 'percent';

export interface DecodedRun {
  readonly encoding: Encoding;
  /** Span of the encoded run in the scanned text. */
  readonly start: number;
  readonly end: number;
  /** The decoded text (readable by construction). */
  readonly decoded: string;
}

/** Upper bound on encoded characters decoded per run. */
const MAX_RUN = 16384;

const DETECTORS: ReadonlyArray<{ encoding: Encoding; re: RegExp; decode: (run: string) => Buffer | null }> = [
  {
    encoding: 'escape',
    re: /(?:\\x[0-9a-f]{2}){6,4096}|(?:\\u00[0-9a-f]{2}){6,4096}/gi,
    decode: (run) => Buffer.from(run.replace(/\\x|\\u00/gi, ''), 'hex'),
  },
  {
    encoding: 'percent',
    re: /(?:%[0-9a-f]{2}[^%\s]{0,3}){8,4096}/gi,
    decode: (run) => {
      try {
        return Buffer.from(decodeURIComponent(run), 'utf8');
      } catch {
        return null;
      }
    },
  },
  {
    encoding: 'hex',
    // space/colon/comma separated bytes, or a continuous even-length run
    re: /\b[0-9a-f]{2}(?:[ :,-][0-9a-f]{2}){7,4096}\b|\b(?:[0-9a-f]{2}){12,8192}\b/gi,
    decode: (run) => {
      const hex = run.replace(/[ :,-]/g, '');
      return hex.length % 2 === 0 ? Buffer.from(hex, 'hex') : null;
    },
  },
  {
    encoding: 'base64',
    re: /[A-Za-z0-9+/_-]{20,16384}={0,2}/g,
    decode: (run) => {
      // Needs the look of base64: mixed case and not a plain word/identifier/path.
      if (!/[A-Z]/.test(run) || !/[a-z]/.test(run)) return null;
      if (/^[A-Za-z]+$/.test(run)) return null;
      const b64 = run.replace(/-/g, '+').replace(/_/g, '/');
      return Buffer.from(b64.slice(0, MAX_RUN), 'base64');
    },
  },
];

/** True when decoded bytes read as text: valid-ish UTF-8, ≥ 90% printable, with ≥ 30% letters. */
export function readableText(buf: Buffer): string | null {
  if (buf.length < 8) return null;
  const s = buf.toString('utf8');
  let printable = 0;
  let letters = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0xfffd) continue;
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09 || c >= 0xa0) printable++;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letters++;
  }
  if (printable < s.length * 0.9 || letters < s.length * 0.3) return null;
  return s;
}

/**
 * Encoded runs in `text` that decode to readable text, in text order; at most `limit`. `encodings` limits
 * the search to those encodings (the scanner passes the ones whose characters occur in the text).
 */
export function findDecodedRuns(text: string, limit = 32, encodings?: readonly Encoding[]): DecodedRun[] {
  const out: DecodedRun[] = [];
  const taken: Array<[number, number]> = [];
  for (const { encoding, re, decode } of DETECTORS) {
    if (encodings && !encodings.includes(encoding)) continue;
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null && out.length < limit) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue; // already decoded as another encoding
      const buf = decode(m[0].slice(0, MAX_RUN));
      const decoded = buf ? readableText(buf) : null;
      if (decoded === null) continue;
      taken.push([start, end]);
      out.push({ encoding, start, end, decoded });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}
