// Messaging with the host through the typed messages of `src/shared/panelProtocol.ts` (types only: nothing of
// that module ships here): requests matched to their responses by id, and host pushes handed to a listener.
import type { PanelMethod, PanelOutbound, PanelParams, PanelResults, PanelState } from '../../src/shared/panelProtocol';
import { vscode } from './panelStore';

let nextId = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

class PanelRequestFailed extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
  static is(err: unknown): err is PanelRequestFailed {
    return err instanceof PanelRequestFailed;
  }
}

/** Why a request failed, as the host said (`PanelErrorReason`), or undefined for anything else. */
export function failureReason(err: unknown): string | undefined {
  return PanelRequestFailed.is(err) ? err.reason : undefined;
}

export function request<M extends PanelMethod>(method: M, params: PanelParams<M>): Promise<PanelResults[M]> {
  const requestId = nextId++;
  return new Promise<PanelResults[M]>((resolve, reject) => {
    pending.set(requestId, { resolve: resolve as (v: unknown) => void, reject });
    vscode.postMessage({ type: 'request', requestId, method, params });
  });
}

/** Installs the one message listener: responses settle their requests, `state` and `changed` go to `on`. */
export function listenToHost(on: { state(state: PanelState): void; changed(): void }): void {
  window.addEventListener('message', (event: MessageEvent<PanelOutbound>) => {
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'response') {
      const p = msg.requestId === null ? undefined : pending.get(msg.requestId);
      if (!p) return;
      pending.delete(msg.requestId as number);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new PanelRequestFailed(msg.error.reason, msg.error.message));
    } else if (msg.type === 'state') {
      on.state(msg.state);
    } else if (msg.type === 'changed') {
      on.changed();
    }
  });
}

/** Tells the host the listener is installed; it posts nothing before. */
export function sayReady(): void {
  vscode.postMessage({ type: 'ready' });
}
