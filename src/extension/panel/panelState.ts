/**
 * Builds what the panel shows from the language server: sessions with their delivery state and budget,
 * flagged notes and plans with the matched spans, and the memory part. A source that fails is reported in
 * `problems` and left out; it never blanks the rest.
 */
import type { LanguageClient } from 'vscode-languageclient/node';
import { GetDraftPinsRequest, GetSessionRequest, ListItemsRequest, ListSessionsPageRequest, ResolvePendingRequest } from '../../shared/protocol';
import { excerptSpan, MAX_SPANS } from '../../server/core/notes/findingExcerpts';
import { MemoryInboxCountRequest, MemoryInboxRequest, MemoryListFlaggedRequest, MemoryListRequest, MemoryReadRequest, MemoryStatusRequest } from '../../shared/memoryProtocol';
import type { MemoryEntryView, MemoryFinding } from '../../shared/memorySchemas';
import type { InboxCounts } from '../../shared/inboxSchemas';
import type { KnowledgeItem } from '../../shared/schemas';
import type { PendingBlock, SessionInfo } from '../../shared/sessionSchemas';
import {
  WITHHELD_WARNING,
  type FlaggedItemView,
  type InboxPage,
  type MemoryEntryRow,
  type MemoryPart,
  type MergeTarget,
  type PanelState,
  type SessionView,
  type SessionsMore,
  type SpanView,
} from '../../shared/panelProtocol';
import type { SeenStore } from './seenStore';

/** Sessions per page (newest first); more on demand. Each one costs a resolvePending. */
export const MAX_SESSIONS = 30;
const JSONRPC_METHOD_NOT_FOUND = -32601;
/** Ids resolved to titles per answer (one read each); the rest show as ids. */
const MAX_TITLE_READS = 100;

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** True when the server has no such method (memory routes are absent). */
export function isMethodNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === JSONRPC_METHOD_NOT_FOUND;
}

export function deliveryState(info: SessionInfo, pending?: PendingBlock): SessionView['delivery'] {
  const owed = pending?.signature ?? info.pending;
  if (!info.delivered) return 'never';
  if (!owed) return 'unknown';
  return owed === info.delivered ? 'carrying' : 'resend-pending';
}

export function memorySpans(entry: MemoryEntryView): SpanView[] {
  const fieldText = (f: MemoryFinding['field']) => (f === 'title' ? entry.title : f === 'body' ? entry.body : entry.tags.join(' '));
  return entry.findings.slice(0, MAX_SPANS).map((f) => {
    const x = excerptSpan(fieldText(f.field), f.start, f.end);
    return { ruleId: f.ruleId, category: f.category, message: f.message, field: f.field, ...x };
  });
}

export function toRow(entry: MemoryEntryView, seen: SeenStore, links?: Record<string, string>): MemoryEntryRow {
  return { entry, badge: seen.badge(entry), spans: entry.flagged ? memorySpans(entry) : [], ...(links ? { links } : {}) };
}

/** Titles of `ids` for people: from `known` first, else read from the server; an id that is gone is left out. */
export async function resolveTitles(client: LanguageClient, ids: Iterable<string>, known: ReadonlyMap<string, string> = new Map()): Promise<Record<string, string>> {
  const titles: Record<string, string> = {};
  const unknown: string[] = [];
  for (const id of new Set(ids)) {
    const title = known.get(id);
    if (title !== undefined) titles[id] = title;
    else unknown.push(id);
  }
  await Promise.all(
    unknown.slice(0, MAX_TITLE_READS).map(async (id) => {
      try {
        const e = await client.sendRequest(MemoryReadRequest.type, { id });
        if (e) titles[id] = e.title;
      } catch {
        /* gone or unreadable: the id is shown instead */
      }
    }),
  );
  return titles;
}

/** The ids an entry names: what superseded it, what it was consolidated into or from. */
function linkedIds(e: MemoryEntryView): string[] {
  return [e.supersededBy, e.consolidatedInto, ...(e.consolidatedFrom ?? []), e.conflictWith].filter((x): x is string => Boolean(x));
}

/** Rows of a page, with the titles of the entries they name (resolved once for the whole page). */
export async function toRows(client: LanguageClient, seen: SeenStore, entries: MemoryEntryView[]): Promise<MemoryEntryRow[]> {
  const titles = await resolveTitles(client, entries.flatMap(linkedIds), new Map(entries.map((e) => [e.id, e.title])));
  return entries.map((e) => {
    const ids = linkedIds(e);
    return toRow(e, seen, ids.length > 0 ? Object.fromEntries(ids.filter((id) => id in titles).map((id) => [id, titles[id]])) : undefined);
  });
}

