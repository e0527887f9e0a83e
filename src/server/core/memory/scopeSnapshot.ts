/**
 * Owns the snapshot of one memory file: its parsed, validated entries and the shape of its lines, so that a restart
 * with the file unchanged loads without parsing it, and a file that only grew (appended lines: `remember`, another
 * window) parses only what was appended. `jsonlStore.ts` decides when a snapshot may be used; this file says what one
 * holds and reads it back, answering null for anything it cannot vouch for.
 *
 * Where: the store's private state (`<globalStorage>/workspaces/<hash>/memory-snapshots/`, beside verdicts.json),
 * never the repository, so a repository cannot plant one. Even so nothing in it is taken on faith:
 * - it names the file it describes (path and scope), the parser it was made under (ENTRY_PARSE_VERSION and the
 *   limits the schema applies) and its own format; another's is ignored;
 * - its body carries a sha256: a corrupt or truncated snapshot is ignored;
 * - it says exactly which content it was made from (the file's stat, the sha256 of its first and last 64 KiB and of
 *   all of it): `jsonlStore.ts` uses it only for that content, or for that content with lines appended.
 * No verdicts are kept here (those are verdictStore.ts's, under the rule set's version): a snapshot never says "clean".
 *
 * Layout: a magic line, a JSON header, then sections 8-byte aligned: every string of every entry as one text (each
 * field a slice of it: no JSON to parse), 32-bit offsets into it, confidences as float64, and — for an entry whose shape
 * is not the usual one (unknown fields, flags, proposals…) — the entry itself through `v8.serialize`, which keeps
 * every value and key order exactly.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../sha256Hex';
import { promises as fs } from 'node:fs';
import { endianness } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { MEMORY_BODY_MAX, MEMORY_TITLE_MAX, type MemoryScope } from '../../../shared/memorySchemas';
import type { BadLine, RawLine } from './lineFile';
import { ENTRY_PARSE_VERSION, isUndated, markUndated, type StoredEntry } from './memoryEntry';

const MAGIC = Buffer.from('SKMEMSNAP\n', 'latin1');
const FORMAT = 1;
/** The parser a snapshot's entries came from: another value means they may differ from what a parse gives now. */
export const PARSER_KEY = `${ENTRY_PARSE_VERSION}:${MEMORY_TITLE_MAX}:${MEMORY_BODY_MAX}`;

/** Which content a snapshot describes. */
export interface SnapshotKey {
  /** The file's stat when its content was read: `dev:ino:size:mtimeNs:ctimeNs:f`. */
  stat: string;
  size: number;
  /** Date.now() taken before that stat (or before a later check that the content was still the same). */
  takenAt: number;
  /** The later of the file's mtime and ctime in that stat (ms). */
  changedAt: number;
  /** sha256 (hex) of the first HEAD_BYTES, of the last TAIL_BYTES, and of the whole content. */
  head: string;
  tail: string;
  full: string;
}

export const HEAD_BYTES = 64 * 1024;
export const TAIL_BYTES = 64 * 1024;

export interface SnapshotInput {
  path: string;
  scope: MemoryScope;
  key: SnapshotKey;
  lines: readonly RawLine[];
  endsWithNewline: boolean;
  /** As the store holds them: sorted, one per id. */
  entries: readonly StoredEntry[];
}

interface Header {
  format: number;
  parser: string;
  endian: string;
  path: string;
  scope: MemoryScope;
  key: SnapshotKey;
  endsWithNewline: boolean;
  /** Some entry took its date from the file's mtime (its line carries none): only this very content may reuse it. */
  fileDated: boolean;
  entryCount: number;
  lineCount: number;
  tagCount: number;
  encoding: 'utf8' | 'utf16le';
  /** [offset from the body's start, length] of each section. */
  strings: [number, number];
  ints: [number, number];
  conf: [number, number];
  other: [number, number];
  /** Malformed lines: number, reason and text (the text is what a report compares). */
  bad: { line: number; reason: string; text: string }[];
  /** sha256 (hex) of the body. */
  body: string;
}

