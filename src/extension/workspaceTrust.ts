/**
 * Restricted Mode (VS Code's workspace trust), decided in one place. The extension declares
 * `capabilities.untrustedWorkspaces: limited`: in a folder the person has not trusted, the knowledge is still
 * scanned, listed and warned about (warnings on an untrusted repository's knowledge are exactly what a person
 * wants), but nothing of it is delivered to a model or an agent, nothing is written for another tool (Claude
 * Code's hooks, `.mcp.json`, Copilot's instruction file, the MCP server definitions) and no scheduled prompt runs.
 * Every such path asks this module; when the person grants trust (`onDidGrantWorkspaceTrust`) everything
 * resumes without a reload.
 */
import * as vscode from 'vscode';

/** Whether knowledge may reach a model or an agent, and files may be written for other tools: the folder is trusted. */
export function deliveryAllowed(): boolean {
  return vscode.workspace.isTrusted;
}

/** What the person (or a model, through a tool) is told instead of the knowledge. */
export const RESTRICTED_NOTICE =
  'This folder is open in Restricted Mode, so Session Knowledge delivers no pinned knowledge to language models or agents. ' +
  'Its notes are still scanned and warned about. Trust the folder (Manage Workspace Trust) to deliver them.';

/** The one line `@knowledge` adds to its answer when it sent the message without the knowledge block. */
export const RESTRICTED_CHAT_NOTE =
  '\n\n---\n*Restricted Mode: your message was sent without the pinned knowledge. Trust this folder (**Manage Workspace Trust**) to deliver it.*';

/** Thrown to other extensions (the exported API) asking for the block in Restricted Mode. */
export class RestrictedModeError extends Error {
  constructor() {
    super(RESTRICTED_NOTICE);
    this.name = 'RestrictedModeError';
  }
}

/**
 * Refuses `what` (a write for another tool, a scheduled run) in Restricted Mode: tells the person why and
 * answers true. Answers false in a trusted folder.
 */
export function refusedInRestrictedMode(what: string, output?: vscode.LogOutputChannel): boolean {
  if (deliveryAllowed()) return false;
  const message = `${what}: not in Restricted Mode. This folder is not trusted, so Session Knowledge writes nothing for other tools and runs no scheduled prompt. Trust the folder (Manage Workspace Trust) first.`;
  output?.warn(message);
  void vscode.window.showWarningMessage(message, 'Manage Workspace Trust').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return true;
}

/** Runs `listener` when the person grants trust to this workspace (VS Code has no event for revoking: it reloads). */
export function onTrustGranted(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidGrantWorkspaceTrust(listener);
}
