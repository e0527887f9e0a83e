/** Memory commands (registered only when the flag is set): Remember… (rememberCommand.ts), export, import, consolidate, forget a scope. */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  MemoryConsolidateRequest,
  MemoryExportRequest,
  MemoryForgetScopeRequest,
  MemoryImportRequest,
  MemoryListRequest,
  MemoryStatusRequest,
} from '../../shared/memoryProtocol';
import { MEMORY_TITLE_MAX, type MemoryScope } from '../../shared/memorySchemas';
import { registerRememberCommand } from './rememberCommand';

const SCOPES: { label: string; scope: MemoryScope; detail: string }[] = [
  { label: 'Project', scope: 'project', detail: '.knowledge/memory.jsonl — shared with your team through git' },
  { label: 'Personal', scope: 'personal', detail: 'your own, in every workspace' },
  { label: 'Session', scope: 'session', detail: 'tied to chat sessions' },
];

/** A scope, and for project memory of a multi-root workspace the folder (by name) whose memory.jsonl it is. */
export interface ScopeChoice {
  scope: MemoryScope;
  folder?: string;
}

/** The folders whose project memory the server keeps (several only in a multi-root workspace). */
async function projectFolders(client: LanguageClient): Promise<string[]> {
  const status = await client.sendRequest(MemoryStatusRequest.type).catch(() => undefined);
  return (status?.scopes ?? []).flatMap((s) => (s.scope === 'project' && s.folder !== undefined ? [s.folder] : []));
}

/** A scope; in a multi-root workspace project memory is one choice per folder (and `everyFolder` adds "every folder"). */
async function pickScope(client: LanguageClient, title: string, opts: { allowSession?: boolean; everyFolder?: boolean } = {}): Promise<ScopeChoice | undefined> {
  const folders = await projectFolders(client);
  const items: (vscode.QuickPickItem & { choice: ScopeChoice })[] = [];
  for (const s of SCOPES) {
    if (s.scope === 'session' && opts.allowSession === false) continue;
    if (s.scope === 'project' && folders.length > 0) {
      for (const folder of folders) items.push({ label: `Project · ${folder}`, detail: `${folder}/.knowledge/memory.jsonl — shared with that repository's team through git`, choice: { scope: 'project', folder } });
      if (opts.everyFolder) items.push({ label: 'Project · every folder', detail: `${folders.join(', ')}`, choice: { scope: 'project' } });
      continue;
    }
    items.push({ label: s.label, detail: s.detail, choice: { scope: s.scope } });
  }
  return (await vscode.window.showQuickPick(items, { title }))?.choice;
}

/** "project" / "infra's project" / "every folder's project", for messages (the panel's too). */
export const scopeName = (c: ScopeChoice, folders = false): string => (c.folder !== undefined ? `${c.folder}'s project` : c.scope === 'project' && folders ? "every folder's project" : c.scope);

/** The file an export is offered as: `memory-project.json`, `memory-project-infra.md`… */
export const exportFileName = (c: ScopeChoice, format: 'json' | 'markdown'): string =>
  `memory-${c.scope}${c.folder !== undefined ? `-${c.folder.replace(/[^\w.-]+/g, '_')}` : ''}.${format === 'json' ? 'json' : 'md'}`;
const withFolder = (c: ScopeChoice) => (c.folder !== undefined ? { folder: c.folder } : {});

function failed(what: string, err: unknown): void {
  void vscode.window.showErrorMessage(`${what}: ${(err as Error)?.message ?? String(err)}`);
}

