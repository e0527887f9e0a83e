// The sessions section: the next-chat draft, one card per chat session (delivery, token budget meter,
// pins), and the session pin and unpin actions.
import type { PanelState, SessionView } from '../../src/shared/panelProtocol';
import type { Actions } from './dom';
import { draftCard } from './draft';
import { act } from './feedback';
import { focusAfterUnpin, pinChoice, pinsBlock, unpinTarget } from './pins';
import { badge, h, icon } from './render';
import { request } from './rpc';
import { section } from './section';

const DELIVERY: Record<SessionView['delivery'], { text: string; icon: string }> = {
  carrying: { text: 'Carrying', icon: 'pass' },
  'resend-pending': { text: 'Re-send pending', icon: 'sync' },
  never: { text: 'Never delivered', icon: 'circle-slash' },
  unknown: { text: 'Not computed', icon: 'question' },
};

function sessionCard(s: SessionView): HTMLElement {
  const name = s.label ?? `Session ${s.key.slice(0, 10)}`;
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
  for (const sv of s.sessions) sessions.append(sessionCard(sv));
  if (s.sessionsTotal > s.sessions.length) sessions.append(h('p', { class: 'muted' }, `${s.sessionsTotal - s.sessions.length} older sessions not shown.`));
  const days = s.sessionRetentionDays;
  const retention = h(
    'p',
    { id: 'session-retention', class: 'muted', 'data-days': days },
    days === 0 ? 'Retention: every session is kept' : `Retention: sessions with no activity for ${days} days are removed, with their pins, delivery records and session memory`,
    ' (setting ',
    h('code', {}, 'sessionKnowledge.sessionRetentionDays'),
    ').',
  );
  return section('sessions', 'Sessions', { n: s.sessions.length, label: `${s.sessions.length} sessions shown` }, sessions, retention);
}

export const sessionActions: Actions = {
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