// One entry's slots in the int section: a [start, end) pair per string field (-1: absent), then tags and flags.
const F_ID = 0;
const F_SCOPE = 1;
const F_SESSION = 2;
const F_TYPE = 3;
const F_STATUS = 4;
const F_TITLE = 5;
const F_BODY = 6;
const F_IMPORTANCE = 7;
const F_P_KIND = 8;
const F_P_IDENTITY = 9;
const F_P_SESSION = 10;
const F_P_AT = 11;
const F_T_STATE = 12;
const F_T_BY = 13;
const F_T_AT = 14;
const F_REVISION = 15;
const F_CREATED = 16;
const F_UPDATED = 17;
const F_SUPERSEDED = 18;
const F_INTO = 19;
const F_EXPIRES = 20;
const STRING_FIELDS = 21;
const SLOT_TAGS = STRING_FIELDS * 2; // first tag's index in the tag pairs
const SLOT_TAG_COUNT = SLOT_TAGS + 1;
const SLOT_FLAGS = SLOT_TAGS + 2;
const ENTRY_INTS = SLOT_TAGS + 3;
const FLAG_UNDATED = 1;
/** Kept whole through v8.serialize (an unusual shape). */
const FLAG_OTHER = 2;

const LINE_BLANK = -1;
const LINE_BAD = -2;

const PROVENANCE_KEYS = ['sourceKind', 'identity', 'sessionKey', 'at'];
const TRUST_KEYS = ['state', 'approvedBy', 'approvedAt'];

/** Whether `keys` are `canonical` in order, with only the optional ones (`optional`) left out. */
function inOrder(keys: readonly string[], canonical: readonly string[], required: ReadonlySet<string>): boolean {
  let at = 0;
  for (const k of canonical) {
    if (keys[at] === k) at++;
    else if (required.has(k)) return false;
  }
  return at === keys.length;
}

const ENTRY_KEYS = ['id', 'scope', 'sessionKey', 'type', 'status', 'title', 'body', 'tags', 'importance', 'confidence', 'provenance', 'trust', 'revision', 'createdAt', 'updatedAt', 'supersededBy', 'consolidatedInto', 'expiresAt', 'wrongFlags'];
const ENTRY_REQUIRED = new Set(['id', 'scope', 'type', 'title', 'body', 'tags', 'importance', 'confidence', 'provenance', 'trust', 'revision', 'createdAt', 'updatedAt', 'wrongFlags']);
const ENTRY_OPTIONAL_STRINGS = ['sessionKey', 'status', 'supersededBy', 'consolidatedInto', 'expiresAt'];
const PROVENANCE_REQUIRED = new Set(['sourceKind', 'identity', 'at']);
const TRUST_REQUIRED = new Set(['state']);

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const stringsAt = (o: Record<string, unknown>, keys: readonly string[]) => keys.every((k) => !(k in o) || typeof o[k] === 'string');

/** The usual shape, which the int section rebuilds exactly (same keys in the same order, same values). */
function usualShape(e: StoredEntry): boolean {
  if (!isPlain(e) || !inOrder(Object.keys(e), ENTRY_KEYS, ENTRY_REQUIRED)) return false;
  if (!stringsAt(e, ['id', 'scope', 'type', 'title', 'body', 'importance', 'revision', 'createdAt', 'updatedAt', ...ENTRY_OPTIONAL_STRINGS])) return false;
  if (typeof e.confidence !== 'number' || !Array.isArray(e.tags) || !Array.isArray(e.wrongFlags) || e.wrongFlags.length !== 0 || Object.getPrototypeOf(e.wrongFlags) !== Array.prototype) return false;
  if (Object.getPrototypeOf(e.tags) !== Array.prototype || Object.keys(e.tags).length !== e.tags.length || !e.tags.every((t) => typeof t === 'string')) return false;
  const p = e.provenance as unknown;
  const t = e.trust as unknown;
  if (!isPlain(p) || !inOrder(Object.keys(p), PROVENANCE_KEYS, PROVENANCE_REQUIRED) || !stringsAt(p, PROVENANCE_KEYS)) return false;
  return isPlain(t) && inOrder(Object.keys(t), TRUST_KEYS, TRUST_REQUIRED) && stringsAt(t, TRUST_KEYS);
}

