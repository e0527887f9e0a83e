/** The "Notes and Plans" tree: `.knowledge/notes` and `.knowledge/plans`, as the server indexes them. */
import * as vscode from 'vscode';
import type { KnowledgeItem, KnowledgeKind } from '../shared/schemas';

type Node = { type: 'group'; kind: KnowledgeKind; items: KnowledgeItem[] } | { type: 'item'; item: KnowledgeItem };

const GROUP_LABEL: Record<KnowledgeKind, string> = { note: 'Notes', plan: 'Plans' };

export class NotesTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private items: KnowledgeItem[] = [];

  constructor(private readonly load: () => Promise<KnowledgeItem[]>) {}

  /** Re-reads the index from the server and redraws. */
  async refresh(): Promise<void> {
    this.items = await this.load();
    this.changed.fire(undefined);
  }

  get current(): readonly KnowledgeItem[] {
    return this.items;
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      if (this.items.length === 0) return []; // the welcome view explains what to do
      return (['note', 'plan'] as const).map((kind) => ({ type: 'group', kind, items: this.items.filter((i) => i.kind === kind) }));
    }
    return node.type === 'group' ? node.items.map((item) => ({ type: 'item', item })) : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.type === 'group') {
      const t = new vscode.TreeItem(GROUP_LABEL[node.kind], vscode.TreeItemCollapsibleState.Expanded);
      t.id = `group:${node.kind}`;
      t.description = String(node.items.length);
      t.contextValue = `knowledgeGroup.${node.kind}`;
      return t;
    }
    const { item } = node;
    const t = new vscode.TreeItem(item.title, vscode.TreeItemCollapsibleState.None);
    t.id = item.id;
    t.resourceUri = vscode.Uri.file(item.path);
    t.description = item.id.split('/').pop();
    t.tooltip = new vscode.MarkdownString().appendText(`${item.title}\n${item.id}`);
    t.iconPath = new vscode.ThemeIcon(item.kind === 'note' ? 'note' : 'checklist');
    t.contextValue = `knowledgeItem.${item.kind}`;
    t.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(item.path)] };
    return t;
  }
}
