/**
 * The server's notifications, each received by exactly one handler and fanned out to every listener.
 * The language client keeps ONE handler per method (a second `onNotification` silently replaces the first), so
 * nothing else in src/extension calls `onNotification`: an ESLint rule keeps it that way.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { ItemsChangedNotification, ProblemNotification, StoreChangedNotification } from '../shared/protocol';
import { MemoryChangedNotification } from '../shared/memoryProtocol';
import type { ItemsChanged, StoreProblem } from '../shared/schemas';

export class ServerEvents implements vscode.Disposable {
  private readonly items = new vscode.EventEmitter<ItemsChanged>();
  private readonly store = new vscode.EventEmitter<void>();
  private readonly memory = new vscode.EventEmitter<void>();
  private readonly problem = new vscode.EventEmitter<StoreProblem>();
  private readonly disposables: vscode.Disposable[] = [this.items, this.store, this.memory, this.problem];

  /** A note or plan was created, edited, renamed or deleted (the index changed). */
  readonly onItemsChanged = this.items.event;
  /** Sessions or draft pins changed. */
  readonly onStoreChanged = this.store.event;
  /** Memory changed (a tool call, another window, memory.jsonl on disk). Only sent when memory exists. */
  readonly onMemoryChanged = this.memory.event;
  /** A source could not be loaded. */
  readonly onProblem = this.problem.event;

  constructor(client: LanguageClient) {
    this.disposables.push(
      client.onNotification(ItemsChangedNotification.type, (p) => this.items.fire(p)),
      client.onNotification(StoreChangedNotification.type, () => this.store.fire()),
      client.onNotification(MemoryChangedNotification.type, () => this.memory.fire()),
      client.onNotification(ProblemNotification.type, (p) => this.problem.fire(p)),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
