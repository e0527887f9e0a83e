/**
 * What the MCP server (`session-knowledge mcp`, src/cli/mcp.ts) says, kept apart from the SDK so it can be tested
 * and read on its own: resource URIs of notes and plans, the resource list entry of an item, the notice that stands
 * in for a flagged item, and the answer when nothing is pinned. Pure: no `vscode`, no SDK, no disk.
 */
import { sha256Hex } from '../sha256Hex';
import { kindOfId } from '../notes/pinKind';
import type { KnowledgeItem } from '../../../shared/schemas';

export const RESOURCE_SCHEME = 'session-knowledge';

/** The URI template every note and plan matches (`folder` is `notes` or `plans`). */
export const RESOURCE_TEMPLATE = `${RESOURCE_SCHEME}:///.knowledge/{folder}/{file}`;
/** With several workspace folders, ids (and URIs) start with the folder's name (`root`). */
export const FOLDER_RESOURCE_TEMPLATE = `${RESOURCE_SCHEME}:///{root}/.knowledge/{folder}/{file}`;

/**
 * An item whose name reads as an instruction (`threat/names.ts`) is listed by an opaque URI that does not spell its
 * id: `session-knowledge://item/<hash of the id>`. Reading it answers what reading the item does (the withheld notice).
 */
export const OPAQUE_RESOURCE_TEMPLATE = `${RESOURCE_SCHEME}://item/{hash}`;

/** The opaque URI of an item (see {@link OPAQUE_RESOURCE_TEMPLATE}). */
export function opaqueResourceUri(id: string): string {
  return `${RESOURCE_SCHEME}://item/${sha256Hex(`session-knowledge item\u0000${id}`).slice(0, 32)}`;
}

/** `.knowledge/notes/setup.md` → `session-knowledge:///.knowledge/notes/setup.md` (each segment percent-encoded). */
export function resourceUri(id: string): string {
  return `${RESOURCE_SCHEME}:///${id.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The note or plan a resource URI names, or undefined when it names anything else (another scheme, another folder,
 * `..`). With several workspace folders (`folders`: their names) a URI may start with a folder's name.
 */
export function idFromResourceUri(uri: string, folders: readonly string[] = []): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${RESOURCE_SCHEME}:` || url.host !== '' || url.search !== '' || url.hash !== '') return undefined;
  let segments: string[];
  try {
    segments = url.pathname.replace(/^\//, '').split('/').map(decodeURIComponent);
  } catch {
    return undefined; // a malformed escape
  }
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\\'))) return undefined;
  const id = segments.join('/');
  if (segments.length > 1 && folders.includes(segments[0]!)) return kindOfId(segments.slice(1).join('/')) ? id : undefined;
  return kindOfId(id) ? id : undefined;
}

/** Rule ids of an item's findings, each once, in order. */
export const ruleIds = (findings: readonly { ruleId: string }[]): string[] => [...new Set(findings.map((f) => f.ruleId))];

/** What a flagged note or plan is replaced by, wherever its text would go. Names the rules, never the text. */
export function withheldNotice(id: string, rules: readonly string[], nameWithheld = false): string {
  // A name that reads as an instruction is not repeated to the model (`threat/names.ts`).
  if (nameWithheld) {
    return (
      `[Withheld: the name of this item reads as an instruction (${rules.join(', ') || 'threat rule'}), so neither its name nor its text is shown to a model. ` +
      'A person can look at it in VS Code (Session Knowledge marks the finding) or with `session-knowledge scan`, and rename it or mark it reviewed.]'
    );
  }
  return (
    `[Withheld: ${id} reads as an instruction (${rules.join(', ') || 'threat rule'}), so its text is not shown to a model. ` +
    `A person can look at it in VS Code (Session Knowledge marks the finding) or with \`session-knowledge scan ${id}\`, ` +
    'and edit it or mark it reviewed.]'
  );
}

/**
 * An item in the resource list. A flagged item is listed by its path: its title is its own text, withheld too. An item
 * whose name is flagged (`nameWithheld`) is listed by its opaque URI with a neutral name: its id is never printed.
 */
export function resourceOf(item: KnowledgeItem, nameWithheld = false): { uri: string; name: string; title: string; description: string; mimeType: string; size: number } {
  const flagged = item.flaggedRules.length > 0;
  if (nameWithheld) {
    const neutral = `(a ${item.kind} whose name is withheld)`;
    return {
      uri: opaqueResourceUri(item.id),
      name: neutral,
      title: neutral,
      description: `${item.kind}, withheld: its name reads as an instruction (${item.flaggedRules.join(', ') || 'threat rule'})`,
      mimeType: 'text/markdown',
      size: item.size,
    };
  }
  return {
    uri: resourceUri(item.id),
    name: flagged ? item.id : item.title,
    title: flagged ? item.id : item.title,
    description: flagged ? `${item.kind}, withheld: reads as an instruction (${item.flaggedRules.join(', ')})` : `${item.kind} ${item.id}`,
    mimeType: 'text/markdown',
    size: item.size,
  };
}

/** The answer of knowledge_context when there is nothing to compile. */
export function noPinsText(leftOut = 0): string {
  const skipped =
    leftOut > 0
      ? ` ${leftOut} entr${leftOut === 1 ? 'y' : 'ies'} of .knowledge/pins.json ${leftOut === 1 ? 'was' : 'were'} left out (a secret file, a file outside the workspace, or not a path).`
      : '';
  return (
    `No project knowledge is pinned for agents.${skipped} The user can pin notes, plans or any workspace file with ` +
    '`session-knowledge pin PATH` (they go to .knowledge/pins.json), or with "Pin for All Agents" in VS Code. ' +
    'Notes and plans are also listed as resources of this server.'
  );
}

/** Said after the block when the agent pins file named entries the pin policy refused. */
export function leftOutText(leftOut: number): string {
  return `(${leftOut} entr${leftOut === 1 ? 'y' : 'ies'} of .knowledge/pins.json ${leftOut === 1 ? 'was' : 'were'} left out: a secret file, a file outside the workspace, or not a path.)`;
}
