/**
 * Owns what every route module shares: the connection, the core once `initialize` has built it, and the
 * initialization options. `startServer` makes one; route modules read the core through it, never a global.
 */
import { ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver';
import type { InitializationOptions } from '../../../shared/schemas';
import type { ClientKind } from '../initialize';
import type { KnowledgeCore } from '../../core/knowledgeCore';

export interface ServerContext {
  readonly connection: Connection;
  /** When the server started (ISO time), for `knowledge/status`. */
  readonly startedAt: string;
  /** The core; a request that arrives before `initialize` answers ServerNotInitialized. */
  ready(): KnowledgeCore;
  /**
   * The core once its latest load (or change of folders) has judged every item and read every folder's reviews: what a
   * request that reports a verdict waits for, so nothing unjudged (or judged before the reviews were read) is answered.
   */
  judged(): Promise<KnowledgeCore>;
  /** The core, or undefined while starting (for notifications and diagnostics, which answer no one). */
  current(): KnowledgeCore | undefined;
  /** The validated `initializationOptions`, once `initialize` has run. */
  options(): InitializationOptions | undefined;
  /** Who initialized the server (the extension, or a generic LSP client), once `initialize` has run. */
  client(): ClientKind | undefined;
}

/** A context whose core and options `initialize` sets later through `init`. */
export function createServerContext(connection: Connection): ServerContext & { init(core: KnowledgeCore, options: InitializationOptions, client: ClientKind): void } {
  let core: KnowledgeCore | undefined;
  let options: InitializationOptions | undefined;
  let clientKind: ClientKind | undefined;
  const ready = (): KnowledgeCore => {
    if (!core) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'The Session Knowledge server is still starting.');
    return core;
  };
  return {
    connection,
    startedAt: new Date().toISOString(),
    ready,
    async judged() {
      const c = ready();
      await c.whenJudged();
      return c;
    },
    current: () => core,
    options: () => options,
    client: () => clientKind,
    init(c, o, k) {
      core = c;
      options = o;
      clientKind = k;
    },
  };
}
