// Owns the intent stage's recipes: which lexicon groups make each intent (an anchor group, the groups that must
// stand near it and in which scope, the prefilter gates) and the custom checks two of them carry.
/** Pure module: no `vscode`, no language-server imports. */
import { negatedAfter, negatedTellAfter, negationRegex } from '../negationRules';
import type { GroupName } from './lexiconRegex';

export type IntentId =
  | 'intent.override'
  | 'intent.role'
  | 'intent.disclose'
  | 'intent.exfiltrate'
  | 'intent.execute'
  | 'intent.conceal'
  | 'intent.safety-off';

/** One intent found in a view: half-open UTF-16 span into the view. */
export interface IntentHit {
  readonly id: IntentId;
  readonly start: number;
  readonly end: number;
}


export type Scope = 'clause' | 'sentence' | 'line';
export interface Near {
  readonly groups: readonly GroupName[];
  readonly window: number;
  readonly scope: Scope;
  /** Matches preceded by "no"/"without"/"not" (e.g. "needs no token") do not count. */
  readonly objectNegation?: boolean;
}
export interface Recipe {
  readonly id: IntentId;
  /** Each entry: one of these groups must have had a prefilter cue. */
  readonly gates: readonly (readonly GroupName[])[];
  readonly anchor: readonly GroupName[];
  readonly near: readonly Near[];
  readonly negatable: boolean;
  /** Anchors overlapping a match of these groups are dropped. */
  readonly unless?: readonly GroupName[];
  /** Near matches inside a match of this group do not count (credentials that authenticate a request). */
  readonly excludeInside?: GroupName;
  /** Custom check on the anchor. */
  readonly check?: (view: string, s: number, e: number) => boolean;
}

const SECRETS: readonly GroupName[] = ['SECRET_HARD', 'SECRET_SOFT', 'PRIVATE_DATA'];

