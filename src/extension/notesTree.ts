/**
 * The "Notes and Plans" tree: what is pinned to the next chat, then `.knowledge/notes` and
 * `.knowledge/plans` as the server indexes them.
 */
import * as vscode from 'vscode';
import type { KnowledgeItem, KnowledgeKind, PendingBlock } from '../shared/schemas';
import { itemMark, type KnownPins } from './meter';

type GroupKind = KnowledgeKind | 'draft' | 'session';

export type TreeNode =
  | { type: 'group'; kind: GroupKind; children: TreeNode[] }
  | { type: 'item'; item: KnowledgeItem; pinned: boolean }
  | { type: 'draftPin'; id: string; item?: KnowledgeItem; block?: PendingBlock }
  | { type: 'sessionPin'; id: string; item?: KnowledgeItem; block?: PendingBlock };

const GROUP_LABEL: Record<GroupKind, string> = { session: 'Active Chat Session', draft: 'Pinned to Next Chat', note: 'Notes', plan: 'Plans' };

export interface TreeSource {
  items(): Promise<KnowledgeItem[]>;
  draftPins(): Promise<string[]>;
  /** The @knowledge session this window talked in last, with its pins. */
  activeSession(): Promise<{ key: string; pins: string[] } | undefined>;
  /** The block these pins compile to (withheld, missing and cut items are marked from it). */
  compile(pins: string[]): Promise<PendingBlock | undefined>;
  workspaceFolder: vscode.Uri | undefined;
}

export class NotesTreeProvider implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private items: KnowledgeItem[] = [];
  private draft: string[] = [];
  private session: { key: string; pins: string[] } | undefined;
  private draftBlock: PendingBlock | undefined;
  /** Ids whose title or file name another item shares: these show their path. */
  private clashing = new Set<string>();
  private sessionBlock: PendingBlock | undefined;

  constructor(private readonly source: TreeSource) {}

  /** Re-reads the index and the draft from the server and redraws. */
  async refresh(): Promise<void> {
    [this.items, this.draft, this.session] = await Promise.all([this.source.items(), this.source.draftPins(), this.source.activeSession()]);
    const seen = new Map<string, string[]>();
    for (const i of this.items) for (const key of [`t:${i.title}`, `f:${i.id.split('/').pop()}`]) seen.set(key, [...(seen.get(key) ?? []), i.id]);
    this.clashing = new Set([...seen.values()].filter((ids) => ids.length > 1).flat());
    [this.draftBlock, this.sessionBlock] = await Promise.all([
      this.draft.length ? this.source.compile(this.draft) : undefined,
      this.session?.pins.length ? this.source.compile(this.session.pins) : undefined,
    ]);
    this.changed.fire(undefined);
  }

  /** What the status bar shows: the active session's pins and block when there is a session, else the draft's. */
  get shown(): KnownPins {
    return this.session ? { pins: this.session.pins, block: this.sessionBlock } : { pins: this.draft, block: this.draftBlock };
  }

  get current(): readonly KnowledgeItem[] {
    return this.items;
  }

  get draftPins(): readonly string[] {
    return this.draft;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (node) return node.type === 'group' ? node.children : [];
    if (this.items.length === 0 && this.draft.length === 0) return []; // the welcome view explains what to do
    const byId = new Map(this.items.map((i) => [i.id, i]));
    const pinned = new Set(this.draft);
    const groups: TreeNode[] = [];
    if (this.session) {
      groups.push({ type: 'group', kind: 'session', children: this.session.pins.map((id) => ({ type: 'sessionPin', id, item: byId.get(id), block: this.sessionBlock })) });
    }
    if (this.draft.length > 0) {
      groups.push({ type: 'group', kind: 'draft', children: this.draft.map((id) => ({ type: 'draftPin', id, item: byId.get(id), block: this.draftBlock })) });
    }
    for (const kind of ['note', 'plan'] as const) {
      groups.push({ type: 'group', kind, children: this.items.filter((i) => i.kind === kind).map((item) => ({ type: 'item', item, pinned: pinned.has(item.id) })) });
    }
    return groups;
  }

  /** The file name, or enough of the path to tell apart items that share a title or a file name. */
  private shortPath(id: string): string {
    return this.clashing.has(id) ? id.replace(/^\.knowledge\//, '') : (id.split('/').pop() ?? id);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node.type === 'group') {
      const t = new vscode.TreeItem(GROUP_LABEL[node.kind], vscode.TreeItemCollapsibleState.Expanded);
      t.id = `group:${node.kind}`;
      t.description = String(node.children.length);
      t.contextValue = `knowledgeGroup.${node.kind}`;
      if (node.kind === 'draft') t.tooltip = 'These pass into the next chat session started with @knowledge.';
      if (node.kind === 'session') t.tooltip = 'Pins of the @knowledge session you talked in last. Changes are sent with its next message.';
      return t;
    }
    if (node.type === 'draftPin' || node.type === 'sessionPin') {
      const t = new vscode.TreeItem(node.item?.title ?? node.id, vscode.TreeItemCollapsibleState.None);
      t.id = `${node.type}:${node.id}`;
      // Withheld, missing and cut pins say so, as the panel does; a clean pin shows only its file name.
      const mark = node.block ? itemMark(node.block, node.id) : undefined;
      const problem = mark && mark.icon !== 'check' ? mark : undefined;
      t.description = `${node.item ? this.shortPath(node.id) : node.id}${problem ? ` · ${problem.text.split(' — ')[0]}` : ''}`;
      t.iconPath = problem ? new vscode.ThemeIcon(problem.icon, new vscode.ThemeColor(problem.icon === 'error' ? 'list.errorForeground' : 'list.warningForeground')) : new vscode.ThemeIcon('pinned');
      t.tooltip = new vscode.MarkdownString().appendText(`${node.id}\n${problem ? problem.text : 'Pinned: sent with the next message that needs it.'}`);
      t.contextValue = node.type;
      const uri = this.source.workspaceFolder ? vscode.Uri.joinPath(this.source.workspaceFolder, node.id) : undefined;
      if (uri) {
        t.resourceUri = uri;
        t.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
      }
      return t;
    }
    const { item } = node;
    const t = new vscode.TreeItem(item.title, vscode.TreeItemCollapsibleState.None);
    t.id = item.id;
    t.resourceUri = vscode.Uri.file(item.path);
    const flagged = item.flaggedRules.length > 0;
    t.description = `${this.shortPath(item.id)}${node.pinned ? ' · pinned' : ''}${flagged ? ' · withheld' : ''}`;
    t.tooltip = flagged
      ? new vscode.MarkdownString().appendText(`Withheld from the agent — reads as an instruction (${item.flaggedRules.join(', ')}).\nOpen it to see what matched; mark it reviewed if it is intended.\n${item.id}`)
      : new vscode.MarkdownString().appendText(`${item.title}\n${item.id}`);
    t.iconPath = flagged ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon(item.kind === 'note' ? 'note' : 'checklist');
    t.contextValue = `knowledgeItem.${item.kind}${node.pinned ? '.pinned' : ''}`;
    t.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(item.path)] };
    return t;
  }
}
