/**
 * The API `activate()` returns to other extensions (its types are in `./api`): sessions, delivery, items and
 * the draft, over the language client. Titles of flagged items are withheld here too.
 */
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  CreateSessionRequest,
  GetDraftPinsRequest,
  GetSessionRequest,
  ListItemsRequest,
  MarkDeliveredRequest,
  NotifyCompactedRequest,
  ResolvePendingRequest,
  SetSessionPinsRequest,
  StatusRequest,
} from '../shared/protocol';
import type { SessionKnowledgeApi } from './api';
import { fromPins, toPins } from './pins';
import { blockBudget } from './chat/knowledgeSend';
import { RestrictedModeError, deliveryAllowed } from './workspaceTrust';

/** Other extensions hand the block to a model: in Restricted Mode they get an error naming it, never the block. */
function assertDeliveryAllowed(): void {
  if (!deliveryAllowed()) throw new RestrictedModeError();
}

export function createApi(lc: LanguageClient): SessionKnowledgeApi {
  return {
    apiVersion: 1,
    sessions: {
      create: async (options) => (await lc.sendRequest(CreateSessionRequest.type, { pins: fromPins(options?.pins), ...(options?.label ? { label: options.label } : {}), origin: 'api' })).key,
      getPins: async (key) => toPins((await lc.sendRequest(GetSessionRequest.type, { key })).pins),
      name: async (key) => (await lc.sendRequest(GetSessionRequest.type, { key })).name,
      setPins: async (key, pins) => {
        await lc.sendRequest(SetSessionPinsRequest.type, { key, pins: fromPins(pins) });
      },
    },
    delivery: {
      resolvePending: async (key) => {
        assertDeliveryAllowed();
        const { text, signature } = await lc.sendRequest(ResolvePendingRequest.type, { key, budgetTokens: blockBudget() });
        return { text, signature };
      },
      markDelivered: async (key, signature) => {
        await lc.sendRequest(MarkDeliveredRequest.type, { key, signature });
      },
      notifyCompacted: async (key) => {
        assertDeliveryAllowed();
        const { text, signature } = await lc.sendRequest(NotifyCompactedRequest.type, { key, budgetTokens: blockBudget() });
        return { text, signature };
      },
      delivered: async (key) => (await lc.sendRequest(GetSessionRequest.type, { key })).delivered,
    },
    // Titles of flagged items are withheld from other extensions too: they may hand them to a model.
    listItems: async () =>
      (await lc.sendRequest(ListItemsRequest.type, {})).map(({ id, kind, title, revision, flaggedRules, folder }) => ({
        id,
        kind,
        title: flaggedRules.length > 0 ? '(withheld: reads as an instruction)' : title,
        revision,
        flagged: flaggedRules.length > 0,
        ...(folder !== undefined ? { folder } : {}),
      })),
    getDraftPins: () => lc.sendRequest(GetDraftPinsRequest.type),
    serverStatus: async () => {
      const { pid, startedAt } = await lc.sendRequest(StatusRequest.type);
      return { pid, startedAt };
    },
  };
}
