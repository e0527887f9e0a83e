/** The `memory` member of the exported API (present only when the flag is set). Inputs validated by the server. */
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  MemoryApproveRequest,
  MemoryForgetRequest,
  MemoryInboxRejectRequest,
  MemoryInboxRequest,
  MemoryListRequest,
  MemoryReadRequest,
  MemoryRecallRequest,
  MemoryRememberRequest,
} from '../../shared/memoryProtocol';
import { MemoryScopeSchema, MemoryTypeSchema } from '../../shared/memorySchemas';
import type { MemoryApi, MemoryEntryView, MemoryInbox } from '../api';
import type { MemoryController } from './memoryController';
import type { Distill } from './distillCommands';

export function memoryApi(client: LanguageClient, memory: MemoryController, distill: Distill): MemoryApi {
  const view = (e: MemoryEntryView): MemoryEntryView => e;
  return {
    isEnabled: async () => memory.isOn(),
    setEnabled: (on) => memory.setOn(on),
    remember: async (entry) => {
      const e = await client.sendRequest(MemoryRememberRequest.type, {
        scope: MemoryScopeSchema.parse(entry.scope),
        type: MemoryTypeSchema.parse(entry.type),
        title: entry.title,
        body: entry.body,
        tags: entry.tags ?? [],
        source: entry.source ?? 'agent',
        identity: entry.source === 'human' ? 'api' : 'api-agent',
        ...(entry.sessionKey ? { sessionKey: entry.sessionKey } : {}),
        ...(entry.folder !== undefined ? { folder: entry.folder } : {}),
      });
      return { id: e.id };
    },
    list: async (options) => {
      const out: MemoryEntryView[] = [];
      const scope = options?.scope ? MemoryScopeSchema.parse(options.scope) : undefined;
      for (let offset = 0; ; offset += 500) {
        const page = await client.sendRequest(MemoryListRequest.type, { ...(scope ? { scope } : {}), ...(options?.folder !== undefined ? { folder: options.folder } : {}), offset, limit: 500 });
        out.push(...page.entries.map(view));
        if (out.length >= page.total || page.entries.length === 0) return out;
      }
    },
    recall: async (query, options) => (await client.sendRequest(MemoryRecallRequest.type, { query, ...(options?.sessionKey ? { sessionKey: options.sessionKey } : {}), ...(options?.limit ? { limit: options.limit } : {}) })).map(view),
    read: async (id) => (await client.sendRequest(MemoryReadRequest.type, { id, forModel: true })) ?? undefined,
    approve: async (id) => {
      await client.sendRequest(MemoryApproveRequest.type, { id });
    },
    forget: (id) => client.sendRequest(MemoryForgetRequest.type, { id }),
    distill: async (sessionKey) => (await distill.run(sessionKey)).items,
    inbox: async () => {
      // Every page; a group split across pages is joined again. A page of another listing (an item decided or
      // added meanwhile: its stamp differs) starts the reading again, so nothing is skipped or listed twice.
      let groups = new Map<string | null, MemoryInbox['groups'][number]>();
      let stamp: string | undefined;
      for (let offset = 0, restarts = 0; ; offset += 1000) {
        const page = await client.sendRequest(MemoryInboxRequest.type, { offset, limit: 1000 });
        if (stamp !== undefined && page.stamp !== stamp && restarts++ < 5) {
          groups = new Map();
          stamp = undefined;
          offset = -1000;
          continue;
        }
        stamp = page.stamp;
        for (const g of page.groups) {
          const known = groups.get(g.sessionKey);
          if (known) known.items.push(...g.items);
          else groups.set(g.sessionKey, { sessionKey: g.sessionKey, counts: g.counts, items: [...g.items] });
        }
        const seen = [...groups.values()].reduce((n, g) => n + g.items.length, 0);
        if (seen >= page.total || page.groups.length === 0) return { groups: [...groups.values()], counts: page.counts };
      }
    },
    reject: async (id, reason) => {
      const out = await client.sendRequest(MemoryInboxRejectRequest.type, { ids: [id], ...(reason !== undefined ? { reason } : {}) });
      const refused = out.refused[0];
      if (refused) throw new Error(refused.message);
    },
  };
}
