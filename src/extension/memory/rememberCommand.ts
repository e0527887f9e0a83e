/**
 * Remember… by hand: the command `sessionKnowledge.memory.remember` (Command Palette, behind the memory flag) and the
 * function the Knowledge Panel's form calls. Both send the person's entry as `knowledge/memory/remember` with
 * `source: human` — the same write path and trust rules as every memory write: the server refuses secrets, scans the
 * entry on write and on every read, and a flagged entry is stored, flagged and withheld from every model until the
 * person marks it reviewed. Memory off, read-only or full: the server's refusal is said as it is, nothing is stored.
 *
 * The command asks for type, title, body and scope with quick inputs; given an argument `{ type, title, body, scope }`
 * (a keybinding, another extension, a test) it asks nothing. It answers the stored entry, or undefined.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { MemoryRememberRequest, MemoryStatusRequest } from '../../shared/memoryProtocol';
import { MEMORY_BODY_MAX, MEMORY_TITLE_MAX, type MemoryEntryView, type MemoryType } from '../../shared/memorySchemas';
import { RememberByHandSchema, type RememberByHand } from '../../shared/handMemorySchemas';
import { rememberedMessage } from '../../shared/rememberedText';

/** Writes the person's entry (validated here first, so a bad argument is said in words before any request). */
export async function rememberByHand(client: LanguageClient, input: RememberByHand): Promise<MemoryEntryView> {
  const parsed = RememberByHandSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Not remembered: ${issue?.path.length ? `${issue.path.join('.')}: ` : ''}${issue?.message ?? 'invalid input'}.`);
  }
  const p = parsed.data;
  return client.sendRequest(MemoryRememberRequest.type, {
    scope: p.scope,
    type: p.type,
    title: p.title.trim(),
    body: p.body,
    tags: [],
    source: 'human',
    ...(p.folder !== undefined ? { folder: p.folder } : {}),
  });
}

const TYPES: { label: string; type: MemoryType; detail: string }[] = [
  { label: 'Fact', type: 'fact', detail: 'something true about the project' },
  { label: 'Decision', type: 'decision', detail: 'something decided, which a later decision may supersede' },
  { label: 'Lesson', type: 'lesson', detail: 'something learned the hard way' },
  { label: 'Preference', type: 'preference', detail: 'how you like things done' },
  { label: 'Reference', type: 'reference', detail: 'where something is (a link, a document, a person)' },
];

async function askByHand(client: LanguageClient): Promise<RememberByHand | undefined> {
  const title = 'Remember';
  const type = (await vscode.window.showQuickPick(TYPES, { title: `${title} (1/4): what kind of entry?`, placeHolder: 'Type' }))?.type;
  if (!type) return undefined;
  const name = await vscode.window.showInputBox({
    title: `${title} (2/4): title`,
    prompt: 'What the agent sees in its memory index',
    validateInput: (v) => (!v.trim() ? 'A title is required.' : v.length > MEMORY_TITLE_MAX ? `At most ${MEMORY_TITLE_MAX} characters.` : undefined),
  });
  if (name === undefined) return undefined;
  const body = await vscode.window.showInputBox({
    title: `${title} (3/4): body (optional)`,
    prompt: 'The details, read by the agent through its memory tool',
    validateInput: (v) => (v.length > MEMORY_BODY_MAX ? `At most ${MEMORY_BODY_MAX} characters.` : undefined),
  });
  if (body === undefined) return undefined;
  const status = await client.sendRequest(MemoryStatusRequest.type).catch(() => undefined);
  const folders = (status?.scopes ?? []).flatMap((s) => (s.scope === 'project' && s.folder !== undefined ? [s.folder] : []));
  const scopes = [
    ...(folders.length > 0
      ? folders.map((folder) => ({ label: `Project · ${folder}`, detail: `${folder}/.knowledge/memory.jsonl — shared with that repository's team through git`, scope: 'project' as const, folder }))
      : [{ label: 'Project (this workspace)', detail: '.knowledge/memory.jsonl — shared with your team through git', scope: 'project' as const, folder: undefined }]),
    { label: 'Personal (you)', detail: 'your own memory, in every workspace', scope: 'personal' as const, folder: undefined },
  ];
  const where = await vscode.window.showQuickPick(scopes, { title: `${title} (4/4): keep it where?` });
  if (!where) return undefined;
  return { type, title: name, body, scope: where.scope, ...(where.folder !== undefined ? { folder: where.folder } : {}) };
}

export function registerRememberCommand(context: vscode.ExtensionContext, client: LanguageClient): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.memory.remember', async (arg?: unknown) => {
      const input = arg && typeof arg === 'object' ? (arg as RememberByHand) : await askByHand(client);
      if (!input) return undefined;
      try {
        const entry = await rememberByHand(client, input);
        const message = rememberedMessage(entry, 'in the Knowledge Panel');
        if (entry.flagged) void vscode.window.showWarningMessage(message);
        else vscode.window.setStatusBarMessage(`$(check) ${message}`, 5000);
        return entry;
      } catch (err) {
        const message = (err instanceof Error ? err.message : String(err)).trim();
        void vscode.window.showErrorMessage(message.startsWith('Not remembered') ? message : `Not remembered: ${message}`);
        return undefined;
      }
    }),
  );
}
