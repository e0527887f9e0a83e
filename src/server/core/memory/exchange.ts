/**
 * Export and import of a memory scope.
 *
 * - JSON: an array of entries as stored (full fidelity, provenance included) — a backup or a hand-over.
 * - Markdown: the shape agents read in AGENTS.md / CLAUDE.md — one `## Heading` per type, one bullet per
 *   entry (`- **Title** — body`, continuation lines indented, an optional `_Tags: a, b_` last line).
 *
 * Import reads both (and plain `- text` bullets of a hand-written AGENTS.md). It only parses: the service
 * stamps provenance `import`, starts every entry pending and scans it. Malformed input throws
 * MemoryError('invalid') naming what and where; nothing is imported then.
 */
import { z } from 'zod';
import { MEMORY_BODY_MAX, MEMORY_TITLE_MAX, MemoryTypeSchema, type MemoryScope, type MemoryType } from '../../../shared/memorySchemas';
import { MemoryError } from './errors';
import { ImportanceSchema, normalizeTags, serializeEntry, type Importance, type StoredEntry } from './memoryEntry';

export interface ImportCandidate {
  type: MemoryType;
  title: string;
  body: string;
  tags: string[];
  importance: Importance;
  confidence: number;
  status?: 'active' | 'superseded' | 'archived';
  expiresAt?: string;
}

const TYPE_HEADINGS: Record<MemoryType, string> = {
  decision: 'Decisions',
  fact: 'Facts',
  preference: 'Preferences',
  lesson: 'Lessons',
  reference: 'References',
};
const TYPE_ORDER: readonly MemoryType[] = ['decision', 'fact', 'preference', 'lesson', 'reference'];
const SCOPE_TITLES: Record<MemoryScope, string> = { project: 'Project memory', personal: 'Personal memory', session: 'Session memory' };

export function exportJson(entries: readonly StoredEntry[]): string {
  return `${JSON.stringify(entries.map((e) => JSON.parse(serializeEntry(e)) as unknown), null, 2)}\n`;
}

