/**
 * The status-bar meter and its quick pick: "what will the next message carry?" — the pins of the active session
 * (or of the next chat), each marked sent / withheld / missing / cut, tokens against the budget, unpin, preview.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  CompilePinsRequest,
  GetDraftPinsRequest,
  GetSessionRequest,
  ResolvePendingRequest,
  UpdateDraftPinsRequest,
  UpdateSessionPinsRequest,
} from '../shared/protocol';
import type { PendingBlock, SessionInfo } from '../shared/sessionSchemas';
import { blockBudget } from './chat/knowledgeSend';
import { itemMark, pickTitle, previewLines, stateOf, statusBarWords, whereWords } from './statusWords';

export { itemMark } from './statusWords';

export const PREVIEW_SCHEME = 'session-knowledge-preview';

/** What the next message of a session (or the next chat) would carry, with the reasons. */
export interface NextDelivery {
  /** The session, or undefined for the next chat's draft. */
  session: SessionInfo | undefined;
  pins: string[];
  /** The full block for these pins (what the session carries once delivered). */
  block: PendingBlock;
  /** True when the next message sends the block (never delivered, or something changed). */
  sendsBlock: boolean;
}

/** Pins already read (the active session's, or the draft's) and the block they compiled to, if compiled. */
export interface KnownPins {
  pins: string[];
  block: PendingBlock | undefined;
}

