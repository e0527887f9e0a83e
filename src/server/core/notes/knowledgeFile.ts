/**
 * The one way a knowledge file is read for judging: at most {@link MAX_KNOWLEDGE_BYTES} bytes (cut back to a whole
 * UTF-8 character), and one revision — the sha256 of exactly the bytes that are judged and delivered. The block
 * (`PinnedFileReader`), file judgement (`KnowledgeCore.judgeFile`), the note index, reviews, MCP resource reads and
 * diagnostics (from disk, or an editor's live text through {@link capKnowledgeText}) all read through here — in a
 * running core through its one `RevisionReader` (`revisionReader.ts`), which reads a changed file once for all of
 * them — so a review made in one place is the same review everywhere and no path judges more (or other) text than
 * it sends.
 * Pure Node: no `vscode`.
 */
import { closeSync, fstatSync, openSync, promises as fs, readSync } from 'node:fs';
import { sha256Hex as sha256 } from '../sha256Hex';

/** The cap of every read of a knowledge file (pinned files, notes, plans): what lies past it is neither judged nor sent. */
export const MAX_KNOWLEDGE_BYTES = 512 * 1024;

/** The line put after a text that was cut at the cap. */
export const TRUNCATED_LINE = `[… the rest of this file is over ${MAX_KNOWLEDGE_BYTES / 1024} KiB and was not included]`;

export interface KnowledgeRead {
  /** The text judged and delivered: the first bytes up to the cap, decoded. */
  text: string;
  /** sha256 hex of exactly those bytes. */
  revision: string;
  /** The file is longer than what was read. */
  truncated: boolean;
  /** The file's whole size in bytes. */
  size: number;
  /** The bytes read hold a NUL: a binary file, not text. */
  binary: boolean;
}

/** Where to cut `bytes` at or before `end` so that no UTF-8 sequence is split. */
function utf8Boundary(bytes: Buffer, end: number): number {
  let i = end;
  let continuation = 0;
  while (i > 0 && continuation < 3 && (bytes[i - 1]! & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i === 0) return end;
  const lead = bytes[i - 1]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end - (i - 1) >= need ? end : i - 1;
}

/** `bytes` cut at the cap (whole characters), with the revision of what is kept. */
export function capKnowledgeBytes(bytes: Buffer, wholeSize = bytes.length): KnowledgeRead {
  const truncated = wholeSize > MAX_KNOWLEDGE_BYTES;
  const kept = truncated ? bytes.subarray(0, utf8Boundary(bytes, Math.min(bytes.length, MAX_KNOWLEDGE_BYTES))) : bytes;
  return { text: kept.toString('utf8'), revision: sha256(kept), truncated, size: wholeSize, binary: kept.includes(0) };
}

/**
 * An editor's live text read as the file would be: cut at the cap, with the revision of the bytes kept (the same as
 * {@link readKnowledgeFile} answers once it is saved).
 */
export function capKnowledgeText(text: string): { text: string; revision: string; truncated: boolean } {
  // At most 3 UTF-8 bytes per UTF-16 unit: a short text needs no encoding to know it fits.
  if (text.length * 3 <= MAX_KNOWLEDGE_BYTES) return { text, revision: sha256(text), truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_KNOWLEDGE_BYTES) return { text, revision: sha256(bytes), truncated: false };
  const read = capKnowledgeBytes(bytes);
  return { text: read.text, revision: read.revision, truncated: true };
}

/**
 * Reads a knowledge file up to the cap. `size`: its size from a stat the caller already made (else one is made).
 * Throws the file system's error (ENOENT, EISDIR…).
 */
export async function readKnowledgeFile(path: string, size?: number): Promise<KnowledgeRead> {
  const handle = await fs.open(path, 'r');
  try {
    const whole = size ?? (await handle.stat()).size;
    const want = Math.min(whole, MAX_KNOWLEDGE_BYTES);
    const buffer = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await handle.read(buffer, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return capKnowledgeBytes(buffer.subarray(0, got), Math.max(whole, got));
  } finally {
    await handle.close();
  }
}

/**
 * {@link readKnowledgeFile} without promises, for the `scan` command (a process that reads a few files and exits: it
 * need not load `fs/promises` to start). The same cap, the same revision.
 */
export function readKnowledgeFileSync(path: string): KnowledgeRead {
  const fd = openSync(path, 'r');
  try {
    const whole = fstatSync(fd).size;
    const want = Math.min(whole, MAX_KNOWLEDGE_BYTES);
    const buffer = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const bytesRead = readSync(fd, buffer, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return capKnowledgeBytes(buffer.subarray(0, got), Math.max(whole, got));
  } finally {
    closeSync(fd);
  }
}
