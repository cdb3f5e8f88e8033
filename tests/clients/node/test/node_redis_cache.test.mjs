// node-redis 6's client-side cache (clientSideCache, RESP3 with CLIENT TRACKING ON) against
// redis-server and warden: reads are served from the cache until the server's invalidation
// push says the key changed. The invalidation reaches the client's socket before the reply to
// anything it sends after the write, so a PING on the cached client is the point after which the
// push has been handled: no waiting on time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { HOST, TARGETS } from '../helpers.mjs';

for (const target of TARGETS) {
  describe(`node-redis 6.3.1 clientSideCache [${target.name}]`, () => {
    let cached;
    let other;
    const key = (name) => `csc:${name}`;
    const hits = () => cached.clientSideCache.stats().hitCount;

    before(async () => {
      const socket = { host: HOST, port: target.ports[0] };
      cached = createClient({ socket, RESP: 3, clientSideCache: { ttl: 0, maxEntries: 0 } });
      other = createClient({ socket });
      await cached.connect();
      await other.connect();
      await other.flushAll();
    });

    after(async () => {
      await cached.quit();
      await other.quit();
    });

    test('the client turned tracking on', async () => {
      const info = await cached.sendCommand(['CLIENT', 'TRACKINGINFO']);
      assert.deepEqual([...info.flags], ['on']);
      assert.equal(info.redirect, 0);
    });

    test('a second read is a cache hit; a write by another client invalidates it', async () => {
      await other.set(key('a'), 'v1');
      assert.equal(await cached.get(key('a')), 'v1');
      const before = hits();
      assert.equal(await cached.get(key('a')), 'v1');
      assert.equal(hits(), before + 1);

      await other.set(key('a'), 'v2');
      await cached.ping();
      assert.equal(await cached.get(key('a')), 'v2');
      assert.equal(hits(), before + 1);
    });

    test('expiry and deletion invalidate, and a missing key is cached as missing', async () => {
      await other.set(key('b'), 'x');
      assert.equal(await cached.get(key('b')), 'x');
      await other.del(key('b'));
      await cached.ping();
      assert.equal(await cached.get(key('b')), null);
      const before = hits();
      assert.equal(await cached.get(key('b')), null);
      assert.equal(hits(), before + 1);
      await other.set(key('b'), 'back');
      await cached.ping();
      assert.equal(await cached.get(key('b')), 'back');
    });

    test('hashes and several keys at once', async () => {
      await other.hSet(key('h'), { f: '1', g: '2' });
      assert.deepEqual(await cached.hGetAll(key('h')), { f: '1', g: '2' });
      await other.mSet([key('m1'), '1', key('m2'), '2']);
      assert.deepEqual(await cached.mGet([key('m1'), key('m2')]), ['1', '2']);
      await other.hSet(key('h'), 'f', 'changed');
      await other.set(key('m2'), 'changed');
      await cached.ping();
      assert.deepEqual(await cached.hGetAll(key('h')), { f: 'changed', g: '2' });
      assert.deepEqual(await cached.mGet([key('m1'), key('m2')]), ['1', 'changed']);
    });

    test('FLUSHALL empties the whole cache (a null invalidation)', async () => {
      await other.set(key('f'), '1');
      assert.equal(await cached.get(key('f')), '1');
      assert.ok(cached.clientSideCache.size() > 0);
      await other.flushAll();
      await cached.ping();
      assert.equal(cached.clientSideCache.size(), 0);
      assert.equal(await cached.get(key('f')), null);
    });

    test('the server counts the tracking client and its keys', async () => {
      await other.set(key('t'), '1');
      await cached.get(key('t'));
      const info = await other.info('clients');
      assert.match(info, /tracking_clients:1\r\n/);
      const stats = await other.info('stats');
      const keys = Number(/tracking_total_keys:(\d+)/.exec(stats)[1]);
      assert.ok(keys >= 1, stats);
    });
  });
}
