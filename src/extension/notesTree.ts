/**
 * The "Notes and Plans" tree: what is pinned to the next chat, what is pinned for all agents
 * (`.knowledge/pins.json`), then `.knowledge/notes` and `.knowledge/plans` as the server indexes them — in a
 * workspace of several folders, every folder's, each item naming its folder.
 */
import * as vscode from 'vscode';
import { UNJUDGED_RULE, type KnowledgeItem, type KnowledgeKind } from '../shared/schemas';
import type { PendingBlock } from '../shared/sessionSchemas';
import { itemMark, type KnownPins } from './meter';
import { PIN_TARGETS, type PinTarget } from './pinTargetWords';

type GroupKind = KnowledgeKind | 'draft' | 'session' | 'agents';

export type TreeNode =
  | { type: 'group'; kind: GroupKind; children: TreeNode[] }
  | { type: 'item'; item: KnowledgeItem; pinned: boolean; agentPinned?: boolean }
  | { type: 'draftPin'; id: string; item?: KnowledgeItem; block?: PendingBlock }
  | { type: 'sessionPin'; id: string; item?: KnowledgeItem; block?: PendingBlock }
  /** An agent pin; `refused` when a hand-edited pins.json names a file the pin policy refuses (agents never get it). */
  | { type: 'agentPin'; id: string; item?: KnowledgeItem; block?: PendingBlock; refused?: string };

const GROUP_LABEL: Record<GroupKind, string> = { session: 'Pinned to This Chat', draft: 'Pinned to Next Chat', agents: 'Pinned for All Agents', note: 'Notes', plan: 'Plans' };
/** The pin target each pinned section is (its icon and tooltip). */
const GROUP_TARGET: Partial<Record<GroupKind, PinTarget>> = { session: 'thisChat', draft: 'nextChat', agents: 'allAgents' };

export interface TreeSource {
  items(): Promise<KnowledgeItem[]>;
  draftPins(): Promise<string[]>;
  /** The @knowledge session this window talked in last, with its pins and its name. */
  activeSession(): Promise<{ key: string; pins: string[]; name?: string } | undefined>;
  /** The block these pins compile to (withheld, missing and cut items are marked from it). */
  compile(pins: string[]): Promise<PendingBlock | undefined>;
  /** The agent pins (`.knowledge/pins.json`), what it names that is refused, and the block agents get. */
  agentPins?(): Promise<AgentPinsState>;
  /** The file a pinned id names (ids start with their folder's name when the workspace has several). */
  uriOf(id: string): vscode.Uri | undefined;
}

export interface AgentPinsState {
  pins: string[];
  refused: { pin: string; reason: string }[];
  block?: PendingBlock;
}

