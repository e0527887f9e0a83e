/**
 * What the status bar, its tooltip, the status quick pick, Preview, the notes tree, `/status` and the chat footer
 * say about a delivery, in the one vocabulary of `blockWords.ts` (pinned, delivered, due, due again, withheld, cut,
 * missing). Pure — no `vscode` — so the words are unit-tested (`test/unit/statusWords.test.ts`) and every surface
 * that shows a delivery says the same thing. The meter (`meter.ts`) turns these strings into its status bar item.
 */
import { counted } from '../server/core/delivery/blockWords';
import { PIN_TARGETS } from './pinTargetWords';

/** A block as these words need it (a `PendingBlock` fits). */
export interface BlockFacts {
  items: readonly { id: string; state: 'ok' | 'withheld' | 'unavailable'; reason?: string }[];
  budget: { budgetTokens: number; usedTokens: number; cutItems: readonly string[]; cutMemoryEntries: number };
  memoryEntries?: number;
}

/** Where a session stands: its pins and whether the next message sends the block. */
export type DeliveryState = 'nothing pinned' | 'next chat' | 'due' | 'due again' | 'delivered';

/** The state of a session (`delivered`: it has carried a block before) or of the next chat's draft (no session). */
export function deliveryState(session: { delivered: boolean } | undefined, pins: number, sendsBlock: boolean): DeliveryState {
  if (!session) return pins > 0 ? 'next chat' : 'nothing pinned';
  if (sendsBlock) return session.delivered ? 'due again' : 'due';
  if (pins === 0) return 'nothing pinned';
  return session.delivered ? 'delivered' : 'due';
}

/** The state of what the meter computed: a session (with its delivered signature, '' or null when none) or the draft. */
export function stateOf(next: { session: { delivered?: string | null } | undefined; pins: readonly unknown[]; sendsBlock: boolean }): DeliveryState {
  return deliveryState(next.session && { delivered: Boolean(next.session.delivered) }, next.pins.length, next.sendsBlock);
}

/** What each state means for the next message: the one sentence the tooltip, the quick pick and `/status` share. */
export const STATE_SENTENCE: Record<DeliveryState, string> = {
  'nothing pinned': 'the next message carries no pinned knowledge',
  'next chat': 'the first @knowledge message of the next chat sends the block',
  due: 'not delivered yet, so the next message sends the block',
  'due again': 'changed since it was delivered, so the next message sends the block again',
  delivered: 'the session carries the block, so the next message sends nothing again',
};

/** One pin's mark: its icon and words, starting with its vocabulary word ("withheld — …"). */
export function itemMark(block: BlockFacts, id: string): { icon: string; text: string } {
  const item = block.items.find((i) => i.id === id);
  if (block.budget.cutItems.includes(id)) return { icon: 'warning', text: 'cut — too large for the token budget' };
  if (block.budget.cutItems.includes(`${id} (partly)`)) return { icon: 'warning', text: 'partly cut — the rest did not fit the token budget' };
  if (!item) return { icon: 'question', text: 'not compiled' };
  if (item.state === 'withheld') return { icon: 'warning', text: `withheld — ${item.reason ?? 'reads as an instruction'}` };
  if (item.state === 'unavailable') return { icon: 'error', text: `missing — ${item.reason ?? 'deleted or moved'}` };
  return { icon: 'check', text: 'in the block, in full' };
}

/** Counts of what is wrong with a block: withheld, missing, cut (pinned items wholly or partly, memory entries). */
export function blockProblems(block: BlockFacts): { withheld: number; missing: number; cut: number; cutMemory: number } {
  return {
    withheld: block.items.filter((i) => i.state === 'withheld').length,
    missing: block.items.filter((i) => i.state === 'unavailable').length,
    cut: block.budget.cutItems.length,
    cutMemory: block.budget.cutMemoryEntries,
  };
}

/** ["1 withheld", "1 missing", "2 cut"]: the problems in the vocabulary's words, empty when there are none. */
function problemWords(block: BlockFacts): string[] {
  const p = blockProblems(block);
  const cut = p.cut + p.cutMemory;
  return [p.withheld ? `${p.withheld} withheld` : '', p.missing ? `${p.missing} missing` : '', cut ? `${cut} cut` : ''].filter(Boolean);
}

/** "1 pinned · due again": the headline, the same in the status bar's label, its tooltip and the quick pick's title. */
export function headline(pins: number, state: DeliveryState): string {
  if (state === 'nothing pinned') return 'nothing pinned';
  return `${pins} pinned · ${state}`;
}

export interface StatusWordsInput {
  /** A session (its name: the chat's first prompt, or when it started), or undefined for the next chat's draft. */
  session: { name?: string; label?: string } | undefined;
  pins: number;
  state: DeliveryState;
  block: BlockFacts;
  /** Items waiting in the memory inbox (0 without memory). */
  inbox: number;
}

