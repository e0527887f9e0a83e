/**
 * Owns notes and plans on the wire: server status, list, create, stats, "pin to next chat" draft pins,
 * reindex, and files changed on disk (notes, project memory, reviews) reported by the client's watcher.
 */
import { DidChangeWatchedFilesNotification } from 'vscode-languageserver';
import { fileURLToPath } from 'node:url';
import {
  CreateItemRequest,
  GetDraftPinsRequest,
  ItemsChangedNotification,
  ListItemsRequest,
  ReindexRequest,
  StatsRequest,
  StatusRequest,
  StoreChangedNotification,
  UpdateDraftPinsRequest,
} from '../../shared/protocol';
import { MemoryChangedNotification } from '../../shared/memoryProtocol';
import { toId } from '../notes/noteIndex';
import { route } from '../routing';
import type { ServerContext } from './context';
import type { Diagnostics } from './threat';

export interface ItemRoutes {
  /** Re-reads every source from disk and announces every item; answers their ids. */
  reload(): Promise<string[]>;
}

export function registerItemRoutes(ctx: ServerContext, diagnostics: Diagnostics): ItemRoutes {
  const { connection } = ctx;
  const reload = async (): Promise<string[]> => {
    const c = ctx.ready();
    await c.load();
    const ids = c.listItems().map((i) => i.id);
    void connection.sendNotification(ItemsChangedNotification.type, { ids });
    return ids;
  };

  route(connection, StatusRequest, () => ({
    pid: process.pid,
    startedAt: ctx.startedAt,
    workspaceFolder: ctx.options()?.workspaceFolder ?? null,
    memoryEnabled: ctx.options()?.memoryEnabled ?? false,
    itemCount: ctx.current()?.notes?.size ?? 0,
  }));
  route(connection, ListItemsRequest, (p) => ctx.ready().listItems(p.kind));
  route(connection, CreateItemRequest, async (p) => {
    const item = await ctx.ready().createItem(p.kind, p.title);
    await diagnostics.publishFromDisk([item.id]);
    void connection.sendNotification(ItemsChangedNotification.type, { ids: [item.id] });
    return item;
  });
  route(connection, StatsRequest, () => ctx.ready().stats());
  route(connection, GetDraftPinsRequest, () => ctx.ready().getDraftPins());
  route(connection, UpdateDraftPinsRequest, async (p) => {
    const result = await ctx.ready().updateDraftPins(p.add, p.remove);
    void connection.sendNotification(StoreChangedNotification.type, {});
    return result;
  });
  route(connection, ReindexRequest, async () => (await reload()).length);

  // Files created, edited, renamed or deleted outside the extension reach us through the client's watcher.
  connection.onNotification(DidChangeWatchedFilesNotification.type, async (params) => {
    const c = ctx.current();
    if (!c?.notes) return;
    const changed: string[] = [];
    for (const change of params.changes) {
      let path: string;
      try {
        path = fileURLToPath(change.uri);
      } catch {
        continue;
      }
      if (path.endsWith('sessions.json')) continue;
      if (await c.notes.refreshPath(path)) changed.push(toId(c.notes.workspaceFolder, path));
    }
    // A folder rename or delete arrives as one event for the folder: rescan to be sure.
    if (params.changes.some((ch) => !ch.uri.endsWith('.md'))) changed.push(...(await c.notes.rebuild()));
    // memory.jsonl changed (a pull, a teammate's entries, another window): load and scan it again.
    if (c.memory && params.changes.some((ch) => ch.uri.endsWith('/.knowledge/memory.jsonl'))) {
      try {
        await c.memory.reload('project');
      } catch (err) {
        connection.console.warn(`Could not reload project memory: ${(err as Error).message}`);
      }
      void connection.sendNotification(MemoryChangedNotification.type, {});
      void connection.sendNotification(StoreChangedNotification.type, {});
    }
    // reviews.json changed (a pull, another window): reload it and judge everything again.
    if (params.changes.some((ch) => ch.uri.endsWith('/.knowledge/reviews.json'))) {
      await c.reviews?.load();
      await diagnostics.publishFromDisk();
      changed.push(...c.listItems().map((i) => i.id));
    } else if (changed.length > 0) {
      await diagnostics.publishFromDisk(changed);
    }
    if (changed.length > 0) void connection.sendNotification(ItemsChangedNotification.type, { ids: [...new Set(changed)] });
  });

  return { reload };
}
