// Three independent instances of one server kind for the Redlock suites. The third is reached
// through a TCP proxy that a test can take down and bring back, so "one instance down" is
// real to the client while the server behind it stays up for the other suites. The `direct`
// clients bypass the proxy and read what each instance actually holds.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { HOST, sleep, startProxy, waitDisconnected } from './helpers.mjs';

export async function threeInstances(target) {
  const proxy = await startProxy(target.ports[2]);
  const lockPorts = [target.ports[0], target.ports[1], proxy.port];
  const clients = lockPorts.map(
    (port) =>
      new Redis({
        host: HOST,
        port,
        // A command to a dead instance must fail at once, not wait in a queue for a reconnect
        // that Redlock would never see.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => 50,
      }),
  );
  const connectionErrors = [];
  for (const c of clients) c.on('error', (e) => connectionErrors.push(e));
  const direct = target.ports.map((port) => new Redis({ host: HOST, port }));
  for (const c of direct) {
    await c.flushall();
    await c.script('FLUSH');
  }
  for (const c of clients) {
    for (let i = 0; i < 200 && c.status !== 'ready'; i++) await sleep(10);
    assert.equal(c.status, 'ready');
  }
  return {
    clients,
    direct,
    connectionErrors,
    async values(key) {
      return Promise.all(direct.map((c) => c.get(key)));
    },
    async pttls(key) {
      return Promise.all(direct.map((c) => c.pttl(key)));
    },
    async thirdDown() {
      await proxy.down();
      await waitDisconnected(clients[2]);
    },
    async thirdUp() {
      await proxy.up();
      for (let i = 0; i < 300 && clients[2].status !== 'ready'; i++) await sleep(10);
      assert.equal(clients[2].status, 'ready', 'third instance did not reconnect');
    },
    async close() {
      for (const c of [...clients, ...direct]) c.disconnect();
      await proxy.down();
    },
  };
}