/**
 * The flagged notes and plans with what matched: the spans come with the list, cut by the server from the text it
 * read and judged (the panel never reads a knowledge file nor asks for it to be judged again).
 */
export function flaggedViews(items: readonly KnowledgeItem[]): FlaggedItemView[] {
  return items
    .filter((i) => i.flaggedRules.length > 0)
    .map((item) => ({
      id: item.id,
      kind: item.kind,
      title: item.title,
      revision: item.revision,
      rules: item.flaggedRules,
      spans: item.spans ?? [],
      ...(item.folder !== undefined ? { folder: item.folder } : {}),
      ...(item.repositoryReviewedBy !== undefined ? { repositoryReviewedBy: item.repositoryReviewedBy } : {}),
    }));
}

export class PanelStateBuilder {
  constructor(
    private readonly client: LanguageClient,
    private readonly seen: SeenStore,
    private readonly budgetTokens: () => number,
    private readonly retentionDays: () => number,
  ) {}

  async build(memoryOn: boolean): Promise<PanelState> {
    const problems: string[] = [];
    const guard = async <T>(what: string, p: Promise<T>, fallback: T): Promise<T> => {
      try {
        return await p;
      } catch (err) {
        problems.push(`${what}: ${errorMessage(err)}`);
        return fallback;
      }
    };
    const [items, sessions, draftPins, memory] = await Promise.all([
      guard('notes and plans', this.client.sendRequest(ListItemsRequest.type, { withSpans: true }), [] as KnowledgeItem[]),
      guard('sessions', this.sessions(), { shown: [] as SessionView[], total: 0, next: null as string | null }),
      guard('next-chat pins', this.client.sendRequest(GetDraftPinsRequest.type), [] as string[]),
      this.memory(memoryOn),
    ]);
    const flaggedItems = flaggedViews(items);
    return {
      sessions: sessions.shown,
      sessionsTotal: sessions.total,
      sessionsNext: sessions.next,
      sessionRetentionDays: this.retentionDays(),
      draftPins,
      items: items.map((i) => ({ id: i.id, kind: i.kind, title: i.title, flagged: i.flaggedRules.length > 0 })),
      flaggedItems,
      memory,
      problems,
      withheldWarning: WITHHELD_WARNING,
    };
  }

  /** The first page of sessions: one page request, the page's sessions only. */
  private async sessions(): Promise<{ shown: SessionView[]; total: number; next: string | null }> {
    const page = await this.client.sendRequest(ListSessionsPageRequest.type, { limit: MAX_SESSIONS });
    return { shown: await this.views(page.sessions), total: page.total, next: page.next };
  }

  /** The page after `cursor` (the panel's "Show more"). */
  async moreSessions(cursor: string): Promise<SessionsMore> {
    const page = await this.client.sendRequest(ListSessionsPageRequest.type, { limit: MAX_SESSIONS, cursor });
    return { sessions: await this.views(page.sessions), next: page.next };
  }

  private views(sessions: SessionInfo[]): Promise<SessionView[]> {
    return Promise.all(
      sessions.map(async (info): Promise<SessionView> => {
        let pending: PendingBlock | undefined;
        try {
          pending = await this.client.sendRequest(ResolvePendingRequest.type, { key: info.key, budgetTokens: this.budgetTokens() });
        } catch {
          pending = undefined; // shown as "unknown"; the rest of the session still shows
        }
        return {
          key: info.key,
          ...(info.label ? { label: info.label } : {}),
          name: info.name,
          origin: info.origin,
          createdAt: info.createdAt,
          pins: info.pins,
          delivery: deliveryState(info, pending),
          delivered: info.delivered,
          pending: pending?.signature ?? info.pending,
          deliveredAt: info.deliveredAt,
          ...(pending?.budget ?? info.budget ? { budget: pending?.budget ?? info.budget } : {}),
          withheld: pending ? pending.items.filter((i) => i.state !== 'ok').map((i) => i.id) : [],
        };
      }),
    );
  }

