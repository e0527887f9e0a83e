/**
 * The three places a pin can go, as a person sees them: one icon, one name and one tooltip each, shared by the
 * tree's sections, the status bar, the quick picks and the "Pin…" command. Pure (no `vscode`): unit-tested.
 */

export type PinTarget = 'thisChat' | 'nextChat' | 'allAgents';

export interface PinTargetWords {
  /** A codicon name. */
  icon: string;
  /** "This chat", "Next chat", "All agents". */
  name: string;
  /** The command that pins there. */
  command: string;
  tooltip: string;
}

export const PIN_TARGETS: Record<PinTarget, PinTargetWords> = {
  thisChat: {
    icon: 'comment-discussion',
    name: 'This chat',
    command: 'sessionKnowledge.pinToActiveSession',
    tooltip: 'The @knowledge chat you are in: its next message sends what changed.',
  },
  nextChat: {
    icon: 'arrow-right',
    name: 'Next chat',
    command: 'sessionKnowledge.pinToNextChat',
    tooltip: 'Passes into the next chat started with @knowledge, with its first message.',
  },
  allAgents: {
    icon: 'organization',
    name: 'All agents',
    command: 'sessionKnowledge.pinForAllAgents',
    tooltip: 'Agents outside @knowledge (.knowledge/pins.json): Claude Code through its hooks, MCP clients, Copilot when shared.',
  },
};

/** "This chat — <name>" (the chat's name when known), "Next chat", "All agents". */
export function targetLabel(target: PinTarget, chatName?: string): string {
  const { name } = PIN_TARGETS[target];
  return target === 'thisChat' && chatName ? `${name} — ${chatName}` : name;
}

/**
 * The targets the "Pin…" command offers, in order: the one chosen last first (remembered per window), then the
 * rest in their usual order. Without a chat in this window, "This chat" is not offered.
 */
export function offeredTargets(hasChat: boolean, remembered: PinTarget | undefined): PinTarget[] {
  const all: PinTarget[] = hasChat ? ['thisChat', 'nextChat', 'allAgents'] : ['nextChat', 'allAgents'];
  return remembered && all.includes(remembered) ? [remembered, ...all.filter((t) => t !== remembered)] : all;
}

/** A remembered value read back from storage: a target, or undefined for anything else. */
export function asPinTarget(value: unknown): PinTarget | undefined {
  return value === 'thisChat' || value === 'nextChat' || value === 'allAgents' ? value : undefined;
}
