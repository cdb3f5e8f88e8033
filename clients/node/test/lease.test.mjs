// warden as the Redis of a node --test suite, as a user of the package writes it: useWarden()
// starts a server for this file on a free port and flushes it before each test, ioredis
// connects to its url, and a 30 s lease runs out when the clock moves 30 s, without a sleep.
// (install.test.mjs runs this file again in a project that installed the package.)
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import Redis from 'ioredis';
import { useWarden } from 'warden-testing/node-test';

const warden = useWarden();
let redis;

// A client per test, closed before the server stops (after the last test).
beforeEach(() => {
  redis = new Redis(warden.url);
});

afterEach(() => redis.disconnect());

const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then " +
  "return redis.call('del', KEYS[1]) else return 0 end";

test('a 30 s lease expires when the clock moves 30 s', async () => {
  await warden.freeze();
  assert.equal(await redis.set('lock:job', 'owner1', 'PX', 30000, 'NX'), 'OK');
  assert.equal(await redis.pttl('lock:job'), 30000);
  assert.equal(await redis.set('lock:job', 'owner2', 'PX', 30000, 'NX'), null);
  await warden.advance(30000);
  assert.equal(await redis.exists('lock:job'), 0);
  assert.equal(await redis.set('lock:job', 'owner2', 'PX', 30000, 'NX'), 'OK');
  assert.equal(await redis.get('lock:job'), 'owner2');
});

test('compare-and-delete refuses a stale owner after re-acquisition', async () => {
  await warden.freeze();
  assert.equal(await redis.set('lock:order', 'a', 'PX', 1000, 'NX'), 'OK');
  await warden.advance(1000);
  assert.equal(await redis.set('lock:order', 'b', 'PX', 1000, 'NX'), 'OK');
  assert.equal(await redis.eval(RELEASE, 1, 'lock:order', 'a'), 0);
  assert.equal(await redis.get('lock:order'), 'b');
  assert.equal(await redis.eval(RELEASE, 1, 'lock:order', 'b'), 1);
});

test('each test starts from an empty server on the real clock', async () => {
  assert.equal(await redis.dbsize(), 0);
  const [mode] = await warden.command('DEBUG', 'CLOCK');
  assert.equal(mode, 'real');
});
