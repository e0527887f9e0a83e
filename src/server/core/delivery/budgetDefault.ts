/**
 * The token budget of a knowledge block when nobody names one: the language server, the MCP server, and the
 * extension's `sessionKnowledge.blockTokenBudget` setting (whose default in package.json must equal it; a unit test
 * holds them together). The Claude Code hook has its own, smaller one (`HOOK_BUDGET_TOKENS`: the hook's output limit).
 */
export const DEFAULT_BUDGET_TOKENS = 8000;
