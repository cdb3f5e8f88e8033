// ioredis 6's multi() (MULTI/EXEC) and WATCH against redis-server and warden, RESP3 and RESP2:
// every expectation holds on both servers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { HOST, TARGETS } from '../helpers.mjs';

const PROTOCOLS = [
  { label: 'RESP3 (default)', options: {}, resp: 3 },
  { label: 'RESP2', options: { protocol: 2 }, resp: 2 },
];

for (const target of TARGETS) {
  for (const proto of PROTOCOLS) {
    describe(`ioredis 6.0.0 multi ${proto.label} [${target.name}]`, () => {
      let redis;
      let other;

      before(async () => {
        const options = { host: HOST, port: target.ports[0], ...proto.options };
        redis = new Redis(options);
        other = new Redis(options);
        assert.match(await redis.call('CLIENT', 'INFO'), new RegExp(` resp=${proto.resp}\\b`));
        await redis.flushall();
      });

      after(async () => {
        await redis.quit();
        await other.quit();
      });

      test('multi().exec() runs the queued commands and returns [error, result] pairs', async () => {
        const res = await redis.multi().set('m:k', '1').incr('m:k').get('m:k').exec();
        assert.deepEqual(res, [
          [null, 'OK'],
          [null, 2],
          [null, '2'],
        ]);
      });

      test('a run-time error is one element, the rest still runs', async () => {
        const res = await redis.multi().set('m:s', 'v').lpush('m:s', 'x').get('m:s').exec();
        assert.deepEqual(res[0], [null, 'OK']);
        assert.match(String(res[1][0]), /WRONGTYPE Operation against a key/);
        assert.deepEqual(res[2], [null, 'v']);
      });

      test('a refusal while queueing aborts the transaction with EXECABORT', async () => {
        await assert.rejects(
          redis.multi().set('m:abort', 'v').call('NOSUCHCOMMAND', 'x').exec(),
          /EXECABORT Transaction discarded because of previous errors/,
        );
        assert.equal(await redis.exists('m:abort'), 0);
      });

      test('WATCH: another client writing the key makes exec() return null', async () => {
        await redis.set('m:w', '10');
        assert.equal(await redis.watch('m:w'), 'OK');
        const value = Number(await redis.get('m:w'));
        await other.incr('m:w');
        const res = await redis.multi().set('m:w', String(value - 1)).exec();
        assert.equal(res, null);
        assert.equal(await redis.get('m:w'), '11');
      });

      test('WATCH: a write that changes nothing lets exec() commit', async () => {
        await redis.set('m:nx', 'owner');
        await redis.watch('m:nx');
        assert.equal(await other.set('m:nx', 'intruder', 'NX'), null);
        const res = await redis.multi().del('m:nx').exec();
        assert.deepEqual(res, [[null, 1]]);
      });

      test('WATCH then UNWATCH forgets the key', async () => {
        await redis.watch('m:u');
        await other.set('m:u', 'x');
        assert.equal(await redis.unwatch(), 'OK');
        const res = await redis.multi().get('m:u').exec();
        assert.deepEqual(res, [[null, 'x']]);
      });

      test('blocking commands inside multi() answer at once', async () => {
        const res = await redis.multi().blpop('m:empty', 0).brpoplpush('m:empty', 'm:d', 0).exec();
        assert.deepEqual(res, [
          [null, null],
          [null, null],
        ]);
      });
    });
  }
}
