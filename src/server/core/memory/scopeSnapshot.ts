/**
 * Owns the snapshot of one memory file: its parsed, validated entries and the shape of its lines, so that a restart
 * with the file unchanged loads without parsing it, and a file that only grew (appended lines: `remember`, another
 * window) parses only what was appended. `scopeFileState.ts` decides when a snapshot may be used; this file says what one
 * holds (the format: header, sections, slots, the usual shape of an entry), scopeSnapshotEncode.ts writes one and
 * scopeSnapshotDecode.ts reads it back, answering null for anything it cannot vouch for.
 *
 * Where: the store's private state (`<globalStorage>/workspaces/<hash>/memory-snapshots/`, beside verdicts.json),
 * never the repository, so a repository cannot plant one. Even so nothing in it is taken on faith:
 * - it names the file it describes (path and scope), the parser it was made under (ENTRY_PARSE_VERSION and the
 *   limits the schema applies) and its own format; another's is ignored;
 * - its body carries a sha256: a corrupt or truncated snapshot is ignored;
 * - it says exactly which content it was made from (the file's stat, the sha256 of its first and last 64 KiB and of
 *   all of it): `scopeFileState.ts` uses it only for that content, or for that content with lines appended.
 * No verdicts are kept here (those are verdictStore.ts's, under the rule set's version): a snapshot never says "clean".
 *
 * Layout: a magic line, a JSON header, then sections 8-byte aligned: every string of every entry as one text (each
 * field a slice of it: no JSON to parse), 32-bit offsets into it, confidences as float64, and — for an entry whose shape
 * is not the usual one (unknown fields, flags, proposals…) — the entry itself through `v8.serialize`, which keeps
 * every value and key order exactly.
 */
import { sha256Hex } from '../sha256Hex';
import { join } from 'node:path';
import { MEMORY_BODY_MAX, MEMORY_TITLE_MAX, type MemoryScope } from '../../../shared/memorySchemas';
import type { RawLine } from './lineFile';
import { ENTRY_PARSE_VERSION, type StoredEntry } from './memoryEntry';

export const MAGIC = Buffer.from('SKMEMSNAP\n', 'latin1');
export const FORMAT = 1;
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

export interface Header {
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
export const F_ID = 0;
export const F_SCOPE = 1;
export const F_SESSION = 2;
export const F_TYPE = 3;
export const F_STATUS = 4;
export const F_TITLE = 5;
export const F_BODY = 6;
export const F_IMPORTANCE = 7;
export const F_P_KIND = 8;
export const F_P_IDENTITY = 9;
export const F_P_SESSION = 10;
export const F_P_AT = 11;
export const F_T_STATE = 12;
export const F_T_BY = 13;
export const F_T_AT = 14;
export const F_REVISION = 15;
export const F_CREATED = 16;
export const F_UPDATED = 17;
export const F_SUPERSEDED = 18;
export const F_INTO = 19;
export const F_EXPIRES = 20;
const STRING_FIELDS = 21;
export const SLOT_TAGS = STRING_FIELDS * 2; // first tag's index in the tag pairs
export const SLOT_TAG_COUNT = SLOT_TAGS + 1;
export const SLOT_FLAGS = SLOT_TAGS + 2;
export const ENTRY_INTS = SLOT_TAGS + 3;
export const FLAG_UNDATED = 1;
/** Kept whole through v8.serialize (an unusual shape). */
export const FLAG_OTHER = 2;

export const LINE_BLANK = -1;
export const LINE_BAD = -2;

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

export const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const stringsAt = (o: Record<string, unknown>, keys: readonly string[]) => keys.every((k) => !(k in o) || typeof o[k] === 'string');

/** The usual shape, which the int section rebuilds exactly (same keys in the same order, same values). */
export function usualShape(e: StoredEntry): boolean {
  if (!isPlain(e) || !inOrder(Object.keys(e), ENTRY_KEYS, ENTRY_REQUIRED)) return false;
  if (!stringsAt(e, ['id', 'scope', 'type', 'title', 'body', 'importance', 'revision', 'createdAt', 'updatedAt', ...ENTRY_OPTIONAL_STRINGS])) return false;
  if (typeof e.confidence !== 'number' || !Array.isArray(e.tags) || !Array.isArray(e.wrongFlags) || e.wrongFlags.length !== 0 || Object.getPrototypeOf(e.wrongFlags) !== Array.prototype) return false;
  if (Object.getPrototypeOf(e.tags) !== Array.prototype || Object.keys(e.tags).length !== e.tags.length || !e.tags.every((t) => typeof t === 'string')) return false;
  const p = e.provenance as unknown;
  const t = e.trust as unknown;
  if (!isPlain(p) || !inOrder(Object.keys(p), PROVENANCE_KEYS, PROVENANCE_REQUIRED) || !stringsAt(p, PROVENANCE_KEYS)) return false;
  return isPlain(t) && inOrder(Object.keys(t), TRUST_KEYS, TRUST_REQUIRED) && stringsAt(t, TRUST_KEYS);
}

export const pad8 = (n: number) => (n + 7) & ~7;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** No lone surrogate (String.prototype.isWellFormed, where the runtime has it). */
export function wellFormed(text: string): boolean {
  const native = (text as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof native === 'function' ? native.call(text) : !LONE_SURROGATE.test(text);
}

/** The snapshot of `file` (a scope's path) in `dir`: one per file, named by its path. */
export function snapshotPathFor(dir: string, scope: MemoryScope, file: string): string {
  return join(dir, `${scope}-${sha256Hex(file).slice(0, 24)}.snap`);
}