export function registerMemoryCommands(context: vscode.ExtensionContext, client: LanguageClient): void {
  registerRememberCommand(context, client);
  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.memory.export', async () => {
      const choice = await pickScope(client, 'Export which memory?');
      if (!choice) return;
      const { scope } = choice;
      const format = (await vscode.window.showQuickPick([
        { label: 'JSON', format: 'json' as const, detail: 'every entry of the scope, with provenance (for backup or import)' },
        { label: 'Markdown', format: 'markdown' as const, detail: 'an AGENTS.md / CLAUDE.md style list of what every session may see' },
      ], { title: 'Export format' }))?.format;
      if (!format) return;
      const target = await vscode.window.showSaveDialog({
        title: 'Export memory',
        defaultUri: vscode.Uri.joinPath(vscode.workspace.workspaceFolders?.[0]?.uri ?? context.globalStorageUri, exportFileName(choice, format)),
      });
      if (!target) return;
      try {
        const text = await client.sendRequest(MemoryExportRequest.type, { scope, format, ...withFolder(choice) });
        await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
        vscode.window.setStatusBarMessage(`$(check) Exported ${scopeName(choice)} memory to ${vscode.workspace.asRelativePath(target)}`, 5000);
      } catch (err) {
        failed('Export failed', err);
      }
    }),
    vscode.commands.registerCommand('sessionKnowledge.memory.import', async () => {
      const files = await vscode.window.showOpenDialog({ title: 'Import memory', canSelectMany: false, filters: { 'Memory export': ['json', 'md', 'markdown'] } });
      const file = files?.[0];
      if (!file) return;
      const choice = await pickScope(client, 'Import into which memory?', { allowSession: false });
      if (!choice) return;
      const { scope } = choice;
      try {
        const text = Buffer.from(await vscode.workspace.fs.readFile(file)).toString('utf8');
        const format = /\.json$/i.test(file.path) ? 'json' : 'markdown';
        const result = await client.sendRequest(MemoryImportRequest.type, { scope, format, text, ...withFolder(choice) });
        void vscode.window.showInformationMessage(
          `Imported ${result.imported} entr${result.imported === 1 ? 'y' : 'ies'} as pending${result.flagged ? `; ${result.flagged} read as instructions and are withheld until reviewed` : ''}${result.skipped.length ? `; skipped ${result.skipped.length}` : ''}. Approve them in the Knowledge Panel.`,
        );
      } catch (err) {
        failed('Import failed', err);
      }
    }),
    vscode.commands.registerCommand('sessionKnowledge.memory.consolidate', async () => {
      const choice = await pickScope(client, 'Consolidate entries of which memory?');
      if (!choice) return;
      try {
        const { entries } = await client.sendRequest(MemoryListRequest.type, { scope: choice.scope, ...withFolder(choice), limit: 500 });
        const candidates = entries.filter((e) => !e.supersededBy && !e.consolidatedInto);
        const picked = await vscode.window.showQuickPick(
          candidates.map((e) => ({ label: e.title, description: `${e.type} · ${e.trust.state}${e.flagged ? ' · flagged' : ''}`, detail: e.body.slice(0, 200), entry: e })),
          { title: 'Pick the entries to merge into one', canPickMany: true, matchOnDetail: true },
        );
        if (!picked || picked.length < 2) {
          if (picked) void vscode.window.showInformationMessage('Pick at least two entries to consolidate.');
          return;
        }
        const title = await vscode.window.showInputBox({
          title: 'Title of the consolidated entry',
          value: picked[0]!.entry.title,
          validateInput: (v) => (!v.trim() ? 'A title is required' : v.length > MEMORY_TITLE_MAX ? `At most ${MEMORY_TITLE_MAX} characters` : undefined),
        });
        if (!title) return;
        const body = picked.map((p) => p.entry.body).filter(Boolean).join('\n').slice(0, 2000);
        const merged = await client.sendRequest(MemoryConsolidateRequest.type, { ids: picked.map((p) => p.entry.id), title: title.trim(), body });
        vscode.window.setStatusBarMessage(`$(check) Consolidated ${picked.length} entries into "${merged.title}"`, 5000);
      } catch (err) {
        failed('Consolidation failed', err);
      }
    }),
    vscode.commands.registerCommand('sessionKnowledge.memory.forgetScope', async () => {
      const choice = await pickScope(client, 'Forget everything in which memory?', { everyFolder: true });
      if (!choice) return;
      const name = scopeName(choice, (await projectFolders(client)).length > 0);
      const ok = await vscode.window.showWarningMessage(`Forget every ${name} memory entry? A delete is final.`, { modal: true }, 'Forget Everything');
      if (ok !== 'Forget Everything') return;
      try {
        const { deleted } = await client.sendRequest(MemoryForgetScopeRequest.type, { scope: choice.scope, ...withFolder(choice) });
        void vscode.window.showInformationMessage(`Forgot ${deleted} ${name} memory entr${deleted === 1 ? 'y' : 'ies'}.`);
      } catch (err) {
        failed('Not forgotten', err);
      }
    }),
  );
}
