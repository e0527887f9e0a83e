/**
 * The knowledge panel: a webview view (`sessionKnowledge.panel`) registered only when
 * SESSION_KNOWLEDGE_MEMORY_ENABLE is set. The webview is untrusted: every message it sends is validated
 * against `src/shared/panelProtocol.ts` before anything runs, and a malformed one is answered with an
 * `invalid-message` error and changes nothing. The host posts nothing before the webview says `ready`.
 */
import * as vscode from 'vscode';
import { sessionRetentionDays } from '../retention';
import { ResponseError } from 'vscode-languageclient/node';
import { ListItemsRequest, AcceptRepositoryReviewRequest, UpdateDraftPinsRequest, UpdateSessionPinsRequest } from '../../shared/protocol';
import {
  MemoryApproveRequest,
  MemoryConsolidateRequest,
  MemoryExportRequest,
  MemoryFlagWrongRequest,
  MemoryForgetPreviewRequest,
  MemoryForgetRequest,
  MemoryForgetFlaggedRequest,
  MemoryImportRequest,
  MemoryInboxApproveEditedRequest,
  MemoryInboxApproveRequest,
  MemoryInboxAcceptRepositoryRequest,
  MemoryInboxMergeRequest,
  MemoryInboxRejectRequest,
  MemoryListRequest,
  MemoryMarkReviewedRequest,
  MemoryUpdateRequest,
} from '../../shared/memoryProtocol';
import {
  PanelInboundSchema,
  PanelParamsSchemas,
  type PanelError,
  type PanelErrorReason,
  type PanelMethod,
  type PanelOutbound,
  type PanelResults,
} from '../../shared/panelProtocol';
import type { ImportResult } from '../../shared/memorySchemas';
import type { z } from 'zod';
import type { PanelHost } from './panelHost';
import { panelHtml, panelResourceRoots } from './panelHtml';
import { PanelStateBuilder, errorMessage, inboxCounts, inboxPage, isMethodNotFound, mergeTargets, resolveTitles, toRows } from './panelState';
import { SeenStore } from './seenStore';
import { blockBudget } from '../chat/knowledgeSend';
import { exportFileName, scopeName } from '../memory/memoryCommands';
import { rememberByHand } from '../memory/rememberCommand';

export type { PanelHost } from './panelHost';

export const PANEL_VIEW_ID = 'sessionKnowledge.panel';
const CHANGE_DEBOUNCE_MS = 150;
const MEMORY_REASONS = new Set<PanelErrorReason>(['memory-off', 'readonly', 'scope-full', 'not-found', 'invalid', 'scope-unavailable', 'flagged']);

/** An error with a reason the webview can act on; `is()` instead of matching message text. */
export class PanelRequestError extends Error {
  constructor(
    readonly reason: PanelErrorReason,
    message: string,
  ) {
    super(message);
  }
  static is(err: unknown): err is PanelRequestError {
    return err instanceof PanelRequestError;
  }
}

function toPanelError(err: unknown): PanelError {
  if (PanelRequestError.is(err)) return { reason: err.reason, message: err.message };
  if (isMethodNotFound(err)) return { reason: 'memory-unavailable', message: 'Agent memory is not available from the language server yet.' };
  if (err instanceof ResponseError) {
    const reason = (err.data as { reason?: unknown } | undefined)?.reason;
    if (typeof reason === 'string' && MEMORY_REASONS.has(reason as PanelErrorReason)) return { reason: reason as PanelErrorReason, message: err.message };
  }
  return { reason: 'failed', message: errorMessage(err) };
}

type Handlers = { [M in PanelMethod]: (params: z.output<(typeof PanelParamsSchemas)[M]>) => Promise<PanelResults[M]> };

class KnowledgePanelProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly seen: SeenStore;
  private readonly states: PanelStateBuilder;
  private readonly disposables: vscode.Disposable[] = [];
  private viewDisposables: vscode.Disposable[] = [];
  private changeTimer: NodeJS.Timeout | undefined;
  private readonly handlers: Handlers;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly host: PanelHost,
  ) {
    this.seen = new SeenStore(context.globalState);
    this.states = new PanelStateBuilder(host.client, this.seen, blockBudget, sessionRetentionDays);
    this.disposables.push(host.onDidChange(() => this.scheduleRefresh()));
    this.handlers = this.createHandlers();
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    for (const d of this.viewDisposables) d.dispose();
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: panelResourceRoots(this.context.extensionUri) };
    this.viewDisposables = [
      view.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      view.onDidChangeVisibility(() => {
        if (view.visible) void this.seen.beginViewing();
      }),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
          this.ready = false;
        }
      }),
    ];
    void this.seen.beginViewing();
    view.webview.html = panelHtml(view.webview, this.context.extensionUri);
    void this.updateBadge();
  }

  /**
   * The view's badge: how many decisions wait in the inbox (none while memory is off). Kept while the panel is
   * hidden (the view outlives its webview), so the activity bar shows it too.
   */
  private async updateBadge(): Promise<void> {
    const view = this.view;
    if (!view) return;
    const counts = this.host.memoryOn() ? await inboxCounts(this.host.client) : undefined;
    if (this.view !== view) return;
    const n = counts?.total ?? 0;
    // Zero, not undefined: VS Code's webview view pane (1.100) keeps the last badge when it is set to undefined,
    // and a number badge of 0 is not drawn.
    view.badge = { value: n, tooltip: n > 0 ? `${n} ${n === 1 ? 'decision waits' : 'decisions wait'} in the inbox` : '' };
  }

  private post(message: PanelOutbound): void {
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage(message).then(undefined, (err: unknown) => this.host.log.warn(`panel: could not post: ${errorMessage(err)}`));
  }

  private scheduleRefresh(): void {
    if (!this.view) return;
    clearTimeout(this.changeTimer);
    this.changeTimer = setTimeout(() => {
      void this.updateBadge();
      if (!this.ready) return;
      this.post({ type: 'changed' });
      void this.pushState();
    }, CHANGE_DEBOUNCE_MS);
  }

  private async pushState(): Promise<void> {
    try {
      this.post({ type: 'state', state: await this.states.build(this.host.memoryOn()) });
    } catch (err) {
      this.host.log.warn(`panel: state failed: ${errorMessage(err)}`);
    }
  }

  private async receive(raw: unknown): Promise<void> {
    const envelope = PanelInboundSchema.safeParse(raw);
    if (!envelope.success) {
      const requestId = typeof (raw as { requestId?: unknown })?.requestId === 'number' ? (raw as { requestId: number }).requestId : null;
      this.host.log.warn(`panel: refused a malformed message: ${envelope.error.issues[0]?.message ?? 'invalid'}`);
      // Answered even before `ready`: a hostile page learns only that the message was refused.
      void this.view?.webview.postMessage({ type: 'response', requestId, ok: false, error: { reason: 'invalid-message', message: `Refused a malformed panel message: ${describeIssue(envelope.error)}` } } satisfies PanelOutbound);
      return;
    }
    const msg = envelope.data;
    if (msg.type === 'ready') {
      this.ready = true;
      await this.pushState();
      return;
    }
    const method = msg.method;
    const params = PanelParamsSchemas[method].safeParse(msg.params ?? {});
    if (!params.success) {
      this.post({ type: 'response', requestId: msg.requestId, ok: false, error: { reason: 'invalid-message', message: `Refused ${method}: ${describeIssue(params.error)}` } });
      return;
    }
    try {
      const handler = this.handlers[method] as (p: unknown) => Promise<PanelResults[PanelMethod]>;
      const result = await handler(params.data);
      this.post({ type: 'response', requestId: msg.requestId, ok: true, result });
    } catch (err) {
      const error = toPanelError(err);
      if (error.reason === 'failed') this.host.log.warn(`panel: ${method} failed: ${error.message}`);
      this.post({ type: 'response', requestId: msg.requestId, ok: false, error });
    }
  }

  /** A note or plan the index knows; the webview may name nothing else. */
  private async knownItem(id: string) {
    const items = await this.host.client.sendRequest(ListItemsRequest.type, {});
    const item = items.find((i) => i.id === id);
    if (!item) throw new PanelRequestError('not-found', `${id} is not a note or plan in .knowledge/.`);
    return item;
  }

  private requireMemory(): void {
    if (!this.host.memoryOn()) throw new PanelRequestError('memory-off', 'Agent memory is off. Turn it on in the panel first.');
  }

  private createHandlers(): Handlers {
    const client = this.host.client;
    const changed = <T>(value: T): T => {
      this.scheduleRefresh();
      return value;
    };
    return {
      'state/get': () => this.states.build(this.host.memoryOn()),
      'session/updatePins': async (p) => {
        await client.sendRequest(UpdateSessionPinsRequest.type, p);
        return changed(null);
      },
      'sessions/more': (p) => this.states.moreSessions(p.cursor),
      'draft/updatePins': async (p) => {
        const r = await client.sendRequest(UpdateDraftPinsRequest.type, p);
        return changed({ refused: r.refused });
      },
      'memory/setOn': async (p) => {
        await this.host.setMemoryOn(p.on);
        await this.pushState();
        this.post({ type: 'changed' });
        void this.updateBadge();
        return null;
      },
      'memory/list': async (p) => {
        this.requireMemory();
        const r = await client.sendRequest(MemoryListRequest.type, p);
        return { rows: await toRows(client, this.seen, r.entries), total: r.total, offset: p.offset, limit: p.limit };
      },
      'memory/acknowledge': async (p) => {
        await this.seen.acknowledge(p.entries);
        return null;
      },
      'memory/update': async (p) => changed(await client.sendRequest(MemoryUpdateRequest.type, p)),
      'memory/remember': async (p) => changed(await rememberByHand(client, p)),
      'memory/approve': async (p) => changed(await client.sendRequest(MemoryApproveRequest.type, p)),
      'memory/flagWrong': async (p) => changed(await client.sendRequest(MemoryFlagWrongRequest.type, p)),
      'memory/consolidate': async (p) => changed(await client.sendRequest(MemoryConsolidateRequest.type, p)),
      'memory/forgetPreview': async (p) => {
        // With memory off only a flagged entry can be forgotten, on its own (forgetFlagged).
        const plan = this.host.memoryOn() ? await client.sendRequest(MemoryForgetPreviewRequest.type, p) : { deleted: [p.id], restored: [] };
        return { ...plan, titles: await resolveTitles(client, [...plan.deleted, ...plan.restored]) };
      },
      'memory/forget': async (p) => changed(await client.sendRequest(this.host.memoryOn() ? MemoryForgetRequest.type : MemoryForgetFlaggedRequest.type, p)),
      'memory/markReviewed': async (p) => changed(await client.sendRequest(MemoryMarkReviewedRequest.type, p)),
      'memory/export': async (p) => {
        this.requireMemory();
        const text = await client.sendRequest(MemoryExportRequest.type, p);
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const what = scopeName(p);
        const name = exportFileName(p, p.format);
        const target = await vscode.window.showSaveDialog({
          title: `Export ${what} memory`,
          saveLabel: 'Export',
          ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
          filters: p.format === 'json' ? { JSON: ['json'] } : { Markdown: ['md'] },
        });
        if (!target) return null;
        await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
        void vscode.window.showInformationMessage(`Exported ${what} memory to ${vscode.workspace.asRelativePath(target)}.`);
        return target.fsPath;
      },
      'memory/import': async (p) => {
        this.requireMemory();
        const picked = await vscode.window.showOpenDialog({
          title: `Import into ${scopeName(p)} memory`,
          openLabel: 'Import',
          canSelectMany: false,
          filters: p.format === 'json' ? { JSON: ['json'] } : { Markdown: ['md', 'markdown'] },
        });
        const file = picked?.[0];
        if (!file) return null;
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
        const result = await client.sendRequest(MemoryImportRequest.type, { scope: p.scope, format: p.format, text, ...(p.folder !== undefined ? { folder: p.folder } : {}) });
        const summary = importSummary(scopeName(p), result);
        void vscode.window.showInformationMessage(summary);
        return changed({ ...result, summary });
      },
      'inbox/list': async (p) => {
        this.requireMemory();
        return inboxPage(client, p.offset, p.limit);
      },
      'inbox/approve': async (p) => changed(await client.sendRequest(MemoryInboxApproveRequest.type, p)),
      'inbox/acceptRepository': async (p) => changed(await client.sendRequest(MemoryInboxAcceptRepositoryRequest.type, p)),
      'inbox/approveEdited': async (p) => changed(await client.sendRequest(MemoryInboxApproveEditedRequest.type, p)),
      'inbox/reject': async (p) => changed(await client.sendRequest(MemoryInboxRejectRequest.type, p)),
      'inbox/merge': async (p) => changed(await client.sendRequest(MemoryInboxMergeRequest.type, p)),
      'inbox/mergeTargets': async (p) => {
        this.requireMemory();
        return mergeTargets(client, p.id, p.query);
      },
      'item/open': async (p) => {
        const item = await this.knownItem(p.id);
        await vscode.window.showTextDocument(vscode.Uri.file(item.path), { preview: false });
        return null;
      },
      // Per finding, asked in VS Code (flaggedRemedy.ts): which finding, the text it lets through, the rules it clears.
      'item/markReviewed': async (p) => {
        await vscode.commands.executeCommand('sessionKnowledge.markReviewed', p.id, p.revision);
        return changed(null);
      },
      'item/removeFlaggedLines': async (p) => {
        await vscode.commands.executeCommand('sessionKnowledge.removeFlaggedLines', p.id, p.revision);
        return changed(null);
      },
      'item/acceptRepositoryReview': async (p) => {
        await client.sendRequest(AcceptRepositoryReviewRequest.type, p);
        return changed(null);
      },
      'item/forget': async (p) => {
        const item = await this.knownItem(p.id);
        await vscode.workspace.fs.delete(vscode.Uri.file(item.path), { useTrash: false });
        return changed(null);
      },
    };
  }

  dispose(): void {
    clearTimeout(this.changeTimer);
    for (const d of [...this.viewDisposables, ...this.disposables]) d.dispose();
  }
}

/** What an import did, in one sentence: the panel and the notification both show it. */
export function importSummary(scope: string, r: ImportResult): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const skipped = r.skipped.length > 0 ? `: ${r.skipped.slice(0, 3).join('; ')}${r.skipped.length > 3 ? '; …' : ''}` : '';
  return `Imported ${count(r.imported, 'entry', 'entries')} into ${scope} memory (pending review), ${r.flagged} flagged and withheld, ${r.skipped.length} skipped${skipped}.`;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || '(message)'}: ${issue.message}` : 'invalid';
}

/**
 * Registers the knowledge panel's webview view. Call only when SESSION_KNOWLEDGE_MEMORY_ENABLE is set (the
 * view's `when` clause hides it otherwise). Memory parts appear once `host.memoryOn()` is true.
 */
export function registerKnowledgePanel(context: vscode.ExtensionContext, host: PanelHost): vscode.Disposable {
  const provider = new KnowledgePanelProvider(context, host);
  const registration = vscode.window.registerWebviewViewProvider(PANEL_VIEW_ID, provider);
  const all = vscode.Disposable.from(registration, provider);
  context.subscriptions.push(all);
  return all;
}