/** The status bar item's words: `text` (with its icons), `tooltip` (Markdown), `label` (for screen readers), `problem`. */
export function statusBarWords(s: StatusWordsInput): { text: string; tooltip: string; label: string; problem: boolean } {
  const { budget } = s.block;
  const problems = problemWords(s.block);
  const where = whereWords(s.session);
  const words = [headline(s.pins, s.state), ...problems].join(' · ');
  // the target's own icon (pinTargetWords.ts): this chat, named by its first prompt, or the next chat
  const icon = `$(${PIN_TARGETS[s.session ? 'thisChat' : 'nextChat'].icon})`;
  const text = `${icon} ${s.session ? shortName(s.session) : 'Knowledge'}: ${words}${problems.length ? ' $(warning)' : ''}${s.inbox > 0 ? ` $(inbox) ${s.inbox}` : ''}`;
  const cutList = [...budget.cutItems, budget.cutMemoryEntries ? counted(budget.cutMemoryEntries, 'memory entry', 'memory entries') : ''].filter(Boolean);
  const p = blockProblems(s.block);
  const tooltip = [
    `**Session Knowledge** — ${where.replace(/[\\`*_{}[\]()#+\-.!<>|~]/g, '\\$&')}`,
    `${headline(s.pins, s.state)}: ${STATE_SENTENCE[s.state]}.`,
    `Block: ${budget.usedTokens} of ${budget.budgetTokens} tokens.`,
    ...(p.withheld ? [`${p.withheld} withheld: ${p.withheld === 1 ? 'it reads' : 'they read'} as an instruction and ${p.withheld === 1 ? 'is' : 'are'} never sent.`] : []),
    ...(p.missing ? [`${p.missing} missing: could not be read.`] : []),
    ...(cutList.length ? [`Cut to fit the budget: ${cutList.join(', ')}.`] : []),
    ...(s.inbox > 0 ? [`${counted(s.inbox, 'item')} ${s.inbox === 1 ? 'waits' : 'wait'} in the memory inbox (Knowledge Panel).`] : []),
    'Click to see what the next message carries.',
  ].join('\n\n');
  const label = `Session Knowledge: ${words} (${where}), ${budget.usedTokens} of ${budget.budgetTokens} tokens${s.inbox > 0 ? `, ${s.inbox} waiting in the memory inbox` : ''}`;
  return { text, tooltip, label, problem: problems.length > 0 };
}

/** "this chat “How do we format…”" or "the next chat": where the status bar's pins go. */
export function whereWords(session: { name?: string; label?: string } | undefined): string {
  return session ? `this chat “${session.name ?? session.label ?? 'unnamed'}”` : 'the next chat';
}

/** The chat's name as the status bar shows it: at most 24 characters. */
function shortName(session: { name?: string; label?: string }): string {
  const name = session.name ?? session.label ?? 'This chat';
  return name.length > 24 ? `${name.slice(0, 23)}…` : name;
}

/** The status quick pick's title: the tooltip's headline and sentence, after the target and the chat's name. */
export function pickTitle(s: { session: { name?: string; label?: string } | undefined; pins: number; state: DeliveryState }): string {
  return `Session Knowledge — ${s.session ? `This chat — ${s.session.name ?? s.session.label ?? 'unnamed'}` : 'Next chat'}: ${headline(s.pins, s.state)}: ${STATE_SENTENCE[s.state]}`;
}

/** Preview's header lines (inside its HTML comment): the state, tokens, each pin's mark, memory cut. */
export function previewLines(s: { pins: readonly string[]; state: DeliveryState; block: BlockFacts }): string[] {
  const { budget } = s.block;
  return [
    `${headline(s.pins.length, s.state)}: ${STATE_SENTENCE[s.state]}.${s.state === 'delivered' ? ' An edit, a pin or unpin, or a compaction makes it due again.' : ''}`,
    `${budget.usedTokens} of ${budget.budgetTokens} tokens; ${counted(s.pins.length, 'pinned item')}${s.block.memoryEntries ? `; memory index: ${counted(s.block.memoryEntries, 'entry', 'entries')}` : ''}.`,
    ...s.pins.map((id) => `- ${id}: ${itemMark(s.block, id).text}`),
    ...(budget.cutMemoryEntries ? [`${counted(budget.cutMemoryEntries, 'memory entry', 'memory entries')} cut to fit the budget.`] : []),
  ];
}

/**
 * The chat footer after a message that carried the block (without its "Session knowledge: " start): what was
 * delivered in full (pinned items, the memory index), then what was withheld, missing and cut.
 */
export function deliveredFooter(block: BlockFacts): string {
  const p = blockProblems(block);
  const whole = new Set(block.budget.cutItems);
  const inBlock = block.items.filter((i) => i.state === 'ok' && !whole.has(i.id)).length;
  const memory = block.memoryEntries ?? 0;
  const sent = [inBlock ? counted(inBlock, 'pinned item') : '', memory ? `the memory index (${counted(memory, 'entry', 'entries')})` : ''].filter(Boolean);
  const head = `delivered ${sent.length ? sent.join(' and ') : 'no pinned item'} with this message`;
  const problems = [p.withheld ? `${p.withheld} withheld` : '', p.missing ? `${p.missing} missing` : ''].filter(Boolean).join(', ') + (sent.length || !(p.withheld || p.missing) ? '' : ' (the block names them)');
  const cut = [...block.budget.cutItems, p.cutMemory ? counted(p.cutMemory, 'memory entry', 'memory entries') : ''].filter(Boolean);
  return `${head}${problems ? `; ${problems}` : ''}${cut.length ? `; cut to fit: ${cut.join(', ')}` : ''}.`;
}

/** The chat footer after a compaction: the block was delivered again, with the pinned messages if any. */
export function compactedFooter(pinnedMessages: number): string {
  return `the conversation was compacted; the pinned knowledge was delivered again with it${pinnedMessages ? `, with ${counted(pinnedMessages, 'pinned message')}` : ''}.`;
}
