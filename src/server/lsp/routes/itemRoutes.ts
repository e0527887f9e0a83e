/**
 * Owns notes and plans on the wire: server status, list, create, stats, "pin to next chat" draft pins,
 * reindex, and files changed on disk (notes, project memory, reviews) reported by the client's watcher.
 */
import { DidChangeWatchedFilesNotification, type WorkspaceFoldersChangeEvent } from 'vscode-languageserver';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateItemRequest,
  WorkspaceFoldersRequest,
  GetDraftPinsRequest,
  ItemsChangedNotification,
  ListItemsRequest,
  ReindexRequest,
  StatsRequest,
  StatusRequest,
  StoreChangedNotification,
  UpdateDraftPinsRequest,
} from '../../../shared/protocol';
import { MemoryChangedNotification } from '../../../shared/memoryProtocol';
import { route } from '../routing';
import { followChangedFiles } from '../../core/knowledgeSources';
import type { ServerContext } from './routeContext';
import type { Diagnostics } from './threatRoutes';
import { findingSpans } from '../../core/notes/findingExcerpts';

export interface ItemRoutes {
  /** Re-reads every source from disk and announces every item; answers their ids. */
  reload(): Promise<string[]>;
  /** Follows folders added to and removed from the workspace (`workspace/didChangeWorkspaceFolders`), when the client sends them. */
  followWorkspaceFolders(): void;
}

/** A `file:` URI as a path, or undefined. */
function pathOfUri(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
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
    ...(ctx.current() ? { workspaceFolders: ctx.current()!.folders.all.map((f) => ({ name: f.name, path: f.path })) } : {}),
    memoryEnabled: ctx.options()?.memoryEnabled ?? false,
    itemCount: ctx.current()?.notes?.size ?? 0,
  }));
  route(connection, WorkspaceFoldersRequest, () => {
    const folders = ctx.ready().folders;
    return { multi: folders.multi, folders: folders.all.map((f) => ({ name: f.name, path: f.path, hasKnowledge: existsSync(join(f.path, '.knowledge')) })) };
  });
  route(connection, ListItemsRequest, async (p) => {
    // never list an item as clean before it was judged
    const core = await ctx.judged();
    const items = core.listItems(p.kind);
    if (!p.withSpans) return items;
    // What matched in each flagged item, cut from the text the server judged: the file as the core's one reader
    // already has it (no second read while it is unchanged), so the panel neither reads it nor asks again.
    return Promise.all(
      items.map(async (item) => {
        if (item.flaggedRules.length === 0) return item;
        const judged = await core.judgeFile(item.id).catch(() => undefined);
        return { ...item, spans: judged ? findingSpans(judged.text, judged.findings) : [] };
      }),
    );
  });
  route(connection, CreateItemRequest, async (p) => {
    const item = await ctx.ready().createItem(p.kind, p.title, p.folder);
    await diagnostics.publishFromDisk([item.id]);
    void connection.sendNotification(ItemsChangedNotification.type, { ids: [item.id] });
    return item;
  });
  route(connection, StatsRequest, async () => (await ctx.judged()).stats());
  route(connection, GetDraftPinsRequest, () => ctx.ready().getDraftPins());
  route(connection, UpdateDraftPinsRequest, async (p) => {
    const result = await ctx.ready().updateDraftPins(p.add, p.remove);
    void connection.sendNotification(StoreChangedNotification.type, {});
    return result;
  });
  route(connection, ReindexRequest, async () => (await reload()).length);

  /** Index changes in order: watched-file batches and folder changes never interleave. */
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (what: string, work: () => Promise<void>) => {
    queue = queue.then(work).catch((err: unknown) => connection.console.warn(`${what}: ${(err as Error)?.message ?? String(err)}`));
    return queue;
  };

  // Files created, edited, renamed or deleted outside the extension reach us through the client's watcher (a
  // glob over every workspace folder: each change is routed to the folder that holds it).
  connection.onNotification(DidChangeWatchedFilesNotification.type, (params) =>
    enqueue('Could not follow changed files', async () => {
      const c = ctx.current();
      if (!c) return;
      const paths = params.changes.map((ch) => pathOfUri(ch.uri)).filter((p): p is string => p !== undefined);
      // The one files-changed path (`core/knowledgeSources.ts`), shared with the MCP server.
      const found = await followChangedFiles(c, paths, (m) => connection.console.warn(m));
      if (found.memory) {
        void connection.sendNotification(MemoryChangedNotification.type, {});
        void connection.sendNotification(StoreChangedNotification.type, {});
      }
      if (found.reviews) await diagnostics.publishFromDisk();
      else if (found.ids.length > 0) await diagnostics.publishFromDisk(found.ids);
      if (found.ids.length > 0) void connection.sendNotification(ItemsChangedNotification.type, { ids: found.ids });
    }),
  );

  /** Folders added or removed: index the new ones, judge every id again, move diagnostics, tell the client. */
  const applyFolders = (event: WorkspaceFoldersChangeEvent) =>
    enqueue('Could not follow workspace folders', async () => {
      const c = ctx.current();
      if (!c) return;
      const removed = new Set(event.removed.map((f) => pathOfUri(f.uri)).filter((p) => p !== undefined));
      const specs = [
        ...c.folders.all.filter((f) => !removed.has(f.path)).map((f) => ({ name: f.name, path: f.path })),
        ...event.added.flatMap((f) => {
          const path = pathOfUri(f.uri);
          return path ? [{ name: f.name || basename(path), path }] : [];
        }),
      ];
      const result = await c.setFolders(specs);
      connection.console.info(`Workspace folders: ${c.folders.all.map((f) => `${f.name} (${f.path})`).join(', ') || '(none)'}.`);
      const still = new Set(result.after.map((i) => i.path));
      diagnostics.clear(result.before.filter((i) => !still.has(i.path)).map((i) => i.path));
      await diagnostics.publishFromDisk();
      void connection.sendNotification(ItemsChangedNotification.type, { ids: [...new Set([...result.before, ...result.after].map((i) => i.id))] });
      // Each folder's memory.jsonl is project memory: an added folder's entries appear, a removed one's leave.
      if (c.memory) void connection.sendNotification(MemoryChangedNotification.type, {});
    });

  const followWorkspaceFolders = () => {
    try {
      connection.workspace.onDidChangeWorkspaceFolders((event) => void applyFolders(event));
    } catch {
      // The client sends no folder changes (it does not support workspace folders): the folders stay as given.
    }
  };

  return { reload, followWorkspaceFolders };
}