const pad8 = (n: number) => (n + 7) & ~7;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** No lone surrogate (String.prototype.isWellFormed, where the runtime has it). */
function wellFormed(text: string): boolean {
  const native = (text as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof native === 'function' ? native.call(text) : !LONE_SURROGATE.test(text);
}

/** The snapshot of `input` as bytes. */
export function encodeSnapshot(input: SnapshotInput): Buffer {
  const parts: string[] = [];
  let pos = 0;
  const seen = new Map<string, number>();
  const ints: number[] = [];
  const add = (s: string): void => {
    let at = s.length <= 100 ? seen.get(s) : undefined;
    if (at === undefined) {
      at = pos;
      parts.push(s);
      pos += s.length;
      if (s.length <= 100) seen.set(s, at);
    }
    ints.push(at, at + s.length);
  };
  const opt = (s: unknown): void => {
    if (typeof s === 'string') add(s);
    else ints.push(-1, -1);
  };
  const tagPairs: number[] = [];
  const conf = new Float64Array(input.entries.length);
  const other: StoredEntry[] = [];
  let fileDated = false;
  input.entries.forEach((e, i) => {
    const undated = isUndated(e);
    if (undated) fileDated = true;
    if (!usualShape(e)) {
      other.push(e);
      for (let k = 0; k < SLOT_FLAGS; k++) ints.push(-1);
      ints.push(FLAG_OTHER | (undated ? FLAG_UNDATED : 0));
      return;
    }
    const p = e.provenance;
    const t = e.trust;
    add(e.id);
    add(e.scope);
    opt(e.sessionKey);
    add(e.type);
    opt(e.status);
    add(e.title);
    add(e.body);
    add(e.importance);
    add(p.sourceKind);
    add(p.identity);
    opt(p.sessionKey);
    add(p.at);
    add(t.state);
    opt(t.approvedBy);
    opt(t.approvedAt);
    add(e.revision);
    add(e.createdAt);
    add(e.updatedAt);
    opt(e.supersededBy);
    opt(e.consolidatedInto);
    opt(e.expiresAt);
    ints.push(tagPairs.length / 2, e.tags.length, undated ? FLAG_UNDATED : 0);
    for (const tag of e.tags) {
      let at = seen.get(tag);
      if (at === undefined) {
        at = pos;
        parts.push(tag);
        pos += tag.length;
        seen.set(tag, at);
      }
      tagPairs.push(at, at + tag.length);
    }
    conf[i] = e.confidence;
  });
  const bad: Header['bad'] = [];
  input.lines.forEach((l, n) => {
    if (l.bad !== undefined) {
      bad.push({ line: n + 1, reason: l.bad, text: l.text });
      ints.push(LINE_BAD, bad.length - 1);
    } else if (l.id === undefined) {
      ints.push(LINE_BLANK, 0);
    } else {
      add(l.id);
    }
  });
  const tagCount = tagPairs.length / 2;
  for (const v of tagPairs) ints.push(v);
  const text = parts.join('');
  // A lone surrogate (JSON can spell one) does not survive UTF-8: such a text is kept as UTF-16.
  const encoding = wellFormed(text) ? 'utf8' : 'utf16le';
  const strings = Buffer.from(text, encoding);
  const intBytes = Buffer.from(Int32Array.from(ints).buffer);
  const confBytes = Buffer.from(conf.buffer);
  const otherBytes = other.length > 0 ? serialize(other) : Buffer.alloc(0);
  const sections: Buffer[] = [];
  let offset = 0;
  const place = (b: Buffer): [number, number] => {
    const at = offset;
    sections.push(b);
    const padded = pad8(b.length);
    if (padded > b.length) sections.push(Buffer.alloc(padded - b.length));
    offset += padded;
    return [at, b.length];
  };
  const stringsAt8 = place(strings);
  const intsAt = place(intBytes);
  const confAt = place(confBytes);
  const otherAt = place(otherBytes);
  const body = Buffer.concat(sections);
  const header: Header = {
    format: FORMAT,
    parser: PARSER_KEY,
    endian: endianness(),
    path: input.path,
    scope: input.scope,
    key: input.key,
    endsWithNewline: input.endsWithNewline,
    fileDated,
    entryCount: input.entries.length,
    lineCount: input.lines.length,
    tagCount,
    encoding,
    strings: stringsAt8,
    ints: intsAt,
    conf: confAt,
    other: otherAt,
    bad,
    body: sha256Hex(body),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const lead = MAGIC.length + 4 + headerBytes.length;
  const prefix = Buffer.alloc(pad8(lead));
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(headerBytes.length, MAGIC.length);
  headerBytes.copy(prefix, MAGIC.length + 4);
  return Buffer.concat([prefix, body]);
}

export interface LoadedSnapshot {
  key: SnapshotKey;
  endsWithNewline: boolean;
  fileDated: boolean;
  lineCount: number;
  entries: StoredEntry[];
  badLines: BadLine[];
  /** The text of malformed line `line` (1-based), as the snapshot saw it. */
  badText(line: number): string | undefined;
  /**
   * The file's lines, given the text the snapshot was made from (whose sha256 the caller checked): each with the id
   * or malformed reason the snapshot records. Null when the text does not have the snapshot's lines.
   */
  linesOf(text: string): RawLine[] | null;
}

/** A typed array over `buf[at, at+len)`, copied when `buf` is not aligned for it. */
function view<T>(buf: Buffer, at: number, len: number, bytes: number, make: (ab: ArrayBufferLike, off: number, n: number) => T): T {
  if (len % bytes !== 0) throw new Error('section length');
  const off = buf.byteOffset + at;
  if (off % bytes === 0) return make(buf.buffer, off, len / bytes);
  const copy = Buffer.from(buf.subarray(at, at + len));
  return make(copy.buffer, copy.byteOffset, len / bytes);
}

function checkSection(s: unknown, bodyLength: number): s is [number, number] {
  return Array.isArray(s) && s.length === 2 && Number.isSafeInteger(s[0]) && Number.isSafeInteger(s[1]) && s[0] >= 0 && s[1] >= 0 && s[0] + s[1] <= bodyLength;
}

/**
 * Reads a snapshot back. Null — never a partial answer — when it is not one of ours, was made for another file or
 * scope, under another parser or format, is truncated, or its body does not hash to what its header says.
 */
export function decodeSnapshot(buf: Buffer, expect: { path: string; scope: MemoryScope }): LoadedSnapshot | null {
  try {
    if (buf.length < MAGIC.length + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const headerLength = buf.readUInt32LE(MAGIC.length);
    const lead = MAGIC.length + 4 + headerLength;
    if (lead > buf.length) return null;
    const h = JSON.parse(buf.toString('utf8', MAGIC.length + 4, lead)) as Header;
    if (typeof h !== 'object' || h === null || h.format !== FORMAT || h.parser !== PARSER_KEY || h.endian !== endianness() || h.path !== expect.path || h.scope !== expect.scope) return null;
    const k = h.key;
    if (typeof k !== 'object' || k === null || typeof k.stat !== 'string' || !Number.isSafeInteger(k.size) || typeof k.takenAt !== 'number' || typeof k.changedAt !== 'number' || typeof k.head !== 'string' || typeof k.tail !== 'string' || typeof k.full !== 'string') return null;
    if (!Number.isSafeInteger(h.entryCount) || !Number.isSafeInteger(h.lineCount) || !Number.isSafeInteger(h.tagCount) || !Array.isArray(h.bad) || (h.encoding !== 'utf8' && h.encoding !== 'utf16le')) return null;
    const body = buf.subarray(pad8(lead));
    for (const s of [h.strings, h.ints, h.conf, h.other]) if (!checkSection(s, body.length)) return null;
    if (sha256Hex(body) !== h.body) return null;
    const text = body.toString(h.encoding, h.strings[0], h.strings[0] + h.strings[1]);
    const bodyAt = body.byteOffset - buf.byteOffset;
    const ints = view(buf, bodyAt + h.ints[0], h.ints[1], 4, (ab, off, n) => new Int32Array(ab, off, n));
    const conf = view(buf, bodyAt + h.conf[0], h.conf[1], 8, (ab, off, n) => new Float64Array(ab, off, n));
    const linesAt = h.entryCount * ENTRY_INTS;
    const tagsAt = linesAt + h.lineCount * 2;
    if (ints.length !== tagsAt + h.tagCount * 2 || conf.length !== h.entryCount) return null;
    const other = h.other[1] > 0 ? (deserialize(body.subarray(h.other[0], h.other[0] + h.other[1])) as StoredEntry[]) : [];
    if (!Array.isArray(other)) return null;
    const textLength = text.length;
    const str = (b: number, f: number): string => {
      const a = ints[b + 2 * f]!;
      const z = ints[b + 2 * f + 1]!;
      if (a < 0 || z < a || z > textLength) throw new Error('string bounds');
      return text.slice(a, z);
    };
    // Kinds, identities and tags repeat across entries (the encoder wrote each once): one string each.
    const shared = new Map<number, string>();
    const common = (b: number, f: number): string => {
      const a = ints[b + 2 * f]!;
      let v = shared.get(a);
      if (v === undefined || v.length !== ints[b + 2 * f + 1]! - a) {
        v = str(b, f);
        shared.set(a, v);
      }
      return v;
    };
    // An entry's dates are mostly one date: one string for the entry.
    let dateAt = -1;
    let dateEnd = -1;
    let dateV = '';
    const date = (b: number, f: number): string => {
      if (ints[b + 2 * f] === dateAt && ints[b + 2 * f + 1] === dateEnd) return dateV;
      dateAt = ints[b + 2 * f]!;
      dateEnd = ints[b + 2 * f + 1]!;
      return (dateV = str(b, f));
    };
    const opt = (b: number, f: number, read: (b: number, f: number) => string): string | undefined => (ints[b + 2 * f]! < 0 ? undefined : read(b, f));
    const entries: StoredEntry[] = new Array<StoredEntry>(h.entryCount);
    let nextOther = 0;
    for (let i = 0; i < h.entryCount; i++) {
      const b = i * ENTRY_INTS;
      const flags = ints[b + SLOT_FLAGS]!;
      let e: StoredEntry;
      if (flags & FLAG_OTHER) {
        const o = other[nextOther++];
        if (!isPlain(o)) return null;
        e = o as StoredEntry;
      } else {
        const tagFrom = ints[b + SLOT_TAGS]!;
        const tagN = ints[b + SLOT_TAG_COUNT]!;
        if (tagFrom < 0 || tagN < 0 || tagFrom + tagN > h.tagCount) return null;
        const tags = new Array<string>(tagN);
        for (let j = 0; j < tagN; j++) tags[j] = common(tagsAt + 2 * (tagFrom + j), 0);
        const provenance: Record<string, string> = { sourceKind: common(b, F_P_KIND), identity: common(b, F_P_IDENTITY) };
        const pSession = opt(b, F_P_SESSION, common);
        if (pSession !== undefined) provenance.sessionKey = pSession;
        provenance.at = date(b, F_P_AT);
        const trust: Record<string, string> = { state: common(b, F_T_STATE) };
        const by = opt(b, F_T_BY, common);
        if (by !== undefined) trust.approvedBy = by;
        const approvedAt = opt(b, F_T_AT, date);
        if (approvedAt !== undefined) trust.approvedAt = approvedAt;
        const r: Record<string, unknown> = { id: str(b, F_ID), scope: common(b, F_SCOPE) };
        const sessionKey = opt(b, F_SESSION, common);
        if (sessionKey !== undefined) r.sessionKey = sessionKey;
        r.type = common(b, F_TYPE);
        const status = opt(b, F_STATUS, common);
        if (status !== undefined) r.status = status;
        r.title = str(b, F_TITLE);
        r.body = str(b, F_BODY);
        r.tags = tags;
        r.importance = common(b, F_IMPORTANCE);
        r.confidence = conf[i];
        r.provenance = provenance;
        r.trust = trust;
        r.revision = str(b, F_REVISION);
        r.createdAt = date(b, F_CREATED);
        r.updatedAt = date(b, F_UPDATED);
        const superseded = opt(b, F_SUPERSEDED, str);
        if (superseded !== undefined) r.supersededBy = superseded;
        const into = opt(b, F_INTO, str);
        if (into !== undefined) r.consolidatedInto = into;
        const expires = opt(b, F_EXPIRES, date);
        if (expires !== undefined) r.expiresAt = expires;
        r.wrongFlags = [];
        e = r as StoredEntry;
      }
      if (flags & FLAG_UNDATED) markUndated(e);
      entries[i] = e;
    }
    if (nextOther !== other.length) return null;
    const bad = h.bad;
    const badByLine = new Map<number, { reason: string; text: string }>();
    for (const x of bad) {
      if (!Number.isSafeInteger(x.line) || typeof x.reason !== 'string' || typeof x.text !== 'string') return null;
      badByLine.set(x.line, x);
    }
    return {
      key: k,
      endsWithNewline: h.endsWithNewline === true,
      fileDated: h.fileDated !== false,
      lineCount: h.lineCount,
      entries,
      badLines: bad.map((x) => ({ line: x.line, reason: x.reason })),
      badText: (line) => badByLine.get(line)?.text,
      linesOf: (fileText) => {
        if (fileText === '' ? h.lineCount !== 0 : !fileText.endsWith('\n') !== !h.endsWithNewline) return null;
        const texts = fileText === '' ? [] : fileText.split('\n');
        if (h.endsWithNewline && texts.length > 0) texts.pop();
        if (texts.length !== h.lineCount) return null;
        const out: RawLine[] = new Array<RawLine>(texts.length);
        for (let n = 0; n < texts.length; n++) {
          const a = ints[linesAt + 2 * n]!;
          const b = ints[linesAt + 2 * n + 1]!;
          const raw = texts[n]!;
          if (a === LINE_BLANK) {
            if (raw.trim() !== '') return null;
            out[n] = { text: raw };
          } else if (a === LINE_BAD) {
            const x = bad[b];
            if (!x || x.text !== raw) return null;
            out[n] = { text: raw, bad: x.reason };
          } else {
            if (a < 0 || b < a || b > textLength) return null;
            out[n] = { text: raw, id: text.slice(a, b) };
          }
        }
        return out;
      },
    };
  } catch {
    return null;
  }
}

/** Writes a snapshot: a temp file then a rename (a crash leaves the old one or none; a torn one fails its hash). */
export async function writeSnapshotFile(path: string, data: Buffer): Promise<void> {
  await fs.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, data, { mode: 0o600, flag: 'wx' });
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/** The snapshot of `file` (a scope's path) in `dir`: one per file, named by its path. */
export function snapshotPathFor(dir: string, scope: MemoryScope, file: string): string {
  return join(dir, `${scope}-${sha256Hex(file).slice(0, 24)}.snap`);
}