export class KnowledgeMeter implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('sessionKnowledge.meter', vscode.StatusBarAlignment.Right, 100);
  private readonly previews = new Map<string, string>();
  private readonly previewChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [this.item, this.previewChanged];

  /** How many items wait in the memory inbox (set only with the memory flag; 0 while memory is off). */
  private inboxCount: (() => Promise<number>) | undefined;

  constructor(
    private readonly client: LanguageClient,
    /** The file a pinned id names (ids start with their folder's name when the workspace has several). */
    private readonly uriOf: (id: string) => vscode.Uri | undefined = (id) => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      return folder ? vscode.Uri.joinPath(folder.uri, id) : undefined;
    },
  ) {
    this.item.name = 'Session Knowledge';
    this.item.command = 'sessionKnowledge.showSessionStatus';
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
        onDidChange: this.previewChanged.event,
        provideTextDocumentContent: (uri) => this.previews.get(uri.toString()) ?? 'This preview is gone: run Session Knowledge: Preview Knowledge Block again.',
      }),
    );
  }

  /** Adds the memory inbox's count to the status bar (memory flag only). */
  setInboxCount(count: () => Promise<number>): void {
    this.inboxCount = count;
  }

  /** The inbox count now; 0 when there is none or it cannot be read (the meter never fails for it). */
  private async inbox(): Promise<number> {
    try {
      return (await this.inboxCount?.()) ?? 0;
    } catch {
      return 0;
    }
  }

  /** Pins, the compiled block and whether the next message sends it. */
  async next(sessionKey: string | undefined, exact = true, known?: KnownPins): Promise<NextDelivery> {
    const session = sessionKey ? await this.client.sendRequest(GetSessionRequest.type, { key: sessionKey }) : undefined;
    const pins = known?.pins ?? (session ? session.pins : await this.client.sendRequest(GetDraftPinsRequest.type));
    if (session && exact) {
      // The session's own block (its memory index included), and whether it differs from what it carries.
      const block = await this.client.sendRequest(ResolvePendingRequest.type, { key: session.key, budgetTokens: blockBudget() });
      const full = block.text === '' ? await this.client.sendRequest(CompilePinsRequest.type, { pins, budgetTokens: blockBudget() }) : block;
      return { session, pins, block: full, sendsBlock: block.text !== '' };
    }
    if (session) {
      // The status bar: whether the session is due (again) is decided by the server, as for the send itself — an edit
      // since the last delivery makes it due again. The block's text is not needed here (it may be '').
      const block = await this.client.sendRequest(ResolvePendingRequest.type, { key: session.key, budgetTokens: blockBudget() });
      return { session, pins: session.pins, block, sendsBlock: block.text !== '' };
    }
    const block = known?.block ?? (await this.client.sendRequest(CompilePinsRequest.type, { pins, budgetTokens: blockBudget() }));
    return { session, pins, block, sendsBlock: pins.length > 0 };
  }

  /** Redraws the status bar; `known`: the pins and block the tree has just read, so they are not asked for twice. */
  async show(sessionKey: string | undefined, known?: KnownPins): Promise<void> {
    try {
      const [{ session, pins, block, sendsBlock }, waiting] = await Promise.all([this.next(sessionKey, false, known), this.inbox()]);
      const words = statusBarWords({ session, pins: pins.length, state: stateOf({ session, pins, sendsBlock }), block, inbox: waiting });
      this.item.text = words.text;
      this.item.tooltip = new vscode.MarkdownString(words.tooltip);
      this.item.accessibilityInformation = { label: words.label, role: 'button' };
      this.item.backgroundColor = words.problem ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
      this.item.show();
    } catch {
      this.item.hide();
    }
  }

  /** The quick pick behind the status bar: every pin with its mark, unpin and open buttons, and a preview entry. */
  async pick(sessionKey: string | undefined): Promise<void> {
    const next = await this.next(sessionKey);
    const { session, pins, block, sendsBlock } = next;
    const unpin: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('pinned'), tooltip: 'Unpin' };
    const open: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: 'Open' };
    type Row = vscode.QuickPickItem & { id?: string; action?: 'preview' | 'pin' };
    const rows: Row[] = [
      { label: '$(open-preview) Preview the knowledge block', description: `${block.budget.usedTokens} of ${block.budget.budgetTokens} tokens`, action: 'preview' },
      ...pins.map((id): Row => {
        const mark = itemMark(block, id);
        return { label: `$(${mark.icon}) ${id.split('/').pop()}`, description: id, detail: mark.text, id, buttons: [open, unpin] };
      }),
      { label: '$(pin) Pin more…', action: 'pin' },
    ];
    const qp = vscode.window.createQuickPick<Row>();
    qp.title = pickTitle({ session, pins: pins.length, state: stateOf({ session, pins, sendsBlock }) });
    qp.placeholder = pins.length ? 'What the next message carries. Enter opens an item; the buttons unpin or open.' : 'Nothing is pinned yet.';
    qp.items = rows;
    qp.matchOnDescription = true;
    const done = new Promise<void>((resolve) => qp.onDidHide(() => resolve()));
    qp.onDidTriggerItemButton(async ({ item, button }) => {
      if (!item.id) return;
      if (button === open) {
        qp.hide();
        await this.openPin(item.id);
        return;
      }
      if (session) await this.client.sendRequest(UpdateSessionPinsRequest.type, { key: session.key, remove: [item.id] });
      else await this.client.sendRequest(UpdateDraftPinsRequest.type, { remove: [item.id] });
      qp.items = qp.items.filter((r) => r.id !== item.id);
      void this.show(sessionKey);
    });
    qp.onDidAccept(async () => {
      const chosen = qp.selectedItems[0];
      qp.hide();
      if (chosen?.action === 'preview') await this.preview(sessionKey);
      else if (chosen?.action === 'pin') await vscode.commands.executeCommand(session ? 'sessionKnowledge.pinToActiveSession' : 'sessionKnowledge.pinToNextChat', []);
      else if (chosen?.id) await this.openPin(chosen.id);
    });
    qp.show();
    await done;
    qp.dispose();
  }

  private async openPin(id: string): Promise<void> {
    const uri = this.uriOf(id);
    if (uri) await vscode.window.showTextDocument(uri, { preview: true }).then(undefined, () => undefined);
  }

  /** Opens, read-only, exactly what the next message would carry, with what was withheld and cut. Answers its text. */
  async preview(sessionKey: string | undefined): Promise<string> {
    const { session, pins, block, sendsBlock } = await this.next(sessionKey);
    const header = [
      `<!-- Session Knowledge — preview of ${whereWords(session)}, ${new Date().toLocaleString()}`,
      ...previewLines({ pins, state: stateOf({ session, pins, sendsBlock }), block }).map((l) => `     ${l}`),
      '-->',
      '',
    ];
    const text = `${header.join('\n')}${block.text}\n`;
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/Knowledge Block (${session ? 'active session' : 'next chat'}).md` });
    this.previews.set(uri.toString(), text);
    this.previewChanged.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
    return text;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
