/**
 * "Pin…": the one pin command that offers the targets. While a chat with `@knowledge` is active in this window it
 * asks — This chat (named), Next chat, All agents — with the choice made last offered first (remembered per
 * window, in workspace state); without one it pins to the next chat, as it always did. The tree's pin button runs
 * it; the editor title has the same targets as a submenu (package.json `sessionKnowledge.pinTargets`).
 */
import * as vscode from 'vscode';
import { PIN_TARGETS, asPinTarget, offeredTargets, targetLabel, type PinTarget } from './pinTargetWords';

/** Where the last choice is kept (workspace state: this window's workspace). */
export const PIN_TARGET_KEY = 'sessionKnowledge.pinTarget';

/** Tests only (SK_TEST_HOOKS): the targets the next "Pin…" questions get, in order, instead of asking. */
export const testPinTargets: PinTarget[] = [];

export interface PinTargetDeps {
  state: vscode.Memento;
  /** The @knowledge chat this window talks in, with its name; undefined when there is none yet. */
  activeChat: () => { key: string; name: string } | undefined;
}

const ACTION: Record<PinTarget, string> = { thisChat: 'Pin to This Chat', nextChat: 'Pin to Next Chat', allAgents: 'Pin for All Agents' };

async function choose(deps: PinTargetDeps): Promise<PinTarget | undefined> {
  const chat = deps.activeChat();
  if (!chat) return 'nextChat';
  if (testPinTargets.length > 0) return testPinTargets.shift();
  const remembered = asPinTarget(deps.state.get(PIN_TARGET_KEY));
  const picks = offeredTargets(true, remembered).map((target) => ({
    label: `$(${PIN_TARGETS[target].icon}) ${ACTION[target]}`,
    description: `${targetLabel(target, chat.name)}${target === remembered ? ' · chosen last' : ''}`,
    detail: PIN_TARGETS[target].tooltip,
    target,
  }));
  const picked = await vscode.window.showQuickPick(picks, { title: 'Pin where?', placeHolder: 'This chat, the next chat, or every agent' });
  return picked?.target;
}

export function registerPinTargets(context: vscode.ExtensionContext, deps: PinTargetDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('sessionKnowledge.pin', async (target?: unknown, selection?: unknown) => {
      const chosen = await choose(deps);
      if (!chosen) return undefined;
      if (deps.activeChat()) await deps.state.update(PIN_TARGET_KEY, chosen);
      return vscode.commands.executeCommand(PIN_TARGETS[chosen].command, target, selection);
    }),
  );
}
