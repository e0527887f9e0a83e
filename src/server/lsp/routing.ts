/**
 * Owns how a request declaration becomes a handler: validate params with the declaration's own schema, run
 * the handler, and map what it throws (SessionError, MemoryError, anything else) to the ResponseError clients see.
 */
import { ErrorCodes, LSPErrorCodes, ResponseError, type CancellationToken, type Connection } from 'vscode-languageserver';
import type { AnyRequestDecl, ParamsOf, ResultOf } from '../../shared/rpc';
import { SessionError } from '../core/delivery/sessionService';
import { MEMORY_ERROR_CODE, MemoryError } from '../core/memory/errors';
import { testDelayMs } from './testHooks';

/** Error code of a `SessionError` (unknown session, refused pin, no workspace); `data.reason` says which. */
export const SESSION_ERROR_CODE = -32001;

/** What a route for `D` does: gets `D`'s validated params, answers `D`'s declared result. */
export type Handler<D extends AnyRequestDecl> = (params: ParamsOf<D>) => ResultOf<D> | Promise<ResultOf<D>>;

/**
 * Registers `handler` for `decl`. Params are validated with `decl.params` first (InvalidParams on failure;
 * absent params read as `{}`), a thrown error becomes a `ResponseError`, and the server keeps serving.
 * There is no schema argument: a request is always validated with the schema it was declared with.
 */
export function route<D extends AnyRequestDecl>(connection: Connection, decl: D, handler: Handler<D>): void {
  // vscode-jsonrpc calls a handler registered by method with (params, token), or (token) when none were sent.
  connection.onRequest(decl.method, async (...args: unknown[]) => {
    const parsed = decl.params.safeParse((args.length > 1 ? args[0] : undefined) ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ResponseError(ErrorCodes.InvalidParams, `Invalid params at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
    }
    const delay = testDelayMs();
    if (delay > 0) {
      // Test hook (SK_TEST_HOOKS=1 only): a slow server. A request its client gave up on meanwhile does nothing.
      await new Promise((resolve) => setTimeout(resolve, delay));
      if ((args[args.length - 1] as CancellationToken | undefined)?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
    }
    try {
      return await handler(parsed.data as ParamsOf<D>);
    } catch (err) {
      throw toResponseError(connection, err);
    }
  });
}

/** The error a client sees: ours keep their code and `data.reason`; anything else is logged and sent as InternalError. */
function toResponseError(connection: Connection, err: unknown): ResponseError<unknown> {
  if (err instanceof ResponseError) return err;
  if (SessionError.is(err)) return new ResponseError(SESSION_ERROR_CODE, err.message, { reason: err.reason });
  if (MemoryError.is(err)) return new ResponseError(MEMORY_ERROR_CODE, err.message, { reason: err.reason });
  connection.console.error(`handler failed: ${(err as Error)?.stack ?? String(err)}`);
  return new ResponseError(ErrorCodes.InternalError, (err as Error)?.message ?? String(err));
}
