/**
 * Owns agent pins on the wire: read and change `.knowledge/pins.json` (what agents outside `@knowledge` carry —
 * Claude Code's hook, the MCP server, the Copilot instruction file) and compile the block those agents get.
 * A change is announced with StoreChanged, as draft pins are, so views refresh.
 */
import { CompileAgentBlockRequest, GetAgentPinsRequest, StoreChangedNotification, UpdateAgentPinsRequest } from '../../../shared/protocol';
import { route } from '../routing';
import type { ServerContext } from './routeContext';
import { toPendingBlock } from './sessionRoutes';

export function registerAgentRoutes(ctx: ServerContext): void {
  const { connection } = ctx;

  // Every folder's .knowledge/pins.json, as workspace ids.
  route(connection, GetAgentPinsRequest, () => ctx.ready().readAgentPins());
  route(connection, UpdateAgentPinsRequest, async (p) => {
    const result = await ctx.ready().updateAgentPins(p.add, p.remove);
    void connection.sendNotification(StoreChangedNotification.type, {});
    return result;
  });
  route(connection, CompileAgentBlockRequest, async (p) => toPendingBlock({ ...(await (await ctx.judged()).compileAgentBlock(undefined, p.budgetTokens, p.memory ?? true, p.destination ?? 'mcp')), delivered: '' }));
}
