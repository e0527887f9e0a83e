/**
 * Owns chat sessions and delivery on the wire: create, read and re-pin sessions, compile and resolve the
 * block a session is owed, record a delivery, compaction, results of scheduled prompts and their claims.
 */
import {
  AppendResultRequest,
  ClaimScheduledRunRequest,
  CompilePinsRequest,
  CreateSessionRequest,
  DeleteSessionRequest,
  GetSessionRequest,
  ListSessionsPageRequest,
  ListSessionsRequest,
  MarkDeliveredRequest,
  NameSessionRequest,
  NotifyCompactedRequest,
  PruneSessionsRequest,
  RenamePinRequest,
  ResolvePendingRequest,
  SetPinnedMessagesRequest,
  SetSessionPinsRequest,
  StoreChangedNotification,
  UpdateSessionPinsRequest,
} from '../../../shared/protocol';
import { MemoryChangedNotification } from '../../../shared/memoryProtocol';
import type { PendingBlock, SessionInfo } from '../../../shared/sessionSchemas';
import { sessionName } from '../../../shared/sessionNames';
import type { CompiledBlock } from '../../core/delivery/knowledgeBlock';
import type { SessionMeta } from '../../core/store/storeSchemas';
import { route } from '../routing';
import type { ServerContext } from './routeContext';

function toSessionInfo(s: SessionMeta): SessionInfo {
  return {
    key: s.key,
    createdAt: s.createdAt,
    ...(s.label ? { label: s.label } : {}),
    name: sessionName(s),
    origin: s.origin,
    pins: s.project_context_pins,
    pinnedMessages: s.pinned_messages,
    delivered: s.knowledge_context_delivered ?? '',
    deliveredAt: s.deliveredAt,
    pending: s.lastPendingSignature ?? '',
    results: (s.results ?? []).map((r) => ({ at: r.at, prompt: r.prompt, answer: r.answer, blockSent: r.blockSent, ...(r.error ? { error: r.error } : {}) })),
    ...(s.lastBudget ? { budget: { budgetTokens: s.lastBudget.budgetTokens, usedTokens: s.lastBudget.usedTokens, cutItems: s.lastBudget.cutItems, cutMemoryEntries: s.lastBudget.cutMemoryEntries } } : {}),
  };
}

/** A compiled block as the wire carries it (agent routes use it too). */
export function toPendingBlock(b: CompiledBlock & { delivered: string }): PendingBlock {
  return {
    text: b.text,
    signature: b.signature,
    delivered: b.delivered,
    items: b.items.map((i) => ({ id: i.id, kind: i.kind, state: i.state, ...(i.reason ? { reason: i.reason } : {}) })),
    budget: b.budget,
    ...(b.memoryEntries !== undefined ? { memoryEntries: b.memoryEntries } : {}),
  };
}

export function registerSessionRoutes(ctx: ServerContext): void {
  const { connection } = ctx;
  const sessions = () => ctx.ready().sessionService;
  /** A change to the store: views refresh. */
  const announce = <T>(value: T): T => {
    void connection.sendNotification(StoreChangedNotification.type, {});
    return value;
  };

  route(connection, CreateSessionRequest, async (p) => announce(toSessionInfo(await sessions().create(p))));
  route(connection, GetSessionRequest, async (p) => toSessionInfo(await sessions().get(p.key)));
  route(connection, ListSessionsRequest, async () => (await sessions().list()).map(toSessionInfo));
  route(connection, ListSessionsPageRequest, async (p) => {
    const page = await sessions().listPage({ limit: p.limit, ...(p.cursor ? { cursor: p.cursor } : {}) });
    return { sessions: page.sessions.map(toSessionInfo), total: page.total, next: page.next };
  });
  route(connection, SetSessionPinsRequest, async (p) => announce(toSessionInfo(await sessions().setPins(p.key, p.pins))));
  route(connection, UpdateSessionPinsRequest, async (p) => announce(toSessionInfo(await sessions().updatePins(p.key, p.add, p.remove))));
  route(connection, NameSessionRequest, async (p) => announce(toSessionInfo(await sessions().name(p.key, p.name))));
  route(connection, SetPinnedMessagesRequest, async (p) => announce(toSessionInfo(await sessions().setPinnedMessages(p.key, p.messages))));
  route(connection, DeleteSessionRequest, async (p) => {
    const c = ctx.ready();
    await c.sessionService.delete(p.key);
    let memoryDeleted = 0;
    let memoryKept: string | undefined;
    if (c.memory) {
      try {
        memoryDeleted = (await c.memory.forgetScope('session', p.key)).deleted;
        if (memoryDeleted > 0) void connection.sendNotification(MemoryChangedNotification.type, {});
      } catch (err) {
        memoryKept = (err as Error).message;
      }
    }
    return announce({ key: p.key, memoryDeleted, ...(memoryKept ? { memoryKept } : {}) });
  });
  route(connection, RenamePinRequest, async (p) => {
    // Sessions, the draft and the agent pins of the file's folder follow (ids or absolute paths).
    const moved = await ctx.ready().renamePin(p.oldId, p.newId);
    if (moved.agentsError) connection.console.warn(`Could not move agent pins from ${p.oldId} to ${p.newId}: ${moved.agentsError}`);
    return announce(moved.sessions + moved.agents);
  });
  route(connection, PruneSessionsRequest, async (p) => {
    let memoryKept: string | undefined;
    const out = await sessions().prune(p.olderThanDays, Date.now(), (err) => (memoryKept = err.message));
    if (out.pruned.length > 0) {
      connection.console.info(`Retention (${p.olderThanDays} days): removed ${out.pruned.length} session(s) and ${out.memoryEntries} session memory entr${out.memoryEntries === 1 ? 'y' : 'ies'}.`);
      if (out.memoryEntries > 0) void connection.sendNotification(MemoryChangedNotification.type, {});
      announce(null);
    }
    return { ...out, ...(memoryKept ? { memoryKept } : {}) };
  });

  // ---- delivery: resolve what is owed, record it only after the send was accepted ----
  route(connection, ResolvePendingRequest, async (p) => toPendingBlock(await sessions().resolvePending(p.key, p.budgetTokens, p.tokensPerChar)));
  route(connection, MarkDeliveredRequest, async (p) => announce(toSessionInfo(await sessions().markDelivered(p.key, p.signature))));
  route(connection, NotifyCompactedRequest, async (p) =>
    announce(toPendingBlock({ ...(await sessions().notifyCompacted(p.key, p.budgetTokens, p.tokensPerChar)), delivered: '' })),
  );
  route(connection, CompilePinsRequest, async (p) => {
    const ids = sessions().normalizePins(p.pins);
    return toPendingBlock({ ...(await sessions().compile(ids, p.budgetTokens)), delivered: '' });
  });
  route(connection, AppendResultRequest, async (p) => announce(toSessionInfo(await sessions().appendResult(p.key, p.result))));
  route(connection, ClaimScheduledRunRequest, async (p) => announce(await sessions().claimScheduledRun(p.name, p.slot, p.pins)));
}
