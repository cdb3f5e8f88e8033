// Pub/sub through ioredis 6 and node-redis 6 against redis-server and warden, in RESP3 (both
// libraries' default: messages arrive as push frames between replies) and in RESP2. A subscriber
// connection, a publisher, patterns, shard channels (node-redis), PING while subscribed, and a
// script that publishes (the way lock libraries signal a release).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { HOST, TARGETS, eventuallyDeepEqual, within } from '../helpers.mjs';

const PUBLISH_LUA = "return redis.call('publish', KEYS[1], ARGV[1])";

// Resolves with the first `count` values `register` hands to its callback.
function collect(count, register) {
  const got = [];
  return {
    got,
    done: new Promise((resolve) => {
      register((...args) => {
        got.push(args);
        if (got.length === count) resolve(got);
      });
    }),
  };
}

for (const target of TARGETS) {
  for (const proto of [
    { label: 'RESP3 (default)', options: {}, resp: 3 },
    { label: 'RESP2', options: { protocol: 2 }, resp: 2 },
  ]) {
    describe(`ioredis 6.0.0 pub/sub ${proto.label} [${target.name}]`, () => {
      let sub;
      let pub;
      const errors = [];

      before(async () => {
        const options = { host: HOST, port: target.ports[0], ...proto.options };
        sub = new Redis(options);
        pub = new Redis(options);
        for (const c of [sub, pub]) c.on('error', (e) => errors.push(e));
        assert.match(await pub.call('CLIENT', 'INFO'), new RegExp(` resp=${proto.resp}\\b`));
      });

      after(async () => {
        await sub.quit();
        await pub.quit();
        assert.deepEqual(errors, []);
      });

      test('subscribe, psubscribe and publish counts', async () => {
        const messages = collect(1, (cb) => sub.on('message', cb));
        const pmessages = collect(1, (cb) => sub.on('pmessage', cb));
        assert.equal(await sub.subscribe('io:news', 'io:sport'), 2);
        assert.equal(await sub.psubscribe('io:n*'), 3);
        assert.equal(await pub.publish('io:news', 'hello'), 2);
        assert.deepEqual(await within(messages.done, 'message'), [['io:news', 'hello']]);
        assert.deepEqual(await within(pmessages.done, 'pmessage'), [
          ['io:n*', 'io:news', 'hello'],
        ]);
        assert.deepEqual(await pub.pubsub('NUMSUB', 'io:news', 'io:none'), [
          'io:news', 1, 'io:none', 0,
        ]);
        assert.equal(await pub.pubsub('NUMPAT'), 1);
      });

      test('ping while subscribed', async () => {
        const reply = await sub.ping();
        // RESP2: the message-shaped ["pong", ""]; RESP3: a plain PONG.
        if (proto.resp === 2) {
          assert.deepEqual(reply, ['pong', '']);
        } else {
          assert.equal(reply, 'PONG');
        }
      });

      test('a script publishes to the subscriber', async () => {
        const messages = collect(1, (cb) => sub.once('message', cb));
        assert.equal(await pub.eval(PUBLISH_LUA, 1, 'io:sport', 'released'), 1);
        assert.deepEqual(await within(messages.done, 'message'), [['io:sport', 'released']]);
      });

      test('unsubscribe everything', async () => {
        // Named: ioredis 6 waits forever on an UNSUBSCRIBE without names (on any server).
        assert.equal(await sub.unsubscribe('io:news', 'io:sport'), 1);
        assert.equal(await sub.punsubscribe('io:n*'), 0);
        await eventuallyDeepEqual(() => pub.pubsub('NUMSUB', 'io:news'), ['io:news', 0]);
        assert.equal(await pub.publish('io:news', 'gone'), 0);
        assert.equal(await pub.pubsub('NUMPAT'), 0);
      });
    });

    describe(`node-redis 6.3.1 pub/sub ${proto.label} [${target.name}]`, () => {
      let client;
      let sub;

      before(async () => {
        const options = {
          socket: { host: HOST, port: target.ports[0] },
          ...(proto.resp === 2 ? { RESP: 2 } : {}),
        };
        client = createClient(options);
        client.on('error', () => {});
        await client.connect();
        sub = client.duplicate();
        sub.on('error', () => {});
        await sub.connect();
        assert.equal((await sub.clientInfo()).resp, proto.resp);
      });

      after(async () => {
        await sub.quit();
        await client.quit();
      });

      test('subscribe, pSubscribe, sSubscribe and publish', async () => {
        const messages = collect(1, (cb) => sub.subscribe('nr:news', cb));
        const pmessages = collect(1, (cb) => sub.pSubscribe('nr:n*', cb));
        const smessages = collect(1, (cb) => sub.sSubscribe('nr:shard', cb));
        // The subscribe calls resolve once confirmed; wait for all three.
        await eventuallyDeepEqual(
          async () => [
            await client.pubSubNumSub(['nr:news']),
            await client.pubSubNumPat(),
            await client.pubSubShardNumSub(['nr:shard']),
          ],
          [{ 'nr:news': 1 }, 1, { 'nr:shard': 1 }],
          2000,
        );
        assert.equal(await client.publish('nr:news', 'hello'), 2);
        assert.deepEqual(await within(messages.done, 'message'), [['hello', 'nr:news']]);
        assert.deepEqual(await within(pmessages.done, 'pmessage'), [['hello', 'nr:news']]);
        assert.equal(await client.sPublish('nr:shard', 'sharded'), 1);
        assert.deepEqual(await within(smessages.done, 'smessage'), [['sharded', 'nr:shard']]);
        assert.deepEqual(await client.pubSubChannels('nr:*'), ['nr:news']);
      });

      test('ping while subscribed', async () => {
        await sub.subscribe('nr:ping', () => {});
        // RESP2: the message-shaped ["pong", ""], which node-redis hands over as 'pong'; RESP3:
        // a plain PONG.
        assert.equal(await sub.ping(), proto.resp === 2 ? 'pong' : 'PONG');
        await sub.unsubscribe('nr:ping');
      });

      test('a script publishes, and unsubscribing leaves no subscriber', async () => {
        const messages = collect(1, (cb) => sub.subscribe('nr:lua', cb));
        await eventuallyDeepEqual(() => client.pubSubNumSub(['nr:lua']), { 'nr:lua': 1 }, 2000);
        assert.equal(
          await client.eval(PUBLISH_LUA, { keys: ['nr:lua'], arguments: ['released'] }),
          1,
        );
        assert.deepEqual(await within(messages.done, 'message'), [['released', 'nr:lua']]);
        await sub.unsubscribe();
        await sub.pUnsubscribe();
        await sub.sUnsubscribe();
        assert.deepEqual(await client.pubSubNumSub(['nr:news', 'nr:lua']), {
          'nr:news': 0,
          'nr:lua': 0,
        });
        assert.equal(await client.pubSubNumPat(), 0);
      });
    });
  }
}
