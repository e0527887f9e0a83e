/**
 * `npm start`'s port (scripts/demoPort.mjs): the clone's own while it is free — the same for a path on every start —
 * and a free port when something holds it. Real sockets on 127.0.0.1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { DEMO_PORT_BASE, DEMO_PORT_SPAN, clonePort, demoPort } from '../../scripts/demoPort.mjs';

const listen = (port: number): Promise<Server | undefined> =>
  new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(undefined));
    s.listen(port, '127.0.0.1', () => res(s));
  });
const close = (s: Server) => new Promise<void>((res) => s.close(() => res()));

test('a clone path always maps to the same port, in 20000–29999, and different clones spread out', () => {
  const a = clonePort('/home/ann/src/session-knowledge');
  assert.equal(clonePort('/home/ann/src/session-knowledge'), a);
  const ports = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const p = clonePort(`/home/user${i}/session-knowledge`);
    assert.ok(p >= DEMO_PORT_BASE && p < DEMO_PORT_BASE + DEMO_PORT_SPAN, String(p));
    ports.add(p);
  }
  assert.ok(ports.size > 190, `200 clones get ${ports.size} different ports`);
});

test("demoPort answers the clone's port when it is free, and another free port while it is held", async () => {
  // A path whose port is free right now (on a shared machine one may be taken: try a few).
  let path = '';
  for (let i = 0; i < 20 && !path; i++) {
    const candidate = `/tmp/sk-demo-port-test-${process.pid}-${i}`;
    const probe = await listen(clonePort(candidate));
    if (probe) {
      await close(probe);
      path = candidate;
    }
  }
  assert.ok(path, 'found a clone path with a free port');
  const own = clonePort(path);
  assert.deepEqual(await demoPort(path), { port: own, stable: true });
  assert.deepEqual(await demoPort(path), { port: own, stable: true }, 'the same on the next start');

  const holder = await listen(own);
  assert.ok(holder);
  try {
    const fallback = await demoPort(path);
    assert.equal(fallback.stable, false);
    assert.equal((fallback as { taken: number }).taken, own);
    assert.notEqual(fallback.port, own);
    const usable = await listen(fallback.port);
    assert.ok(usable, 'the fallback port can be bound');
    await close(usable);
  } finally {
    await close(holder);
  }
});
