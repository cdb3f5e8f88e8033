// node-redis 6.3.1's client-side health check, `pingInterval`, against redis-server and warden in
// RESP3 and RESP2: the client sends PING every pingInterval ms (also while subscribed) and emits
// each reply as 'ping-interval'. Seen from the server: INFO commandstats counts each PING and
// CLIENT LIST shows it as the connection's last command. The pings keep a connection open past
// the server's idle `timeout`, which closes a client that sends nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { HOST, TARGETS, waitFor, within } from '../helpers.mjs';

const PROTOCOLS = [
  { label: 'RESP3 (default)', options: {}, resp: 3 },
  { label: 'RESP2', options: { RESP: 2 }, resp: 2 },
];

async function pingCalls(client) {
  const match = /^cmdstat_ping:calls=(\d+),/m.exec(await client.info('commandstats'));
  return match ? Number(match[1]) : 0;
}

async function clientNamed(admin, name) {
  return (await admin.clientList()).find((c) => c.name === name);
}

for (const target of TARGETS) {
  for (const proto of PROTOCOLS) {
    describe(`node-redis 6.3.1 pingInterval ${proto.label} [${target.name}]`, () => {
      const options = { socket: { host: HOST, port: target.ports[0] }, ...proto.options };
      const name = `pinger-${randomUUID().slice(0, 8)}`;
      let admin;
      let pinger;
      const pongs = [];
      const errors = [];
      let callsBefore;

      before(async () => {
        admin = createClient(options);
        await admin.connect();
        callsBefore = await pingCalls(admin);
        pinger = createClient({ ...options, name, pingInterval: 100 });
        pinger.on('ping-interval', (reply) => pongs.push(reply));
        pinger.on('error', (e) => errors.push(e));
        await pinger.connect();
      });

      after(async () => {
        await pinger.close();
        await admin.close();
        assert.deepEqual(errors, []);
      });

      test('the client sends PING every pingInterval, and the server counts each one', async () => {
        await waitFor(() => pongs.length >= 3, 'three pings', 3000);
        const seen = pongs.length;
        const calls = (await pingCalls(admin)) - callsBefore;
        // Every PING answered was counted; at most one more may be on its way back.
        assert.ok(calls >= seen && calls <= pongs.length + 1, `${calls} PINGs counted, ${seen} answered`);
        assert.deepEqual(pongs.slice(0, 3), ['PONG', 'PONG', 'PONG']);
        const me = await clientNamed(admin, name);
        assert.equal(me.cmd, 'ping');
        assert.equal(me.resp, proto.resp);
      });

      test('a subscribed client keeps pinging and still receives messages', async () => {
        const messages = [];
        await pinger.subscribe('health:news', (message, channel) => messages.push([message, channel]));
        const me = await clientNamed(admin, name);
        assert.equal(me.flags, 'P');
        assert.equal(me.sub, 1);

        const count = pongs.length;
        await waitFor(() => pongs.length >= count + 2, 'two pings while subscribed', 3000);
        // RESP2 answers a subscribed PING with the message-shaped ["pong", ""], which node-redis
        // hands over as 'pong'; RESP3 answers PONG.
        const expected = proto.resp === 2 ? 'pong' : 'PONG';
        assert.deepEqual(pongs.slice(count, count + 2), [expected, expected]);
        assert.equal((await clientNamed(admin, name)).cmd, 'ping');

        assert.equal(await admin.publish('health:news', 'hello'), 1);
        await waitFor(() => messages.length === 1, 'message');
        assert.deepEqual(messages, [['hello', 'health:news']]);
        await pinger.unsubscribe('health:news');
        assert.deepEqual(await admin.pubSubNumSub(['health:news']), { 'health:news': 0 });
      });
    });
  }

  describe(`node-redis 6.3.1 pingInterval and the server's idle timeout [${target.name}]`, () => {
    const options = { socket: { host: HOST, port: target.ports[0], reconnectStrategy: false } };
    let admin;

    before(async () => {
      admin = createClient(options);
      await admin.connect();
    });

    after(async () => {
      await admin.close();
    });

    test('the pings keep a connection open past `timeout`; an idle client is closed', async () => {
      const idle = createClient(options);
      const pinger = createClient({ ...options, pingInterval: 200 });
      const idleErrors = [];
      const pingerErrors = [];
      idle.on('error', (e) => idleErrors.push(e));
      pinger.on('error', (e) => pingerErrors.push(e));
      await idle.connect();
      await pinger.connect();
      const idleId = await idle.clientId();
      const pingerId = await pinger.clientId();

      assert.equal(await admin.configSet('timeout', '1'), 'OK');
      try {
        // The server closes the idle client after more than a second; admin polls, so it stays.
        await waitFor(async () => !(await admin.clientList()).some((c) => c.id === idleId),
          'idle client closed', 5000);
        await waitFor(() => !idle.isOpen, 'idle client noticed', 1000);
        assert.equal(idleErrors.length, 1);
        assert.match(idleErrors[0].message, /Socket closed unexpectedly/);
        // The pinger was never idle that long: same connection, still answering.
        assert.ok((await admin.clientList()).some((c) => c.id === pingerId));
        assert.equal(pinger.isReady, true);
        assert.equal(await within(pinger.clientId(), 'pinger answers', 1000), pingerId);
        assert.deepEqual(pingerErrors, []);
      } finally {
        await admin.configSet('timeout', '0');
        await pinger.close();
      }
    });
  });
}
