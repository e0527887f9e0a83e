/**
 * Owns what `initialize` means for this server. The extension sends `initializationOptions`
 * (`InitializationOptionsSchema`: workspace folder, global storage, memory flag) and gets exactly that. Any
 * other LSP client (Neovim, Helix, Emacs… through `session-knowledge lsp --stdio`) sends a standard
 * `initialize`: the workspace is its workspace folders (every `file:` one), else `rootUri`, else `rootPath`; storage is the
 * default (`defaultStoragePath`, `SESSION_KNOWLEDGE_STORAGE`); memory follows `SESSION_KNOWLEDGE_MEMORY_ENABLE`.
 */
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCodes, ResponseError, type InitializeParams } from 'vscode-languageserver';
import { z } from 'zod';
import { readMemoryFlag } from '../core/memory/memoryFlag';
import { InitializationOptionsSchema, type InitializationOptions } from '../../shared/schemas';
import { defaultStoragePath } from '../core/store/paths';

/** `extension`: initialized with our `initializationOptions`; `generic`: a standard `initialize` from any LSP client. */
export type ClientKind = 'extension' | 'generic';

export interface ResolvedInitialization {
  options: InitializationOptions;
  client: ClientKind;
  /** What to tell the person in the client's log (where the workspace came from, a flag not understood). */
  notes: { level: 'info' | 'warn'; message: string }[];
}

/**
 * What a generic client may still set through `initializationOptions` (e.g. Neovim's `init_options`); each is
 * validated as the extension's is. Other keys are the client's own business and ignored.
 */
const GenericOptionsSchema = z.object({
  globalStoragePath: InitializationOptionsSchema.shape.globalStoragePath.optional(),
  memoryEnabled: z.boolean().optional(),
});

function invalid(error: z.ZodError): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, `Invalid initializationOptions: ${error.issues[0]?.message}`);
}

/** A `file:` URI as a path; undefined for any other scheme or a malformed URI. */
function filePath(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !uri.startsWith('file:')) return undefined;
  try {
    return resolve(fileURLToPath(uri));
  } catch {
    return undefined;
  }
}

/** The workspace folder a standard `initialize` names, and where it came from; null when it names none. */
export function workspaceFromParams(params: Pick<InitializeParams, 'workspaceFolders' | 'rootUri' | 'rootPath'>): { folder: string; from: string } | null {
  const first = Array.isArray(params.workspaceFolders) ? params.workspaceFolders[0] : undefined;
  const fromFolders = filePath(first?.uri);
  if (fromFolders) return { folder: fromFolders, from: 'workspaceFolders[0]' };
  const fromRootUri = filePath(params.rootUri);
  if (fromRootUri) return { folder: fromRootUri, from: 'rootUri' };
  if (typeof params.rootPath === 'string' && params.rootPath.trim() !== '') return { folder: resolve(params.rootPath), from: 'rootPath' };
  return null;
}

/** Every `file:` folder of a standard `initialize`, with the client's name for it (LSP `WorkspaceFolder.name`). */
export function foldersFromParams(params: Pick<InitializeParams, 'workspaceFolders'>): { name: string; path: string }[] {
  if (!Array.isArray(params.workspaceFolders)) return [];
  const out: { name: string; path: string }[] = [];
  for (const f of params.workspaceFolders.slice(0, 500)) {
    const path = filePath(f?.uri);
    if (path) out.push({ name: typeof f.name === 'string' && f.name.length > 0 ? f.name.slice(0, 200) : basename(path) || 'folder', path });
  }
  return out;
}

/**
 * The options this server runs with. Refuses (InvalidParams) `initializationOptions` that claim to be ours
 * (they carry `workspaceFolder`) but do not parse, and anything that is not an object.
 */
export function resolveInitialization(params: InitializeParams, env: Readonly<Record<string, string | undefined>>): ResolvedInitialization {
  const raw: unknown = params.initializationOptions;
  const isObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  if (raw !== undefined && raw !== null && (!isObject || 'workspaceFolder' in raw)) {
    const parsed = InitializationOptionsSchema.safeParse(raw);
    if (!parsed.success) throw invalid(parsed.error);
    return { options: parsed.data, client: 'extension', notes: [] };
  }

  const given = GenericOptionsSchema.safeParse(raw ?? {});
  if (!given.success) throw invalid(given.error);
  const notes: ResolvedInitialization['notes'] = [];
  const workspace = workspaceFromParams(params);
  if (!workspace) notes.push({ level: 'warn', message: 'Session Knowledge: the client named no workspace folder (workspaceFolders, rootUri or rootPath), so there is no .knowledge/ to watch.' });
  let memoryEnabled = given.data.memoryEnabled;
  if (memoryEnabled === undefined) {
    const flag = readMemoryFlag(env);
    if (flag.warning) notes.push({ level: 'warn', message: flag.warning });
    memoryEnabled = flag.present;
  }
  const folders = foldersFromParams(params);
  const options: InitializationOptions = {
    workspaceFolder: workspace?.folder ?? null,
    ...(folders.length > 1 && workspace?.from === 'workspaceFolders[0]' ? { workspaceFolders: folders } : {}),
    globalStoragePath: given.data.globalStoragePath ?? defaultStoragePath(env),
    memoryEnabled,
  };
  notes.push({ level: 'info', message: `Session Knowledge: workspace ${options.workspaceFolders ? options.workspaceFolders.map((f) => f.path).join(', ') : (options.workspaceFolder ?? '(none)')}${workspace ? ` (from ${options.workspaceFolders ? 'workspaceFolders' : workspace.from})` : ''}, storage ${options.globalStoragePath}, memory ${memoryEnabled ? 'on' : 'off'}.` });
  return { options, client: 'generic', notes };
}
