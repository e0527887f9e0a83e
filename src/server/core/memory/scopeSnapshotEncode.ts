/**
 * Writes the snapshot of one memory file (the format is scopeSnapshot.ts's): its entries and lines as bytes, and
 * the file put in place by a rename.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../sha256Hex';
import { promises as fs } from 'node:fs';
import { endianness } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { serialize } from 'node:v8';
import { isUndated, type StoredEntry } from './memoryEntry';
import {
  FLAG_OTHER,
  FLAG_UNDATED,
  FORMAT,
  type Header,
  LINE_BAD,
  LINE_BLANK,
  MAGIC,
  pad8,
  PARSER_KEY,
  SLOT_FLAGS,
  type SnapshotInput,
  usualShape,
  wellFormed,
} from './scopeSnapshot';

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
