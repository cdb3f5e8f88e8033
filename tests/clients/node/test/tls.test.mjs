// ioredis and node-redis over TLS (rediss://) against redis-server and warden. tests/clients/
// run.sh makes the run's CA and certificates (TLS_DIR) and gives the first instance of each
// server a TLS port that requires a client certificate (REDIS_TLS_PORT, WARDEN_TLS_PORT).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { HOST, RELEASE_LUA, assertWithin } from '../helpers.mjs';

function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through tests/clients/run.sh`);
  return value;
}

const dir = env('TLS_DIR');
const files = {
  ca: readFileSync(join(dir, 'ca.crt')),
  cert: readFileSync(join(dir, 'client.crt')),
  key: readFileSync(join(dir, 'client.key')),
};
const TLS_TARGETS = [
  { name: 'redis-server', port: Number(env('REDIS_TLS_PORT')) },
  { name: 'warden', port: Number(env('WARDEN_TLS_PORT')) },
];

for (const target of TLS_TARGETS) {
  describe(`ioredis over TLS [${target.name}]`, () => {
    let redis;
    let other;
    const errors = [];

    before(async () => {
      const options = { host: HOST, port: target.port, tls: { ...files, servername: 'localhost' } };
      redis = new Redis(options);
      other = new Redis(options);
      for (const c of [redis, other]) c.on('error', (e) => errors.push(e));
      await redis.del('tls:node:lock', 'tls:node:n');
      redis.defineCommand('releaseLock', { numberOfKeys: 1, lua: RELEASE_LUA });
    });

    after(async () => {
      await redis.quit();
      await other.quit();
      assert.deepEqual(errors, []);
    });

    test('the lock pattern: acquire once, release only by the holder', async () => {
      assert.equal(await redis.set('tls:node:lock', 'tok-1', 'PX', 30000, 'NX'), 'OK');
      assert.equal(await other.set('tls:node:lock', 'tok-2', 'PX', 30000, 'NX'), null);
      assertWithin(await redis.pttl('tls:node:lock'), 29000, 30000, 'PTTL');
      assert.equal(await redis.releaseLock('tls:node:lock', 'tok-2'), 0);
      assert.equal(await redis.releaseLock('tls:node:lock', 'tok-1'), 1);
    });

    test('a pipeline of a thousand commands', async () => {
      const pipeline = redis.pipeline();
      for (let i = 0; i < 1000; i++) pipeline.incr('tls:node:n');
      const results = await pipeline.exec();
      assert.deepEqual(
        results.map(([err, n]) => [err, n]),
        Array.from({ length: 1000 }, (_, i) => [null, i + 1]),
      );
    });

    test('a client without a certificate is refused', async () => {
      const anonymous = new Redis({
        host: HOST,
        port: target.port,
        tls: { ca: files.ca, servername: 'localhost' },
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        lazyConnect: true,
      });
      anonymous.on('error', () => {});
      await assert.rejects(async () => {
        await anonymous.connect();
        await anonymous.ping();
      });
      anonymous.disconnect();
    });
  });

  describe(`node-redis over TLS [${target.name}]`, () => {
    let client;
    let subscriber;

    before(async () => {
      const options = {
        url: `rediss://${HOST}:${target.port}`,
        socket: { tls: true, ...files, servername: 'localhost' },
      };
      client = createClient(options);
      subscriber = createClient(options);
      await client.connect();
      await subscriber.connect();
    });

    after(async () => {
      await client.quit();
      await subscriber.quit();
    });

    test('SET NX PX and GET over rediss://', async () => {
      await client.del('tls:node-redis:lock');
      assert.equal(await client.set('tls:node-redis:lock', 'tok', { NX: true, PX: 30000 }), 'OK');
      assert.equal(await client.set('tls:node-redis:lock', 'x', { NX: true, PX: 30000 }), null);
      assert.equal(await client.get('tls:node-redis:lock'), 'tok');
    });

    test('pub/sub delivers a message to a TLS subscriber', async () => {
      let deliver;
      const received = new Promise((resolve) => {
        deliver = resolve;
      });
      // subscribe resolves once the server has confirmed the subscription.
      await subscriber.subscribe('tls:released', (message) => deliver(message));
      assert.equal(await client.publish('tls:released', 'job-9'), 1);
      assert.equal(await received, 'job-9');
    });
  });
}
