/**
 * The one answer to "what does this id name": a note (`.knowledge/notes/<file>.md`), a plan
 * (`.knowledge/plans/<file>.md`) or any other pinned file. Pure, no imports: the note index, the block, the MCP
 * server, the extension's API and the Copilot instruction file all ask it.
 */
import type { KnowledgeKind } from '../../../shared/schemas';

export type PinKind = KnowledgeKind | 'file';

const NOTE_OR_PLAN = /^\.knowledge\/(notes|plans)\/[^/]+\.md$/;

/**
 * The kind of a folder-relative id; `withFolderName`: the id may start with its folder's name (a workspace of
 * several folders: `infra/.knowledge/notes/x.md`).
 */
export function pinKind(id: string, withFolderName = false): PinKind {
  const m = NOTE_OR_PLAN.exec(id) ?? (withFolderName && id.includes('/') ? NOTE_OR_PLAN.exec(id.slice(id.indexOf('/') + 1)) : null);
  return !m ? 'file' : m[1] === 'notes' ? 'note' : 'plan';
}

/** A note's or plan's kind, or undefined for any other file. */
export function kindOfId(id: string, withFolderName = false): KnowledgeKind | undefined {
  const kind = pinKind(id, withFolderName);
  return kind === 'file' ? undefined : kind;
}
