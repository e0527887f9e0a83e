/**
 * Reads the snapshot of one memory file back (the format is scopeSnapshot.ts's), answering null for anything it
 * cannot vouch for.
 */
import { sha256Hex } from '../sha256Hex';
import { endianness } from 'node:os';
import { deserialize } from 'node:v8';
import type { MemoryScope } from '../../../shared/memorySchemas';
import type { BadLine, RawLine } from './lineFile';
import { markUndated, type StoredEntry } from './memoryEntry';
import {
  ENTRY_INTS,
  F_BODY,
  F_CREATED,
  F_EXPIRES,
  F_ID,
  F_IMPORTANCE,
  F_INTO,
  F_P_AT,
  F_P_IDENTITY,
  F_P_KIND,
  F_P_SESSION,
  F_REVISION,
  F_SCOPE,
  F_SESSION,
  F_STATUS,
  F_SUPERSEDED,
  F_T_AT,
  F_T_BY,
  F_T_STATE,
  F_TITLE,
  F_TYPE,
  F_UPDATED,
  FLAG_OTHER,
  FLAG_UNDATED,
  FORMAT,
  type Header,
  isPlain,
  LINE_BAD,
  LINE_BLANK,
  MAGIC,
  pad8,
  PARSER_KEY,
  SLOT_FLAGS,
  SLOT_TAG_COUNT,
  SLOT_TAGS,
  type SnapshotKey,
} from './scopeSnapshot';

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