export const RECIPES: readonly Recipe[] = [
  // ---- override
  { id: 'intent.override', gates: [['OVERRIDE_VERB'], ['META_OBJECT']], anchor: ['OVERRIDE_VERB'], near: [{ groups: ['META_OBJECT'], window: 60, scope: 'clause' }], negatable: true },
  { id: 'intent.override', gates: [['META_OBJECT'], ['INVALIDATED']], anchor: ['META_OBJECT'], near: [{ groups: ['INVALIDATED'], window: 70, scope: 'clause' }], negatable: true },
  { id: 'intent.override', gates: [['PRECEDENCE'], ['META_OBJECT', 'AI_ADDRESSEE']], anchor: ['PRECEDENCE'], near: [{ groups: ['META_OBJECT', 'AI_ADDRESSEE'], window: 80, scope: 'clause' }], negatable: true },
  // ---- role
  { id: 'intent.role', gates: [['ROLE_ASSIGN'], ['ROLE_BAD']], anchor: ['ROLE_ASSIGN'], near: [{ groups: ['ROLE_BAD'], window: 60, scope: 'clause' }], negatable: true },
  { id: 'intent.role', gates: [['AUTHORITY_SOURCE'], ['AUTHORITY_AS']], anchor: ['AUTHORITY_AS'], near: [{ groups: ['AUTHORITY_SOURCE'], window: 40, scope: 'clause' }], negatable: true },
  // ---- disclose
  { id: 'intent.disclose', gates: [['DISCLOSE_VERB'], ['HIDDEN_CONTEXT']], anchor: ['DISCLOSE_VERB'], near: [{ groups: ['HIDDEN_CONTEXT'], window: 60, scope: 'clause' }], negatable: true },
  {
    id: 'intent.disclose',
    gates: [['DISCLOSE_VERB'], SECRETS],
    anchor: ['DISCLOSE_VERB'],
    near: [
      { groups: SECRETS, window: 60, scope: 'clause', objectNegation: true },
      { groups: ['OUTPUT_TARGET'], window: 90, scope: 'sentence' },
    ],
    negatable: true,
    excludeInside: 'AUTH_ARG',
  },
  // ---- exfiltrate
  {
    id: 'intent.exfiltrate',
    gates: [['SEND_VERB'], SECRETS],
    anchor: ['SEND_VERB'],
    near: [
      { groups: SECRETS, window: 120, scope: 'sentence', objectNegation: true },
      { groups: ['DESTINATION'], window: 160, scope: 'sentence' },
    ],
    negatable: true,
    excludeInside: 'AUTH_ARG',
  },
  // ---- execute
  { id: 'intent.execute', gates: [['PIPE_SHELL']], anchor: ['PIPE_SHELL'], near: [], negatable: true, unless: ['KNOWN_INSTALLER'] },
  {
    id: 'intent.execute',
    gates: [['WRITE_VERB'], ['PERSIST_TARGET']],
    anchor: ['PERSIST_TARGET'],
    near: [
      { groups: ['WRITE_VERB'], window: 160, scope: 'sentence' },
      { groups: ['REMOTE_CODE'], window: 200, scope: 'sentence' },
    ],
    negatable: true,
  },
  {
    id: 'intent.execute',
    gates: [['WRITE_VERB'], ['AGENT_FILE']],
    anchor: ['AGENT_FILE'],
    near: [
      { groups: ['WRITE_VERB'], window: 100, scope: 'sentence' },
      { groups: ['AUTO_APPROVE', 'SAFETY_OBJ', 'SELF_PERPETUATE', 'ROLE_BAD', 'HIDE_STRONG', 'SAFETY_SOFT'], window: 200, scope: 'line' },
    ],
    negatable: true,
  },
  { id: 'intent.execute', gates: [['AUTO_APPROVE']], anchor: ['AUTO_APPROVE'], near: [], negatable: true },
  { id: 'intent.execute', gates: [['SELF_PERPETUATE']], anchor: ['SELF_PERPETUATE'], near: [], negatable: true },
  // ---- conceal
  {
    id: 'intent.conceal',
    gates: [['TELL_VERB']],
    anchor: ['TELL_VERB'],
    near: [{ groups: ['SELF_ACTION'], window: 60, scope: 'clause' }],
    negatable: false,
    check: negatedTell,
  },
  { id: 'intent.conceal', gates: [['HIDE_STRONG']], anchor: ['HIDE_STRONG'], near: [], negatable: true },
  { id: 'intent.conceal', gates: [['HIDE_WEAK'], ['HIDE_FROM']], anchor: ['HIDE_WEAK'], near: [{ groups: ['HIDE_FROM'], window: 50, scope: 'clause' }], negatable: true },
  { id: 'intent.conceal', gates: [['STEALTH_ADV']], anchor: ['STEALTH_ADV'], near: [], negatable: true, unless: ['DESCRIPTIVE_STEALTH'], check: imperativeAdverb },
  // ---- safety-off
  { id: 'intent.safety-off', gates: [['DISABLE_VERB'], ['SAFETY_OBJ']], anchor: ['DISABLE_VERB'], near: [{ groups: ['SAFETY_OBJ'], window: 50, scope: 'clause' }], negatable: true },
  {
    id: 'intent.safety-off',
    gates: [['DISABLE_VERB'], ['SAFETY_SOFT'], ['DANGER']],
    anchor: ['DISABLE_VERB'],
    near: [
      { groups: ['SAFETY_SOFT'], window: 40, scope: 'clause' },
      { groups: ['DANGER'], window: 100, scope: 'sentence' },
    ],
    negatable: true,
  },
  { id: 'intent.safety-off', gates: [['SAFETY_STRONG']], anchor: ['SAFETY_STRONG'], near: [], negatable: true },
];

/** Conceal: the telling verb must be negated right before ("never tell the user …"), not "tell the user to …". */
function negatedTell(view: string, s: number, e: number): boolean {
  const before = view.slice(Math.max(0, s - 28), s);
  const jaAfter = negatedAfter(view, e);
  if (!negationRegex().test(before) && !jaAfter && !negatedTellAfter(view, e)) return false;
  // "don't tell the user to …" / "never ask the user to …" is guidance about wording
  return !/^\s{0,3}(?:the\s{1,3}user|them|anyone|users?)?\s{0,3}(?:to|how)\b/i.test(view.slice(e, e + 24));
}

/** Stealth adverb used as an imperative modifier: at clause start, after "and/then/just", or after a verb of acting. */
function imperativeAdverb(view: string, s: number): boolean {
  const before = view.slice(Math.max(0, s - 24), s);
  return /(?:^|[.;:,!?(\n-]|\b(?:and|then|just|please|simply|you|always|should|must|will|to))\s{0,3}$/i.test(before);
}
