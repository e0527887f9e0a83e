/**
 * The "Notes and Plans" tree: what is pinned to the next chat, then `.knowledge/notes` and
 * `.knowledge/plans` as the server indexes them.
 */
import * as vscode from 'vscode';
import type { KnowledgeItem, KnowledgeKind } from '../shared/schemas';

type GroupKind = KnowledgeKind | 'draft' | 'session';

export type TreeNode =
  | { type: 'group'; kind: GroupKind; children: TreeNode[] }
  | { type: 'item'; item: KnowledgeItem; pinned: boolean }
  | { type: 'draftPin'; id: string; item?: KnowledgeItem }
  | { type: 'sessionPin'; id: string; item?: KnowledgeItem };

const GROUP_LABEL: Record<GroupKind, string> = { session: 'Active Chat Session', draft: 'Pinned to Next Chat', note: 'Notes', plan: 'Plans' };

export interface TreeSource {
  items(): Promise<KnowledgeItem[]>;
  draftPins(): Promise<string[]>;
  /** The @knowledge session this window talked in last, with its pins. */
  activeSession(): Promise<{ key: string; pins: string[] } | undefined>;
  workspaceFolder: vscode.Uri | undefined;
}

export class NotesTreeProvider implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private items: KnowledgeItem[] = [];
  private draft: string[] = [];
  private session: { key: string; pins: string[] } | undefined;

  constructor(private readonly source: TreeSource) {}

  /** Re-reads the index and the draft from the server and redraws. */
  async refresh(): Promise<void> {
    [this.items, this.draft, this.session] = await Promise.all([this.source.items(), this.source.draftPins(), this.source.activeSession()]);
    this.changed.fire(undefined);
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
      groups.push({ type: 'group', kind: 'session', children: this.session.pins.map((id) => ({ type: 'sessionPin', id, item: byId.get(id) })) });
    }
    if (this.draft.length > 0) {
      groups.push({ type: 'group', kind: 'draft', children: this.draft.map((id) => ({ type: 'draftPin', id, item: byId.get(id) })) });
    }
    for (const kind of ['note', 'plan'] as const) {
      groups.push({ type: 'group', kind, children: this.items.filter((i) => i.kind === kind).map((item) => ({ type: 'item', item, pinned: pinned.has(item.id) })) });
    }
    return groups;
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
      t.description = node.item ? node.id.split('/').pop() : node.id;
      t.iconPath = new vscode.ThemeIcon('pinned');
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
    t.description = `${item.id.split('/').pop()}${node.pinned ? ' · pinned' : ''}${flagged ? ' · withheld' : ''}`;
    t.tooltip = flagged
      ? new vscode.MarkdownString().appendText(`Withheld from the agent — reads as an instruction (${item.flaggedRules.join(', ')}).\nOpen it to see what matched; mark it reviewed if it is intended.\n${item.id}`)
      : new vscode.MarkdownString().appendText(`${item.title}\n${item.id}`);
    t.iconPath = flagged ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon(item.kind === 'note' ? 'note' : 'checklist');
    t.contextValue = `knowledgeItem.${item.kind}${node.pinned ? '.pinned' : ''}`;
    t.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(item.path)] };
    return t;
  }
}
