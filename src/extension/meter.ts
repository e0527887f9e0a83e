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
import { PIN_TARGETS, targetLabel } from './pinTargetWords';

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

const k = (n: number) => `${Math.round(n / 100) / 10}k`;

export function itemMark(block: PendingBlock, id: string): { icon: string; text: string } {
  const item = block.items.find((i) => i.id === id);
  if (block.budget.cutItems.includes(id)) return { icon: 'warning', text: 'too large for the budget — cut' };
  if (!item) return { icon: 'question', text: 'not compiled' };
  if (item.state === 'withheld') return { icon: 'warning', text: `withheld — ${item.reason ?? 'reads as an instruction'}` };
  if (item.state === 'unavailable') return { icon: 'error', text: `missing — ${item.reason ?? 'deleted or moved'}` };
  return { icon: 'check', text: 'included in full' };
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
    const block = known?.block ?? (await this.client.sendRequest(CompilePinsRequest.type, { pins, budgetTokens: blockBudget() }));
    // Cheap for the status bar: the figures recorded at the last send — unless this chat's pins changed since, which the
    // server's (memoised, pure) resolve tells: a pin to this chat shows as "re-send pending" at once, not at its next message.
    const recorded = session ? !session.delivered || (session.pending !== '' && session.pending !== session.delivered) : pins.length > 0;
    const sendsBlock = session && !recorded ? await this.client.sendRequest(ResolvePendingRequest.type, { key: session.key, budgetTokens: blockBudget() }).then((b) => b.text !== '', () => recorded) : recorded;
    return { session, pins, block, sendsBlock };
  }

  /** Redraws the status bar; `known`: the pins and block the tree has just read, so they are not asked for twice. */
  async show(sessionKey: string | undefined, known?: KnownPins): Promise<void> {
    try {
      const [{ session, pins, block, sendsBlock }, waiting] = await Promise.all([this.next(sessionKey, false, known), this.inbox()]);
      const { budget } = block;
      const problems = block.items.filter((i) => i.state !== 'ok').length;
      const cut = budget.cutItems.length > 0 || budget.cutMemoryEntries > 0;
      const where = session ? `this chat “${session.name}”` : 'the next chat';
      const state = session ? (!session.delivered ? 'never delivered' : sendsBlock ? 're-send pending' : 'carrying') : pins.length ? 'waiting for the first message' : 'nothing pinned';
      const inboxText = waiting > 0 ? ` $(inbox) ${waiting}` : '';
      const short = session ? ` ${session.name.length > 24 ? `${session.name.slice(0, 23)}…` : session.name} ·` : '';
      this.item.text = `$(${PIN_TARGETS[session ? 'thisChat' : 'nextChat'].icon})${short} ${pins.length}${pins.length ? ` · ${k(budget.usedTokens)}/${k(budget.budgetTokens)}` : ''}${cut || problems ? ' $(warning)' : ''}${inboxText}`;
      this.item.tooltip = new vscode.MarkdownString(
        `**Session Knowledge** — ${where.replace(/[\\`*_{}[\]()#+\-.!<>|~]/g, '\\$&')}: ${state}\n\n${pins.length} pinned item(s); block ${budget.usedTokens} of ${budget.budgetTokens} tokens${problems ? `\n\n${problems} withheld or missing` : ''}${cut ? `\n\nCut to fit: ${[...budget.cutItems, budget.cutMemoryEntries ? `${budget.cutMemoryEntries} memory entries` : ''].filter(Boolean).join(', ')}` : ''}${waiting > 0 ? `\n\n${waiting} item(s) wait in the memory inbox (Knowledge Panel)` : ''}\n\nClick to see what the next message carries.`,
      );
      this.item.accessibilityInformation = {
        label: `Session Knowledge: ${pins.length} item(s) pinned to ${where}, ${state}, ${budget.usedTokens} of ${budget.budgetTokens} tokens${problems ? `, ${problems} withheld or missing` : ''}${cut ? ', some cut to fit' : ''}${waiting > 0 ? `, ${waiting} waiting in the memory inbox` : ''}`,
        role: 'button',
      };
      this.item.backgroundColor = cut || problems ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
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
      { label: `$(${PIN_TARGETS[session ? 'thisChat' : 'nextChat'].icon}) Pin more to ${session ? 'this chat' : 'the next chat'}…`, action: 'pin' },
    ];
    const qp = vscode.window.createQuickPick<Row>();
    const when = session ? (sendsBlock ? 'the next message sends the block' : 'carried: the next message sends nothing again') : 'the first @knowledge message sends these';
    qp.title = `Session Knowledge — ${targetLabel(session ? 'thisChat' : 'nextChat', session?.name)}: ${pins.length} pinned · ${when}`;
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
      `<!-- Session Knowledge — preview of ${session ? `this chat “${session.name}”` : 'the next chat'}, ${new Date().toLocaleString()}`,
      session && !sendsBlock
        ? '     The session already carries this block: its next message sends nothing again (an edit, an unpin or a compaction sends it again).'
        : `     The next message sends the block below${pins.length === 0 ? ' (nothing is pinned)' : ''}.`,
      `     ${block.budget.usedTokens} of ${block.budget.budgetTokens} tokens; ${pins.length} pinned item(s).`,
      ...pins.map((id) => `     - ${id}: ${itemMark(block, id).text}`),
      ...(block.budget.cutMemoryEntries ? [`     ${block.budget.cutMemoryEntries} memory entries cut to fit the budget.`] : []),
      '-->',
      '',
    ];
    const text = `${header.join('\n')}${block.text}\n`;
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/Knowledge Block (${session ? 'this chat' : 'next chat'}).md` });
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
