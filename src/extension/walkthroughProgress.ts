/**
 * The walkthrough follows what the person did, not only which link they clicked: each step of
 * `contributes.walkthroughs` completes on its commands (`onCommand:`) and on a context key set here (`onContext:`)
 * when the person did the thing by any other way — a note written in the editor or on disk, a pin from the tree, the
 * editor title, `/pin` or another window, a flagged note opened, a message to @knowledge, memory turned on in the panel.
 * Keys are only ever set to true (a step once done stays done, as VS Code keeps it). `done` is what was set, for tests
 * (VS Code has no API that reads a context key back).
 */
import * as vscode from 'vscode';

/** The context keys, by step (package.json's completion events name the same keys). */
export const WALKTHROUGH_KEYS = {
  noteWritten: 'sessionKnowledge.walkthrough.noteWritten',
  pinned: 'sessionKnowledge.walkthrough.pinned',
  sawWithheld: 'sessionKnowledge.walkthrough.sawWithheld',
  chatted: 'sessionKnowledge.walkthrough.chatted',
  memoryOn: 'sessionKnowledge.walkthrough.memoryOn',
} as const;

export type WalkthroughStep = keyof typeof WALKTHROUGH_KEYS;

/** What the tree last read: the items (with their verdicts) and every pin list. */
export interface PinsSeen {
  items: readonly { id: string; flaggedRules: readonly string[] }[];
  draftPins: readonly string[];
  sessionPins: readonly string[];
  agentPins: readonly string[];
}

/** A knowledge file (a note or a plan) by its path: what "write a note" means. */
const KNOWLEDGE_FILE = /(^|[\\/])\.knowledge[\\/](notes|plans)[\\/].+\.md$/i;

export class WalkthroughProgress implements vscode.Disposable {
  readonly done = new Set<WalkthroughStep>();
  private readonly disposables: vscode.Disposable[] = [];
  /** The ids and agent pins seen first: a new one later is something the person wrote or pinned. */
  private firstItems: Set<string> | undefined;
  private firstAgentPins: Set<string> | undefined;
  private flagged = new Set<string>();

  constructor(private readonly idOf: (uri: vscode.Uri) => string | undefined) {
    this.disposables.push(
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (KNOWLEDGE_FILE.test(doc.uri.path)) this.mark('noteWritten');
      }),
      vscode.workspace.onDidCreateFiles((e) => {
        if (e.files.some((f) => KNOWLEDGE_FILE.test(f.path))) this.mark('noteWritten');
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.checkEditor()),
    );
  }

  mark(step: WalkthroughStep): void {
    if (this.done.has(step)) return;
    this.done.add(step);
    void vscode.commands.executeCommand('setContext', WALKTHROUGH_KEYS[step], true);
  }

  /** After each refresh of the tree: a pin anywhere of the person's own, a new item, the flagged items to watch for. */
  observe(seen: PinsSeen): void {
    // The draft and the session's pins are this person's (per-user state); the agent pins are a committed file, so
    // only one added while the window is open counts.
    if (seen.draftPins.length > 0 || seen.sessionPins.length > 0) this.mark('pinned');
    if (this.firstAgentPins === undefined) this.firstAgentPins = new Set(seen.agentPins);
    else if (seen.agentPins.some((p) => !this.firstAgentPins!.has(p))) this.mark('pinned');
    if (this.firstItems === undefined) this.firstItems = new Set(seen.items.map((i) => i.id));
    else if (seen.items.some((i) => !this.firstItems!.has(i.id))) this.mark('noteWritten');
    this.flagged = new Set(seen.items.filter((i) => i.flaggedRules.length > 0).map((i) => i.id));
    this.checkEditor();
  }

  /** A flagged note open in the editor: the person is looking at what "withheld" means. */
  private checkEditor(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const id = uri ? this.idOf(uri) : undefined;
    if (id !== undefined && this.flagged.has(id)) this.mark('sawWithheld');
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
