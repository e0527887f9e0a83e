/**
 * Owns `sessionKnowledge.sessionRetentionDays`: the one place that reads it, and the prune request that a
 * (re)started server and every change of the setting send. Pruning never holds up other requests.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { PruneSessionsRequest } from '../shared/protocol';
import type { ServerSetup } from './languageClient';

/** The setting's default (package.json says the same): days without activity before a session goes. */
export const DEFAULT_SESSION_RETENTION_DAYS = 90;

/** Days without activity after which a session is removed (0: keep every session). */
export function sessionRetentionDays(): number {
  const value = vscode.workspace.getConfiguration('sessionKnowledge').get<number>('sessionRetentionDays', DEFAULT_SESSION_RETENTION_DAYS);
  return Number.isInteger(value) && value >= 0 ? Math.min(value, 36_500) : DEFAULT_SESSION_RETENTION_DAYS;
}

export function registerRetention(context: vscode.ExtensionContext, lc: LanguageClient, setup: ServerSetup, output: vscode.LogOutputChannel): void {
  const prune = async (): Promise<void> => {
    const days = sessionRetentionDays();
    if (days === 0) return;
    try {
      const out = await lc.sendRequest(PruneSessionsRequest.type, { olderThanDays: days });
      if (out.pruned.length > 0) output.info(`Retention: removed ${out.pruned.length} session(s) with no activity for ${days} days, and ${out.memoryEntries} of their session memory entries.${out.memoryKept ? ` Their memory was kept: ${out.memoryKept}` : ''}`);
    } catch (err) {
      output.warn(`Retention: could not prune old sessions: ${(err as Error)?.message ?? String(err)}`);
    }
  };
  // Fire and forget: a (re)started server prunes in the background; no other request waits for it.
  // Not in the step's methods: the prune waits like any request for the other steps (memory's read-only switch first).
  setup.add([], () => {
    void prune();
    return Promise.resolve();
  });
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('sessionKnowledge.sessionRetentionDays') && lc.isRunning()) void prune();
    }),
  );
}