export class NotesTreeProvider implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private items: KnowledgeItem[] = [];
  private draft: string[] = [];
  private session: { key: string; pins: string[]; name?: string } | undefined;
  private draftBlock: PendingBlock | undefined;
  /** Ids whose title or file name another item shares: these show their path. */
  private clashing = new Set<string>();
  private sessionBlock: PendingBlock | undefined;
  private agents: AgentPinsState = { pins: [], refused: [] };

  constructor(private readonly source: TreeSource) {}

  /** Re-reads the index and the draft from the server and redraws. */
  async refresh(): Promise<void> {
    [this.items, this.draft, this.session, this.agents] = await Promise.all([
      this.source.items(),
      this.source.draftPins(),
      this.source.activeSession(),
      // Agent pins never blank the rest of the tree: a pins.json that cannot be read shows no section.
      this.source.agentPins?.().catch(() => undefined).then((a) => a ?? { pins: [], refused: [] }) ?? { pins: [], refused: [] },
    ]);
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

  /** The active chat's pins and name as the tree last read them (undefined: no chat in this window yet). */
  get activeChat(): { key: string; pins: readonly string[]; name?: string } | undefined {
    return this.session;
  }

  get current(): readonly KnowledgeItem[] {
    return this.items;
  }

  get draftPins(): readonly string[] {
    return this.draft;
  }

  /** The agent pins as the tree last read them. */
  get agentPins(): readonly string[] {
    return this.agents.pins;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (node) return node.type === 'group' ? node.children : [];
    const agentCount = this.agents.pins.length + this.agents.refused.length;
    if (this.items.length === 0 && this.draft.length === 0 && agentCount === 0) return []; // the welcome view explains what to do
    const byId = new Map(this.items.map((i) => [i.id, i]));
    const pinned = new Set(this.draft);
    const groups: TreeNode[] = [];
    if (this.session) {
      groups.push({ type: 'group', kind: 'session', children: this.session.pins.map((id) => ({ type: 'sessionPin', id, item: byId.get(id), block: this.sessionBlock })) });
    }
    if (this.draft.length > 0) {
      groups.push({ type: 'group', kind: 'draft', children: this.draft.map((id) => ({ type: 'draftPin', id, item: byId.get(id), block: this.draftBlock })) });
    }
    if (agentCount > 0) {
      const { pins, refused, block } = this.agents;
      groups.push({
        type: 'group',
        kind: 'agents',
        children: [
          ...pins.map((id): TreeNode => ({ type: 'agentPin', id, item: byId.get(id), block })),
          ...refused.map((r): TreeNode => ({ type: 'agentPin', id: r.pin, refused: r.reason })),
        ],
      });
    }
    const forAgents = new Set(this.agents.pins);
    for (const kind of ['note', 'plan'] as const) {
      groups.push({ type: 'group', kind, children: this.items.filter((i) => i.kind === kind).map((item) => ({ type: 'item', item, pinned: pinned.has(item.id), agentPinned: forAgents.has(item.id) })) });
    }
    return groups;
  }

  /**
   * The file name, or enough of the path to tell apart items that share a title or a file name; in a workspace of
   * several folders, after the folder's name (`infra · deploy.md`).
   */
  private shortPath(id: string, folder?: string): string {
    const rel = folder !== undefined && id.startsWith(`${folder}/`) ? id.slice(folder.length + 1) : id;
    const short = this.clashing.has(id) ? rel.replace(/^\.knowledge\//, '') : (rel.split('/').pop() ?? rel);
    return folder !== undefined ? `${folder} · ${short}` : short;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node.type === 'group') {
      const named = node.kind === 'session' && this.session?.name ? `${GROUP_LABEL.session} — ${this.session.name}` : GROUP_LABEL[node.kind];
      const t = new vscode.TreeItem(named, vscode.TreeItemCollapsibleState.Expanded);
      t.id = `group:${node.kind}`;
      t.description = String(node.children.length);
      t.contextValue = `knowledgeGroup.${node.kind}`;
      const target = GROUP_TARGET[node.kind];
      if (target) {
        t.iconPath = new vscode.ThemeIcon(PIN_TARGETS[target].icon);
        t.tooltip = `${named}: ${PIN_TARGETS[target].tooltip}`;
      }
      return t;
    }
    if (node.type === 'agentPin' && node.refused) {
      const t = new vscode.TreeItem(node.id, vscode.TreeItemCollapsibleState.None);
      t.id = `agentPin:refused:${node.id}`;
      t.description = 'refused — agents never get it';
      t.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
      t.tooltip = new vscode.MarkdownString().appendText(`${node.id}\nNamed in .knowledge/pins.json but refused: ${node.refused}. Unpin it to tidy the file.`);
      t.contextValue = 'agentPin';
      return t;
    }
    if (node.type === 'draftPin' || node.type === 'sessionPin' || node.type === 'agentPin') {
      const t = new vscode.TreeItem(node.item?.title ?? node.id, vscode.TreeItemCollapsibleState.None);
      t.id = `${node.type}:${node.id}`;
      // Withheld, missing and cut pins say so, as the panel does; a clean pin shows only its file name.
      const mark = node.block ? itemMark(node.block, node.id) : undefined;
      const problem = mark && mark.icon !== 'check' ? mark : undefined;
      t.description = `${node.item ? this.shortPath(node.id, node.item.folder) : node.id}${problem ? ` · ${problem.text.split(' — ')[0]}` : ''}`;
      t.iconPath = problem ? new vscode.ThemeIcon(problem.icon, new vscode.ThemeColor(problem.icon === 'error' ? 'list.errorForeground' : 'list.warningForeground')) : new vscode.ThemeIcon('pinned');
      const fine = node.type === 'agentPin' ? 'Pinned for all agents: Claude Code, MCP clients and (when shared) Copilot carry it.' : 'Pinned: sent in full when the block is due (the first message, or the next one after a change).';
      t.tooltip = new vscode.MarkdownString().appendText(`${node.id}\n${problem ? problem.text : fine}`);
      t.contextValue = node.type;
      const uri = node.item ? vscode.Uri.file(node.item.path) : this.source.uriOf(node.id);
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
    t.description = `${this.shortPath(item.id, item.folder)}${node.pinned ? ' · pinned' : ''}${node.agentPinned ? ' · all agents' : ''}${flagged ? ' · withheld' : ''}`;
    const unjudged = item.flaggedRules.includes(UNJUDGED_RULE);
    t.tooltip = unjudged
      ? new vscode.MarkdownString().appendText(
          `Withheld from the agent — not judged: the threat scanner could not run (its model file is missing or damaged; the Session Knowledge output names it). Reinstall or rebuild the extension to restore it.\n${item.id}`,
        )
      : flagged
      ? new vscode.MarkdownString().appendText(
          `Withheld from the agent — reads as an instruction (${item.flaggedRules.join(', ')}).\n${item.repositoryReviewedBy !== undefined ? `Reviewed by ${item.repositoryReviewedBy} in the repository — not accepted by you. Open it to accept that review, or run Accept the Repository's Reviews….` : 'Open it to see what matched; mark it reviewed if it is intended.'}\n${item.id}`,
        )
      : new vscode.MarkdownString().appendText(`${item.title}\n${item.id}${item.folder !== undefined ? `\nWorkspace folder: ${item.folder}` : ''}`);
    t.iconPath = flagged ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon(item.kind === 'note' ? 'note' : 'checklist');
    t.contextValue = `knowledgeItem.${item.kind}${node.pinned ? '.pinned' : ''}`;
    t.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(item.path)] };
    return t;
  }
}