  private async memory(on: boolean): Promise<MemoryPart> {
    try {
      if (!on) {
        // Off: nothing is recalled or written, but a committed memory.jsonl carrying an attack is still shown as flagged.
        const flagged = await this.client.sendRequest(MemoryListFlaggedRequest.type, { offset: 0, limit: 50 });
        return { on, available: true, flagged: await toRows(this.client, this.seen, flagged.entries), flaggedTotal: flagged.total };
      }
      const [status, flagged, inbox] = await Promise.all([
        this.client.sendRequest(MemoryStatusRequest.type),
        this.client.sendRequest(MemoryListRequest.type, { flagged: true, offset: 0, limit: 50 }),
        inboxCounts(this.client),
      ]);
      return { on, available: true, status, flagged: await toRows(this.client, this.seen, flagged.entries), flaggedTotal: flagged.total, ...(inbox ? { inbox } : {}) };
    } catch (err) {
      const error = isMethodNotFound(err) ? 'Agent memory is not available from the language server yet.' : `Memory could not be loaded: ${errorMessage(err)}`;
      return { on, available: false, error, flagged: [], flaggedTotal: 0 };
    }
  }
}

/** The inbox's counts, or undefined when they cannot be read (the rest of the panel still shows). */
export async function inboxCounts(client: LanguageClient): Promise<InboxCounts | undefined> {
  try {
    return await client.sendRequest(MemoryInboxCountRequest.type);
  } catch {
    return undefined;
  }
}

/**
 * Labels of the sessions a page's groups name: one read per session named (a page names a few), never a listing
 * of every session; a session no longer stored has none.
 */
async function sessionLabels(client: LanguageClient, keys: readonly string[]): Promise<Map<string, string>> {
  const labels = await Promise.all(keys.map((key) => client.sendRequest(GetSessionRequest.type, { key }).then((s) => s.name, () => undefined)));
  const out = new Map<string, string>();
  keys.forEach((key, i) => {
    const label = labels[i];
    if (label) out.set(key, label);
  });
  return out;
}

/** One page of the decision inbox for the panel: the server's groups, with session labels and the spans of flagged items. */
export async function inboxPage(client: LanguageClient, offset: number, limit: number): Promise<InboxPage> {
  const r = await client.sendRequest(MemoryInboxRequest.type, { offset, limit });
  const labels = await sessionLabels(client, [...new Set(r.groups.flatMap((g) => (g.sessionKey === null ? [] : [g.sessionKey])))]);
  return {
    groups: r.groups.map((g) => {
      const label = g.sessionKey === null ? undefined : labels.get(g.sessionKey);
      return { sessionKey: g.sessionKey, ...(g.repository ? { repository: g.repository } : {}), ...(label ? { label } : {}), counts: g.counts, items: g.items.map((item) => ({ ...item, spans: item.entry.findings.length > 0 ? memorySpans(item.entry) : [] })), ids: g.ids };
    }),
    counts: r.counts,
    total: r.total,
    offset,
    limit,
    stamp: r.stamp,
  };
}

const MERGE_TARGETS = 20;

/**
 * Entries an inbox item may merge into, nearest to `query` first: live (not superseded, consolidated or archived),
 * not waiting in the inbox, not the item; a session entry only for an item of the same session (the server's rule).
 */
export async function mergeTargets(client: LanguageClient, id: string, query: string | undefined): Promise<MergeTarget[]> {
  const item = await client.sendRequest(MemoryReadRequest.type, { id });
  if (!item) return [];
  const live = (e: MemoryEntryView) => !e.supersededBy && !e.consolidatedInto && e.status !== 'archived' && e.status !== 'superseded';
  const candidate = (e: MemoryEntryView) =>
    e.id !== id && e.trust.state !== 'pending' && live(e) && !e.flagged && (e.scope !== 'session' || (item.scope === 'session' && e.provenance.sessionKey === item.provenance.sessionKey));
  const list = async (q: string) => (await client.sendRequest(MemoryListRequest.type, { ...(q ? { query: q } : {}), offset: 0, limit: 200 })).entries.filter(candidate);
  const typed = query?.trim();
  // Typed: what matches it. Not typed: the entries nearest the item's title, else every live entry.
  let found = await list(typed ?? item.title);
  if (typed === undefined && found.length === 0) found = await list('');
  return found.slice(0, MERGE_TARGETS).map((e) => ({ id: e.id, title: e.title, scope: e.scope, type: e.type, body: e.body }));
}
