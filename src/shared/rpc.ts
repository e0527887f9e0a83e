/**
 * How a language-server message is declared: one object carries its method, the zod schema of its params and
 * its result type. The server routes from these (`route` in `src/server/lsp/routing.ts` takes no schema of its
 * own, so a handler cannot validate with another message's schema); the client sends with `X.type`.
 *
 * The wire type of params is the schema's input (`z.input`: what a caller may send, defaults still absent);
 * a handler receives its output (`z.output`: validated, defaults applied).
 */
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import { z } from 'zod';

/** The params of a message that carries none. The server reads absent or null params as `{}`. */
export const NoParamsSchema = z.object({}).strict();
export type NoParamsSchema = typeof NoParamsSchema;

/** A request with params. `type` is the vscode-languageserver `RequestType` clients send with. */
export interface RequestDecl<S extends z.ZodType, R, M extends string = string> {
  readonly method: M;
  readonly params: S;
  readonly type: RequestType<z.input<S>, R, void>;
}

/** A request without params (`RequestType0`); the server still checks that none were sent. */
export interface Request0Decl<R, M extends string = string> {
  readonly method: M;
  readonly params: NoParamsSchema;
  readonly type: RequestType0<R, void>;
}

/** A notification with params. */
export interface NotificationDecl<S extends z.ZodType, M extends string = string> {
  readonly method: M;
  readonly params: S;
  readonly type: NotificationType<z.input<S>>;
}

/**
 * A notification that carries nothing. On the wire its params are `{}`, never absent: vscode-languageserver's
 * `sendNotification(type)` sends `[null]` for a `NotificationType0`, which a vscode-languageclient handler
 * declared with `NotificationType0` logs as an error on every change. Send it as `sendNotification(X.type, {})`.
 */
export interface Notification0Decl<M extends string = string> {
  readonly method: M;
  readonly params: NoParamsSchema;
  readonly type: NotificationType<Record<string, never>>;
}

// `any` in these constraints only lets every concrete declaration through; `ResultOf` recovers its own types.
/* eslint-disable @typescript-eslint/no-explicit-any */
export type AnyRequestDecl = RequestDecl<z.ZodType, any> | Request0Decl<any>;
/** The result type a request declares. */
export type ResultOf<D extends AnyRequestDecl> = D extends RequestDecl<any, infer R> ? R : D extends Request0Decl<infer R> ? R : never;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The params a handler of `D` receives: the output of `D`'s own schema. */
export type ParamsOf<D extends { readonly params: z.ZodType }> = z.output<D['params']>;

/** `defineRequest('knowledge/x', XParamsSchema)<XResult>()`: the result type is given, the params type comes from the schema. */
export function defineRequest<const M extends string, S extends z.ZodType>(method: M, params: S): <R>() => RequestDecl<S, R, M> {
  return <R>() => ({ method, params, type: new RequestType<z.input<S>, R, void>(method) });
}

/** `defineRequest0('knowledge/x')<XResult>()`: a request without params. */
export function defineRequest0<const M extends string>(method: M): <R>() => Request0Decl<R, M> {
  return <R>() => ({ method, params: NoParamsSchema, type: new RequestType0<R, void>(method) });
}

export function defineNotification<const M extends string, S extends z.ZodType>(method: M, params: S): NotificationDecl<S, M> {
  return { method, params, type: new NotificationType<z.input<S>>(method) };
}

export function defineNotification0<const M extends string>(method: M): Notification0Decl<M> {
  return { method, params: NoParamsSchema, type: new NotificationType<Record<string, never>>(method) };
}
