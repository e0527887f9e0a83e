// The demo's port (`npm start`): one per clone, so the URL (and the browser's tab, history and storage for it) stays
// the same from one start to the next. It is derived from the clone's path, in 20000–29999 (below Linux's ephemeral
// range, where the free ports other programs get are picked); when something else holds it, any free port.
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';

export const DEMO_PORT_BASE = 20000;
export const DEMO_PORT_SPAN = 10000;

/** The port this clone asks for first: stable for a path, spread over the range. */
export function clonePort(path) {
  const h = createHash('sha256').update(path).digest();
  return DEMO_PORT_BASE + (h.readUInt32BE(0) % DEMO_PORT_SPAN);
}

/** Answers the port if it can be bound on 127.0.0.1 now (then released), else undefined. */
function tryPort(port) {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(undefined));
    s.listen(port, '127.0.0.1', () => {
      const bound = /** @type {import('node:net').AddressInfo} */ (s.address()).port;
      s.close(() => res(bound));
    });
  });
}

/**
 * The port for the demo of the clone at `path`: its own when free (`{ port, stable: true }`), else a free one
 * (`{ port, stable: false, taken }`, taken = the clone's port that was busy).
 */
export async function demoPort(path) {
  const own = clonePort(path);
  if ((await tryPort(own)) === own) return { port: own, stable: true };
  const port = await tryPort(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return { port, stable: false, taken: own };
}
