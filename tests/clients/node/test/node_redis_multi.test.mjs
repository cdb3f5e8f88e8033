// node-redis 6's multi() (MULTI/EXEC) and WATCH against redis-server and warden, RESP3 and
// RESP2: every expectation holds on both servers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, WatchError } from 'redis';
import { HOST, TARGETS } from '../helpers.mjs';

const PROTOCOLS = [
  { label: 'RESP3 (default)', options: {}, resp: 3 },
  { label: 'RESP2', options: { RESP: 2 }, resp: 2 },
];

for (const target of TARGETS) {
  for (const proto of PROTOCOLS) {
    describe(`node-redis 6.3.1 multi ${proto.label} [${target.name}]`, () => {
      let client;
      let other;

      before(async () => {
        const options = { socket: { host: HOST, port: target.ports[0] }, ...proto.options };
        client = createClient(options);
        other = createClient(options);
        for (const c of [client, other]) await c.connect();
        assert.equal((await client.clientInfo()).resp, proto.resp);
        await client.flushAll();
      });

      after(async () => {
        await client.quit();
        await other.quit();
      });

      test('multi().exec() returns the replies in order', async () => {
        const res = await client.multi().set('n:k', '1').incr('n:k').get('n:k').exec();
        assert.deepEqual(res, ['OK', 2, '2']);
      });

      test('a run-time error is reported, the other commands ran', async () => {
        await assert.rejects(
          client.multi().set('n:s', 'v').lPush('n:s', 'x').get('n:s').exec(),
          (err) => {
            assert.deepEqual(err.errorIndexes, [1]);
            assert.equal(err.replies[0], 'OK');
            assert.equal(err.replies[2], 'v');
            return true;
          },
        );
      });

      test('a refusal while queueing aborts the transaction, nothing runs', async () => {
        // node-redis reports the queueing error rather than EXEC's EXECABORT.
        await assert.rejects(
          client.multi().set('n:abort', 'v').addCommand(['NOSUCHCOMMAND', 'x']).exec(),
          /ERR unknown command 'NOSUCHCOMMAND', with args beginning with: 'x' /,
        );
        assert.equal(await client.exists('n:abort'), 0);
      });

      test('WATCH: another client writing the key fails exec() with WatchError', async () => {
        await client.set('n:w', '10');
        assert.equal(await client.watch('n:w'), 'OK');
        const value = Number(await client.get('n:w'));
        await other.incr('n:w');
        await assert.rejects(client.multi().set('n:w', String(value - 1)).exec(), WatchError);
        assert.equal(await client.get('n:w'), '11');
      });

      test('WATCH: a write that changes nothing lets exec() commit', async () => {
        await client.set('n:nx', 'owner');
        await client.watch('n:nx');
        assert.equal(await other.set('n:nx', 'intruder', { condition: 'NX' }), null);
        assert.deepEqual(await client.multi().del('n:nx').exec(), [1]);
      });

      test('blocking commands inside multi() answer at once', async () => {
        const res = await client.multi().blPop('n:empty', 0).brPopLPush('n:empty', 'n:d', 0).exec();
        assert.deepEqual(res, [null, null]);
      });
    });
  }
}
