/**
 * The lines of a scope file exactly as they are on disk, and the two ways they are written back: append, or an
 * atomic rewrite that changes only the lines that changed and keeps the file's mode (a shared file stays 0644).
 */
import { closeSync, constants as fsConstants, fsync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StoredEntry } from './memoryEntry';
import { writeFileAtomic } from '../store/atomicFile';
import { O_NOFOLLOW } from '../store/confinedPath';

/** One line as read (without its `\n`; a `\r` stays). An entry line has `id`, a malformed one `bad`; a blank line neither. */
export interface RawLine {
  text: string;
  id?: string;
  bad?: string;
}

export interface BadLine {
  /** 1-based line number in the file. */
  line: number;
  reason: string;
}

/** The file's text as lines; `newline`: whether the last line is terminated (an empty file counts as terminated). */
export function splitLines(text: string): { texts: string[]; newline: boolean } {
  if (text === '') return { texts: [], newline: true };
  const texts = text.split('\n');
  const newline = text.endsWith('\n');
  if (newline) texts.pop();
  return { texts, newline };
}

export function badLinesOf(lines: readonly RawLine[]): BadLine[] {
  const out: BadLine[] = [];
  lines.forEach((l, i) => {
    if (l.bad !== undefined) out.push({ line: i + 1, reason: l.bad });
  });
  return out;
}

/** `\r` when the file's last line ends with CRLF (a Windows checkout), so that new lines match it; else ''. */
export function lineEnd(lines: readonly RawLine[]): string {
  return lines[lines.length - 1]?.text.endsWith('\r') ? '\r' : '';
}

/** New entries as lines for the end of the file. */
export function newLines(lines: readonly RawLine[], added: readonly StoredEntry[], serialize: (e: StoredEntry) => string): RawLine[] {
  const cr = lineEnd(lines);
  return added.map((e) => ({ text: `${serialize(e)}${cr}`, id: e.id }));
}

/**
 * The lines after a change: a replaced entry takes the place of its first line (other copies of its id,
 * which a union merge can leave, go), a deleted entry's lines go, new entries are added at the end.
 * Every other line — malformed and blank ones included — stays as it was, where it was; line ends are kept.
 */
export function rewriteLines(lines: readonly RawLine[], replaced: ReadonlyMap<string, StoredEntry>, deletes: ReadonlySet<string>, added: readonly StoredEntry[], serialize: (e: StoredEntry) => string): RawLine[] {
  const out: RawLine[] = [];
  const placed = new Set<string>();
  for (const l of lines) {
    if (l.id === undefined) {
      out.push(l);
      continue;
    }
    if (deletes.has(l.id)) continue;
    const next = replaced.get(l.id);
    if (!next) {
      out.push(l);
    } else if (!placed.has(l.id)) {
      placed.add(l.id);
      out.push({ text: `${serialize(next)}${l.text.endsWith('\r') ? '\r' : ''}`, id: next.id });
    }
  }
  return out.concat(newLines(lines, added, serialize));
}

export const joinLines = (lines: readonly RawLine[]): string => (lines.length > 0 ? `${lines.map((l) => l.text).join('\n')}\n` : '');

/**
 * Appends `chunk` (and fsyncs); a new file gets `newFileMode` (the umask applies), an existing one keeps its mode.
 * Open and write are synchronous (a small write lands in the page cache in microseconds; each trip through the thread
 * pool costs more, and a remember made five of them): only the fsync, which waits for the disk, is awaited.
 */
export async function appendDurably(path: string, chunk: Buffer, newFileMode: number): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  // Never through a link at the name (O_NOFOLLOW where the platform has it).
  const fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | O_NOFOLLOW, newFileMode);
  try {
    let written = 0;
    while (written < chunk.length) written += writeSync(fd, chunk, written, chunk.length - written);
    await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  } finally {
    closeSync(fd);
  }
}

/** An atomic rewrite (`writeFileAtomic`) that keeps the replaced file's mode; a new file gets `newFileMode` (the umask applies). */
export const writeKeepingMode = (path: string, data: string, newFileMode: number): Promise<void> => writeFileAtomic(path, data, { mode: newFileMode, keepMode: true });
