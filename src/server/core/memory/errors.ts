/**
 * The one error memory throws on purpose. `reason` says which rule refused; `message` is a sentence for a
 * person (or a model), never a stack trace. The server turns it into a ResponseError with
 * `MEMORY_ERROR_CODE` and `data.reason` (see `src/server/lsp/routing.ts`).
 */
export type MemoryErrorReason = 'memory-off' | 'readonly' | 'scope-full' | 'not-found' | 'invalid' | 'scope-unavailable' | 'flagged';

export class MemoryError extends Error {
  readonly isMemoryError = true as const;
  constructor(
    readonly reason: MemoryErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'MemoryError';
  }

  static is(err: unknown): err is MemoryError {
    return err instanceof Error && (err as Partial<MemoryError>).isMemoryError === true && typeof (err as MemoryError).reason === 'string';
  }
}

/** JSON-RPC error code of a MemoryError; `data.reason` carries `MemoryError.reason`. */
export const MEMORY_ERROR_CODE = -32002;
