// The sessions section: the next-chat draft, one card per chat session (delivery, token budget meter,
// pins), the newest page first and more on demand ("Show more"), and the session pin and unpin actions.
import type { PanelState, SessionView } from '../../src/shared/panelProtocol';
import type { Actions } from './dom';
import { draftCard } from './draft';
import { act } from './feedback';
import { focusAfterUnpin, pinChoice, pinsBlock, unpinTarget } from './pinsView';
import { badge, button, h, icon } from './render';
import { request } from './panelRpc';
import { section } from './section';
import { panel } from './panelStore';

const DELIVERY: Record<SessionView['delivery'], { text: string; icon: string }> = {
  carrying: { text: 'Delivered', icon: 'pass' },
  'resend-pending': { text: 'Due again', icon: 'sync' },
  never: { text: 'Not delivered yet', icon: 'circle-slash' },
  unknown: { text: 'Not computed', icon: 'question' },
};

/**
 * Sessions the person asked for beyond the host's first page ("Show more"), kept across host states: a new state
 * carries the first page again, and a session it pushed off that page stays shown below it. `firstSeen`: the first
 * page of the state shown last; `next`: the cursor after the last loaded session.
 */
const more: { loaded: SessionView[]; firstSeen: SessionView[]; next: string | null } = { loaded: [], firstSeen: [], next: null };

/** True when `a` comes after `b` newest first (createdAt, then key, descending: the server's order). */
const after = (a: SessionView, b: SessionView): boolean => a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.key < b.key);

/** The loaded sessions to show below `first`: not on it, and older than its last one (newest first). */
function extraSessions(first: SessionView[], everyFits: boolean): SessionView[] {
  if (everyFits) more.loaded = [];
  if (more.loaded.length === 0) return [];
  const onFirst = new Set(first.map((sv) => sv.key));
  const last = first[first.length - 1];
  const pool = new Map<string, SessionView>();
  for (const sv of [...more.firstSeen, ...more.loaded]) if (!onFirst.has(sv.key) && (!last || after(sv, last))) pool.set(sv.key, sv);
  return [...pool.values()].sort((a, b) => (after(a, b) ? 1 : after(b, a) ? -1 : 0));
}

function sessionCard(s: SessionView): HTMLElement {
  const name = s.name;
  const d = DELIVERY[s.delivery];
  const card = h('article', { class: 'session', 'data-key': s.key, 'aria-label': `Session ${name}` });
  card.append(h('div', { class: 'session-head' }, h('span', { class: 'session-name' }, name), badge(s.origin, 'scope'), h('span', { class: 'muted' }, new Date(s.createdAt).toLocaleString())));
  card.append(
    h(
      'p',
      { class: `delivery delivery-${s.delivery}` },
      icon(d.icon),
      h('strong', {}, d.text),
      s.deliveredAt ? h('span', { class: 'muted' }, ` — last delivered ${new Date(s.deliveredAt).toLocaleString()}`) : '',
    ),
  );
  if (s.budget) {
    const b = s.budget;
    const pct = b.budgetTokens > 0 ? Math.min(100, Math.round((b.usedTokens / b.budgetTokens) * 100)) : 0;
    const cut = b.cutItems.length + b.cutMemoryEntries;
    const bar = h('div', { class: `meter${cut > 0 ? ' meter-cut' : ''}`, role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': b.budgetTokens, 'aria-valuenow': b.usedTokens, 'aria-label': `Block tokens for ${name}` });
    const fill = h('div', { class: 'meter-fill' });
    fill.style.width = `${pct}%`; // CSSOM, not a style attribute: allowed by the CSP
    bar.append(fill);
    card.append(bar, h('p', { class: 'muted meter-text' }, `${b.usedTokens.toLocaleString()} of ${b.budgetTokens.toLocaleString()} tokens`, cut > 0 ? ` — ${cut} cut to fit${b.cutItems.length ? `: ${b.cutItems.join(', ')}` : ''}${b.cutMemoryEntries ? ` (${b.cutMemoryEntries} memory entries)` : ''}` : ' — nothing cut'));
  }
  card.append(...pinsBlock({ pins: s.pins, scopeLabel: name, listLabel: `Pins of ${name}`, empty: 'Nothing pinned.', prefix: 'session', key: s.key, withheld: s.withheld }));
  return card;
}

export function sessionsSection(s: PanelState): HTMLElement {
  const sessions = h('div', { class: 'sessions' });
  sessions.append(draftCard(s));
  if (s.sessions.length === 0) sessions.append(h('p', { class: 'muted' }, 'No sessions yet. A session starts with its first @knowledge message.'));
  const extra = extraSessions(s.sessions, s.sessionsNext === null);
  more.firstSeen = s.sessions;
  const shown = [...s.sessions, ...extra];
  for (const sv of shown) sessions.append(sessionCard(sv));
  const next = more.loaded.length > 0 ? more.next : s.sessionsNext;
  const rest = Math.max(0, s.sessionsTotal - shown.length);
  if (next && rest > 0) {
    sessions.append(
      h(
        'p',
        { class: 'muted', id: 'sessions-more' },
        `${rest} older session${rest === 1 ? '' : 's'} not shown. `,
        button('Show more', { icon: 'chevron-down', secondary: true, action: 'sessions-more', label: `Show ${Math.min(rest, s.sessions.length || rest)} more sessions` }),
      ),
    );
  }
  const days = s.sessionRetentionDays;
  const retention = h(
    'p',
    { id: 'session-retention', class: 'muted', 'data-days': days },
    days === 0 ? 'Retention: every session is kept' : `Retention: sessions with no activity for ${days} days are removed, with their pins, delivery records and session memory`,
    ' (setting ',
    h('code', {}, 'sessionKnowledge.sessionRetentionDays'),
    ').',
  );
  return section('sessions', 'Sessions', { n: shown.length, label: `${shown.length} sessions shown` }, sessions, retention);
}

/** Shows the next page of sessions below the ones shown, keeping the focus on "Show more" (or the last card). */
async function showMore(): Promise<void> {
  const state = panel.state;
  const cursor = more.loaded.length > 0 ? more.next : state?.sessionsNext;
  if (!state || !cursor) return;
  const page = await request('sessions/more', { cursor });
  more.loaded.push(...page.sessions);
  more.next = page.next;
  const section = document.getElementById('section-sessions');
  const fresh = sessionsSection(state);
  if (section) section.replaceWith(fresh);
  (document.querySelector('[data-action="sessions-more"]') as HTMLElement | null)?.focus();
}

export const sessionActions: Actions = {
  'sessions-more': () => act('Show more sessions', showMore),
  'session-unpin': async ({ target }) => {
    const { pin, key } = unpinTarget(target);
    if (await act('Unpin', () => request('session/updatePins', { key, remove: [pin] }), `Unpinned ${pin}`)) focusAfterUnpin(target);
  },
  'session-pin': async ({ target }) => {
    const { choice, key } = pinChoice(target);
    if (!choice) return;
    await act('Pin', () => request('session/updatePins', { key, add: [choice] }), `Pinned ${choice}`);
  },
};
