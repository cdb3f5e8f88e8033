// Shared by the node suites: the servers under test, and a TCP proxy that can play a dead
// instance. tests/clients/run.sh starts three redis-server and three warden instances and
// exports their ports as REDIS_PORTS and WARDEN_PORTS ("p1 p2 p3").
import assert from 'node:assert/strict';
import net from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

function ports(variable) {
  const value = process.env[variable];
  if (!value) throw new Error(`${variable} is not set: run through tests/clients/run.sh`);
  return value.split(' ').map(Number);
}

// Every describe block runs once per target; its name ends in [redis-server] or [warden].
export const TARGETS = [
  { name: 'redis-server', ports: ports('REDIS_PORTS') },
  { name: 'warden', ports: ports('WARDEN_PORTS') },
];

export const HOST = '127.0.0.1';

export const RELEASE_LUA =
  "if redis.call('get', KEYS[1]) == ARGV[1] then " +
  "return redis.call('del', KEYS[1]) else return 0 end";
export const EXTEND_LUA =
  "if redis.call('get', KEYS[1]) == ARGV[1] then " +
  "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

export { sleep };

// Asserts low < value <= high (TTLs: the server may have spent a few milliseconds).
export function assertWithin(value, low, high, what = 'value') {
  assert.ok(typeof value === 'number', `${what} is not a number: ${value}`);
  assert.ok(value > low && value <= high, `${what} ${value} not in (${low}, ${high}]`);
}

// A TCP proxy in front of one server. down() closes every connection and refuses new ones, so
// a client sees the instance die; the server behind it keeps running for the other suites.
export async function startProxy(targetPort) {
  const sockets = new Set();
  let server;
  const listen = (port) =>
    new Promise((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, HOST);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.once('error', reject);
      server.listen(port, HOST, () => resolve(server.address().port));
    });
  const port = await listen(0);
  return {
    port,
    async down() {
      await new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    async up() {
      await listen(port);
    },
  };
}

// Waits until an ioredis client has noticed its connection is gone.
export async function waitDisconnected(client) {
  for (let i = 0; i < 200 && client.status === 'ready'; i++) await sleep(10);
  assert.notEqual(client.status, 'ready', 'client still connected after the proxy went down');
}

// Re-reads until `read()` deep-equals `expected` or `timeoutMs` pass, then asserts it. For state
// that a library finishes writing after it resolved (Redlock resolves once a quorum answered), or
// that a server reaches in its own time (a lease running out).
export async function eventuallyDeepEqual(read, expected, timeoutMs = 500) {
  let actual = await read();
  for (let i = 0; i < timeoutMs / 10 && !isDeepStrictEqual(actual, expected); i++) {
    await sleep(10);
    actual = await read();
  }
  assert.deepEqual(actual, expected);
}

// Resolves with what `promise` resolves with, or fails after `ms` saying what did not happen.
export async function within(promise, what, ms = 5000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// Calls `check()` every 10 ms until it returns something truthy, and returns that; fails after
// `ms`. For a state that a library or a server reaches in its own time.
export async function waitFor(check, what, ms = 2000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
}
