// ioredis 6 against redis-server and warden, in RESP3 (its default: HELLO 3 on connect) and
// in RESP2 (protocol: 2).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import {
  EXTEND_LUA,
  HOST,
  RELEASE_LUA,
  TARGETS,
  assertWithin,
  eventuallyDeepEqual,
} from '../helpers.mjs';

const PROTOCOLS = [
  { label: 'RESP3 (default)', options: {}, resp: 3 },
  { label: 'RESP2', options: { protocol: 2 }, resp: 2 },
];

for (const target of TARGETS) {
  for (const proto of PROTOCOLS) {
    describe(`ioredis 6.0.0 ${proto.label} [${target.name}]`, () => {
      let redis;
      let other;
      const errors = [];

      before(async () => {
        const options = { host: HOST, port: target.ports[0], ...proto.options };
        redis = new Redis(options);
        other = new Redis(options);
        for (const c of [redis, other]) c.on('error', (e) => errors.push(e));
        await redis.flushall();
        await redis.script('FLUSH');
        // Each script below is defined once and sent by EVALSHA; the first call of each gets
        // NOSCRIPT and ioredis falls back to EVAL.
        for (const c of [redis, other]) {
          c.defineCommand('releaseLock', { numberOfKeys: 1, lua: RELEASE_LUA });
          c.defineCommand('extendLock', { numberOfKeys: 1, lua: EXTEND_LUA });
        }
      });

      after(async () => {
        await redis.quit();
        await other.quit();
        assert.deepEqual(errors, []);
      });

      test('connects with the protocol it asked for', async () => {
        const info = await redis.client('INFO');
        assert.match(String(info), new RegExp(`\\bresp=${proto.resp}\\b`));
        assert.equal(await redis.ping(), 'PONG');
      });

      test('SET NX PX acquires once and refuses a second holder', async () => {
        assert.equal(await redis.set('lock:a', 'tok-1', 'PX', 30000, 'NX'), 'OK');
        assert.equal(await other.set('lock:a', 'tok-2', 'PX', 30000, 'NX'), null);
        assert.equal(await redis.get('lock:a'), 'tok-1');
        assertWithin(await redis.pttl('lock:a'), 29000, 30000, 'PTTL');
        assert.equal(await redis.ttl('lock:a'), 30);
      });

      test('releases by compare-and-delete script, only with the right token', async () => {
        assert.equal(await redis.set('lock:b', 'tok-1', 'PX', 30000, 'NX'), 'OK');
        assert.equal(await other.releaseLock('lock:b', 'tok-2'), 0);
        assert.equal(await redis.get('lock:b'), 'tok-1');
        assert.equal(await redis.releaseLock('lock:b', 'tok-1'), 1);
        assert.equal(await redis.exists('lock:b'), 0);
        assert.equal(await redis.releaseLock('lock:b', 'tok-1'), 0);
      });

      test('extends by script and the TTL follows', async () => {
        assert.equal(await redis.set('lock:c', 'tok-1', 'PX', 1000, 'NX'), 'OK');
        assert.equal(await redis.extendLock('lock:c', 'tok-1', 60000), 1);
        assertWithin(await redis.pttl('lock:c'), 59000, 60000, 'PTTL');
        assert.equal(await other.extendLock('lock:c', 'tok-2', 1), 0);
        assertWithin(await redis.pttl('lock:c'), 59000, 60000, 'PTTL');
      });

      test('an expired lock goes to the next client', async () => {
        assert.equal(await redis.set('lock:d', 'tok-1', 'PX', 100, 'NX'), 'OK');
        // The 100 ms lease runs out on the server's own clock: wait for it, bounded.
        await eventuallyDeepEqual(() => redis.pttl('lock:d'), -2, 1000);
        assert.equal(await other.set('lock:d', 'tok-2', 'PX', 30000, 'NX'), 'OK');
        assert.equal(await redis.releaseLock('lock:d', 'tok-1'), 0);
        assert.equal(await redis.get('lock:d'), 'tok-2');
      });

      test('SCRIPT LOAD, EVALSHA and NOSCRIPT', async () => {
        const sha = await redis.script('LOAD', RELEASE_LUA);
        assert.match(sha, /^[0-9a-f]{40}$/);
        assert.deepEqual(await redis.script('EXISTS', sha, '0'.repeat(40)), [1, 0]);
        await redis.set('lock:e', 'tok-1');
        assert.equal(await redis.evalsha(sha, 1, 'lock:e', 'tok-1'), 1);
        await assert.rejects(redis.evalsha('0'.repeat(40), 0), {
          name: 'ReplyError',
          message: 'NOSCRIPT No matching script. Please use EVAL.',
        });
      });

      test('server errors reject with Redis texts', async () => {
        await assert.rejects(redis.set('lock:f', 'x', 'PX', 0), {
          message: "ERR invalid expire time in 'set' command",
        });
        await assert.rejects(redis.set('lock:f', 'x', 'NX', 'XX'), { message: 'ERR syntax error' });
        await assert.rejects(redis.call('NOSUCH', 'a'), {
          message: "ERR unknown command 'NOSUCH', with args beginning with: 'a' ",
        });
        assert.equal(await redis.exists('lock:f'), 0);
      });

      test('pipelined acquires answer in order', async () => {
        const replies = await redis
          .pipeline()
          .set('lock:g', 'tok-1', 'PX', 30000, 'NX')
          .set('lock:g', 'tok-2', 'PX', 30000, 'NX')
          .get('lock:g')
          .pexpire('lock:g', 60000)
          .del('lock:g')
          .exec();
        assert.deepEqual(replies, [
          [null, 'OK'],
          [null, null],
          [null, 'tok-1'],
          [null, 1],
          [null, 1],
        ]);
      });

      test('script replies convert as in Redis', async () => {
        const mixed = await redis.eval("return {1, 'two', {3}, false, 5}", 0);
        assert.deepEqual(mixed, [1, 'two', [3], null, 5]);
        assert.equal(await redis.eval('return 3.99', 0), 3);
        assert.equal(await redis.eval("return {ok='FINE'}", 0), 'FINE');
        await assert.rejects(redis.eval("return {err='MYERR failed'}", 0), {
          message: 'MYERR failed',
        });
        assert.equal(await redis.eval('redis.setresp(3); return {double=3.5}', 0), '3.5');
        assert.deepEqual(await redis.config('GET', 'maxmemory'), ['maxmemory', '0']);
      });

      test('scanStream visits each matching key exactly once', async () => {
        const pipe = redis.pipeline();
        for (let i = 0; i < 3000; i++) pipe.set(`lock:scan:${i}`, 't', 'PX', 600000);
        for (let i = 0; i < 500; i++) pipe.set(`job:${i}`, 'x');
        await pipe.exec();
        const seen = [];
        const stream = redis.scanStream({ match: 'lock:scan:*', count: 100 });
        for await (const keys of stream) seen.push(...keys);
        assert.equal(seen.length, 3000);
        assert.equal(new Set(seen).size, 3000);
        assert.ok(seen.every((k) => k.startsWith('lock:scan:')));
      });
    });
  }
}