const escapeTitle = (t: string) => t.replace(/[\\*]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');
const unescapeTitle = (t: string) => t.replace(/\\([\\*])/g, '$1');

export function exportMarkdown(entries: readonly StoredEntry[], scope: MemoryScope, leftOut: number, at: Date): string {
  const out: string[] = [`# ${SCOPE_TITLES[scope]}`, ''];
  out.push(`<!-- Exported by Session Knowledge on ${at.toISOString()}: ${entries.length} approved entr${entries.length === 1 ? 'y' : 'ies'}${leftOut > 0 ? `; ${leftOut} left out (pending, flagged, superseded or aged)` : ''}. -->`, '');
  for (const type of TYPE_ORDER) {
    const ofType = entries.filter((e) => e.type === type);
    if (ofType.length === 0) continue;
    out.push(`## ${TYPE_HEADINGS[type]}`, '');
    for (const e of ofType) {
      const body = e.body.replace(/\r\n?/g, '\n').trim();
      const [first = '', ...rest] = body === '' ? [] : body.split('\n');
      out.push(`- **${escapeTitle(e.title)}**${first ? ` — ${first}` : ''}`);
      for (const line of rest) out.push(line.trim() === '' ? '' : `  ${line}`);
      if (e.tags.length > 0) out.push(`  _Tags: ${e.tags.join(', ')}_`);
    }
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

const ImportEntrySchema = z.looseObject({
  type: MemoryTypeSchema.default('fact'),
  title: z.string().trim().min(1, 'a title is required').max(MEMORY_TITLE_MAX, `a title has at most ${MEMORY_TITLE_MAX} characters`),
  body: z.string().max(MEMORY_BODY_MAX, `a body has at most ${MEMORY_BODY_MAX} characters`).default(''),
  tags: z.array(z.string().max(50)).max(20).default([]),
  importance: ImportanceSchema.default('medium'),
  confidence: z.number().min(0).max(1).default(1),
  status: z.enum(['active', 'superseded', 'archived']).optional(),
  expiresAt: z.string().datetime().optional(),
});

export function parseJsonImport(text: string): ImportCandidate[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new MemoryError('invalid', `The import is not valid JSON (${(err as Error).message}); nothing was imported.`);
  }
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' && Array.isArray((raw as { entries?: unknown }).entries) ? (raw as { entries: unknown[] }).entries : null;
  if (!list) throw new MemoryError('invalid', 'The JSON import must be an array of entries (as exported); nothing was imported.');
  return list.map((item, i) => {
    const parsed = ImportEntrySchema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new MemoryError('invalid', `Entry ${i + 1} of the import is malformed at ${issue?.path.join('.') || '(root)'}: ${issue?.message}; nothing was imported.`);
    }
    const d = parsed.data;
    // A superseded or archived status belongs to the place it was exported from; imported entries start active.
    return { type: d.type, title: d.title, body: d.body, tags: normalizeTags(d.tags), importance: d.importance, confidence: d.confidence, ...(d.type === 'decision' ? { status: 'active' as const } : {}), ...(d.expiresAt ? { expiresAt: d.expiresAt } : {}) };
  });
}

function typeOfHeading(heading: string): MemoryType {
  const h = heading.toLowerCase();
  if (/\bdecision/.test(h)) return 'decision';
  if (/\bpreference/.test(h)) return 'preference';
  if (/\blesson/.test(h) || /\blearn/.test(h)) return 'lesson';
  if (/\breference/.test(h) || /\blink/.test(h)) return 'reference';
  return 'fact';
}

/** A title from a plain bullet: its first sentence when short enough, else its first words. */
function titleFromText(text: string): { title: string; body: string } {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= MEMORY_TITLE_MAX && !text.includes('\n')) return { title: flat, body: '' };
  const sentence = /^(.{1,80}?[.!?])(\s|$)/.exec(flat)?.[1];
  if (sentence) return { title: sentence, body: text.trim() };
  const cut = flat.slice(0, MEMORY_TITLE_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return { title: `${space > 20 ? cut.slice(0, space) : cut}…`, body: text.trim() };
}

export function parseMarkdownImport(text: string): ImportCandidate[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: ImportCandidate[] = [];
  let type: MemoryType = 'fact';
  let current: { line: number; head: string; rest: string[] } | null = null;
  let inComment = false;
  const finish = () => {
    if (!current) return;
    const c = current;
    current = null;
    let rest = [...c.rest];
    while (rest.length > 0 && rest[rest.length - 1]!.trim() === '') rest.pop();
    let tags: string[] = [];
    const tagLine = rest.length > 0 ? /^_Tags: (.*)_$/.exec(rest[rest.length - 1]!.trim()) : null;
    if (tagLine) {
      tags = normalizeTags(tagLine[1]!.split(','));
      rest = rest.slice(0, -1);
    }
    const bold = /^\*\*((?:\\.|[^*\\])+)\*\*(?:\s*(?:—|–|-|:)\s*(.*))?$/.exec(c.head);
    let title: string;
    let body: string;
    if (bold) {
      title = unescapeTitle(bold[1]!).trim();
      body = [bold[2] ?? '', ...rest].join('\n').trim();
      if (title.length > MEMORY_TITLE_MAX) throw new MemoryError('invalid', `Line ${c.line} of the import: the title has ${title.length} characters (at most ${MEMORY_TITLE_MAX}); nothing was imported.`);
    } else {
      ({ title, body } = titleFromText([c.head, ...rest].join('\n')));
    }
    if (title === '') throw new MemoryError('invalid', `Line ${c.line} of the import is an empty bullet; nothing was imported.`);
    if (body.length > MEMORY_BODY_MAX) throw new MemoryError('invalid', `Line ${c.line} of the import: the text has ${body.length} characters (at most ${MEMORY_BODY_MAX}); nothing was imported.`);
    if (tags.length > 20) throw new MemoryError('invalid', `Line ${c.line} of the import has more than 20 tags; nothing was imported.`);
    out.push({ type, title, body, tags, importance: 'medium', confidence: 1, ...(type === 'decision' ? { status: 'active' as const } : {}) });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      continue;
    }
    if (/^\s*<!--/.test(line)) {
      finish();
      if (!line.includes('-->')) inComment = true;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      finish();
      if (heading[1]!.length >= 2) type = typeOfHeading(heading[2]!);
      continue;
    }
    const bullet = /^[-*+]\s+(.*)$/.exec(line);
    if (bullet) {
      finish();
      current = { line: i + 1, head: bullet[1]!.trim(), rest: [] };
      continue;
    }
    if (current && (/^\s+\S/.test(line) || line.trim() === '')) {
      current.rest.push(line.replace(/^ {1,2}/, ''));
      continue;
    }
    finish(); // a paragraph ends the bullet; paragraphs themselves are not entries
  }
  finish();
  if (out.length === 0) throw new MemoryError('invalid', 'The Markdown import has no entries (bullets starting with "- " under a ## heading); nothing was imported.');
  return out;
}
