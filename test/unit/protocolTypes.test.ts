/**
 * Every language-server message is declared once (method, params schema, result type), and routes are made
 * from declarations. The `@ts-expect-error` lines below are checked by `npm run typecheck`: each pairing of a
 * request with another request's schema, params or result must fail to compile, or the directive itself fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Connection } from 'vscode-languageserver';
import type { MessageConnection } from 'vscode-languageserver-protocol';
import { z } from 'zod';
import * as protocol from '../../src/shared/protocol';
import * as memoryProtocol from '../../src/shared/memoryProtocol';
import { CreateItemRequest, GetSessionRequest, ListItemsRequest, StatsRequest } from '../../src/shared/protocol';
import { MemoryReadRequest } from '../../src/shared/memoryProtocol';
import { CreateItemParamsSchema, ListItemsParamsSchema, type KnowledgeItem, type Stats } from '../../src/shared/schemas';
import { SessionKeyParamsSchema } from '../../src/shared/sessionSchemas';
import { NoParamsSchema, defineRequest } from '../../src/shared/rpc';
import { route } from '../../src/server/lsp/routing';

// Never called: it exists for the type checker.
export function wrongPairingsDoNotCompile(connection: Connection, client: MessageConnection, item: KnowledgeItem): void {
  // Right pairings compile: the handler's params come from the declaration's own schema.
  route(connection, CreateItemRequest, (p) => ({ ...item, kind: p.kind, title: p.title }));
  route(connection, MemoryReadRequest, () => null);
  void client.sendRequest(CreateItemRequest.type, { kind: 'note', title: 'Setup' });

  // @ts-expect-error -- route takes no schema: a request is validated with the schema it was declared with
  route(connection, CreateItemRequest, SessionKeyParamsSchema, () => item);
  // @ts-expect-error -- a handler written for another request's params does not fit this request
  route(connection, CreateItemRequest, (p: z.output<typeof SessionKeyParamsSchema>) => ({ ...item, id: p.key }));
  // @ts-expect-error -- CreateItem's params have no `key`
  route(connection, CreateItemRequest, (p) => ({ ...item, id: p.key }));
  // @ts-expect-error -- the handler must answer the declared result (KnowledgeItem[], not a count)
  route(connection, ListItemsRequest, () => 42);
  // @ts-expect-error -- GetSession answers a SessionInfo, not a KnowledgeItem
  route(connection, GetSessionRequest, async () => item);
  // @ts-expect-error -- a request without params hands its handler no fields, so no handler that needs some
  route(connection, StatsRequest, (p: z.output<typeof CreateItemParamsSchema>) => ({ ...({} as Stats), notes: p.title.length }));
  // @ts-expect-error -- a declaration's type records its schema: ListItems cannot carry CreateItem's schema
  const relabelled: typeof ListItemsRequest = defineRequest('knowledge/listItems', CreateItemParamsSchema)<KnowledgeItem[]>();
  // @ts-expect-error -- nor another result type
  const otherResult: typeof ListItemsRequest = defineRequest('knowledge/listItems', ListItemsParamsSchema)<Stats>();
  // @ts-expect-error -- the client sends CreateItem's params with CreateItem's type
  void client.sendRequest(CreateItemRequest.type, { key: 'session-1' });
  void relabelled;
  void otherResult;
}

const declarations = Object.entries({ ...protocol, ...memoryProtocol }) as [string, unknown][];

test('every declared message has a params schema, a unique knowledge/ method and a matching type', () => {
  assert.ok(declarations.length > 40, `found ${declarations.length} declarations`);
  const methods = new Set<string>();
  for (const [name, value] of declarations) {
    const decl = value as { method?: unknown; params?: unknown; type?: { method?: unknown; numberOfParams?: unknown } };
    assert.match(name, /(Request|Notification)$/, `${name}: a declaration is named …Request or …Notification`);
    assert.equal(typeof decl.method, 'string', `${name}: method`);
    assert.match(decl.method as string, /^knowledge\/[A-Za-z/]+$/, `${name}: method under knowledge/`);
    assert.ok(!methods.has(decl.method as string), `${name}: method ${String(decl.method)} declared twice`);
    methods.add(decl.method as string);
    assert.ok(decl.params instanceof z.ZodType, `${name}: params is a zod schema`);
    assert.equal(decl.type?.method, decl.method, `${name}: type carries the same method`);
    // RequestType0 ⇔ the no-params schema. A notification without params still carries one param on the wire
    // (`{}`): a NotificationType0 handler logs an error for the `[null]` vscode-languageserver sends.
    if (name.endsWith('Request')) assert.equal(decl.type?.numberOfParams === 0, decl.params === NoParamsSchema, `${name}: no-param type and schema agree`);
    else assert.equal(decl.type?.numberOfParams, 1, `${name}: a notification's wire type takes one param`);
  }
});

test('the schema of a request without params accepts {} and refuses anything else', () => {
  assert.equal(StatsRequest.params.safeParse({}).success, true);
  assert.equal(StatsRequest.params.safeParse({ kind: 'note' }).success, false);
  assert.equal(StatsRequest.params.safeParse('x').success, false);
});
