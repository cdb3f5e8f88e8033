// node-redis 6 (the `redis` package) against redis-server and warden, in RESP3 (its default)
// and in RESP2. The lock scripts are defined with defineScript, which node-redis sends by
// EVALSHA and retries as EVAL on NOSCRIPT.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, defineScript } from 'redis';
import {
  EXTEND_LUA,
  HOST,
  RELEASE_LUA,
  TARGETS,
  assertWithin,
  eventuallyDeepEqual,
} from '../helpers.mjs';

const scripts = {
  releaseLock: defineScript({
    SCRIPT: RELEASE_LUA,
    NUMBER_OF_KEYS: 1,
    parseCommand(parser, key, token) {
      parser.pushKey(key);
      parser.push(token);
    },
    transformReply: (reply) => reply,
  }),
  extendLock: defineScript({
    SCRIPT: EXTEND_LUA,
    NUMBER_OF_KEYS: 1,
    parseCommand(parser, key, token, ttlMs) {
      parser.pushKey(key);
      parser.push(token, String(ttlMs));
    },
    transformReply: (reply) => reply,
  }),
};

const PROTOCOLS = [
  { label: 'RESP3 (default)', options: {}, resp: 3 },
  { label: 'RESP2', options: { RESP: 2 }, resp: 2 },
];

const PX = (ms) => ({ condition: 'NX', expiration: { type: 'PX', value: ms } });

for (const target of TARGETS) {
  for (const proto of PROTOCOLS) {
    describe(`node-redis 6.3.1 ${proto.label} [${target.name}]`, () => {
      let client;
      let other;
      const errors = [];

      before(async () => {
        const socket = { host: HOST, port: target.ports[0] };
        const options = { socket, scripts, ...proto.options };
        client = createClient(options);
        other = createClient(options);
        for (const c of [client, other]) {
          c.on('error', (e) => errors.push(e));
          await c.connect();
        }
        await client.flushAll();
        await client.scriptFlush();
      });

      after(async () => {
        await client.close();
        await other.close();
        assert.deepEqual(errors, []);
      });

      test('connects with the protocol it asked for', async () => {
        const info = await client.clientInfo();
        assert.equal(info.resp, proto.resp);
        assert.equal(await client.ping(), 'PONG');
      });

      test('SET NX PX acquires once and refuses a second holder', async () => {
        assert.equal(await client.set('lock:a', 'tok-1', PX(30000)), 'OK');
        assert.equal(await other.set('lock:a', 'tok-2', PX(30000)), null);
        assert.equal(await client.get('lock:a'), 'tok-1');
        assertWithin(await client.pTTL('lock:a'), 29000, 30000, 'PTTL');
        assert.equal(await client.ttl('lock:a'), 30);
        // The deprecated option style sends the same command.
        assert.equal(await other.set('lock:a', 'tok-2', { NX: true, PX: 30000 }), null);
      });

      test('releases by compare-and-delete script, only with the right token', async () => {
        assert.equal(await client.set('lock:b', 'tok-1', PX(30000)), 'OK');
        assert.equal(await other.releaseLock('lock:b', 'tok-2'), 0);
        assert.equal(await client.get('lock:b'), 'tok-1');
        assert.equal(await client.releaseLock('lock:b', 'tok-1'), 1);
        assert.equal(await client.exists('lock:b'), 0);
        assert.equal(await client.releaseLock('lock:b', 'tok-1'), 0);
      });

      test('extends by script and the TTL follows', async () => {
        assert.equal(await client.set('lock:c', 'tok-1', PX(1000)), 'OK');
        assert.equal(await client.extendLock('lock:c', 'tok-1', 60000), 1);
        assertWithin(await client.pTTL('lock:c'), 59000, 60000, 'PTTL');
        assert.equal(await other.extendLock('lock:c', 'tok-2', 1), 0);
        assertWithin(await client.pTTL('lock:c'), 59000, 60000, 'PTTL');
      });

      test('an expired lock goes to the next client', async () => {
        assert.equal(await client.set('lock:d', 'tok-1', PX(100)), 'OK');
        // The 100 ms lease runs out on the server's own clock: wait for it, bounded.
        await eventuallyDeepEqual(() => client.pTTL('lock:d'), -2, 1000);
        assert.equal(await other.set('lock:d', 'tok-2', PX(30000)), 'OK');
        assert.equal(await client.releaseLock('lock:d', 'tok-1'), 0);
        assert.equal(await client.get('lock:d'), 'tok-2');
      });

      test('eval, scriptLoad, evalSha and NOSCRIPT', async () => {
        await client.set('lock:e', 'tok-1');
        assert.equal(await client.eval(RELEASE_LUA, { keys: ['lock:e'], arguments: ['tok-2'] }), 0);
        const sha = await client.scriptLoad(RELEASE_LUA);
        assert.equal(sha, scripts.releaseLock.SHA1);
        assert.deepEqual(await client.scriptExists([sha, '0'.repeat(40)]), [1, 0]);
        assert.equal(await client.evalSha(sha, { keys: ['lock:e'], arguments: ['tok-1'] }), 1);
        await assert.rejects(client.evalSha('0'.repeat(40)), {
          message: 'NOSCRIPT No matching script. Please use EVAL.',
        });
      });

      test('server errors reject with Redis texts', async () => {
        await assert.rejects(client.set('lock:f', 'x', { expiration: { type: 'PX', value: 0 } }), {
          message: "ERR invalid expire time in 'set' command",
        });
        await assert.rejects(client.sendCommand(['SET', 'lock:f', 'x', 'NX', 'XX']), {
          message: 'ERR syntax error',
        });
        await assert.rejects(client.sendCommand(['NOSUCH', 'a']), {
          message: "ERR unknown command 'NOSUCH', with args beginning with: 'a' ",
        });
        assert.equal(await client.exists('lock:f'), 0);
      });

      test('pipelined commands answer in order', async () => {
        const replies = await Promise.all([
          client.set('lock:g', 'tok-1', PX(30000)),
          client.set('lock:g', 'tok-2', PX(30000)),
          client.get('lock:g'),
          client.pExpire('lock:g', 60000),
          client.del('lock:g'),
        ]);
        assert.deepEqual(replies, ['OK', null, 'tok-1', 1, 1]);
      });

      test('script replies convert as in Redis', async () => {
        assert.deepEqual(
          await client.eval("return {1, 'two', {3}, false, 5}"),
          [1, 'two', [3], null, 5],
        );
        assert.equal(await client.eval('return 3.99'), 3);
        assert.equal(await client.eval("return {ok='FINE'}"), 'FINE');
        await assert.rejects(client.eval("return {err='MYERR failed'}"), {
          message: 'MYERR failed',
        });
        const double = await client.eval('redis.setresp(3); return {double=3.5}');
        assert.equal(double, proto.resp === 3 ? 3.5 : '3.5');
      });

      test('scanIterator visits each matching key exactly once', async () => {
        const writes = [];
        for (let i = 0; i < 3000; i++) writes.push(client.set(`lock:scan:${i}`, 't', PX(600000)));
        for (let i = 0; i < 500; i++) writes.push(client.set(`job:${i}`, 'x'));
        await Promise.all(writes);
        const seen = [];
        const scan = client.scanIterator({ MATCH: 'lock:scan:*', COUNT: 100 });
        for await (const keys of scan) seen.push(...keys);
        assert.equal(seen.length, 3000);
        assert.equal(new Set(seen).size, 3000);
        assert.ok(seen.every((k) => k.startsWith('lock:scan:')));
      });
    });
  }
}
