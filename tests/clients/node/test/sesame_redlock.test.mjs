// @sesamecare-oss/redlock (the maintained Redlock for ioredis) over three independent
// instances: acquire, extend, release, a contended acquire that must fail, one instance down,
// and `using` with automatic extension.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ExecutionError, Redlock, ResourceLockedError } from '@sesamecare-oss/redlock';
import { TARGETS, assertWithin, eventuallyDeepEqual, sleep } from '../helpers.mjs';
import { threeInstances } from '../redlock_fixture.mjs';

for (const target of TARGETS) {
  describe(`@sesamecare-oss/redlock 1.4.0 [${target.name}]`, () => {
    let nodes;
    let redlock;
    const errors = [];

    before(async () => {
      nodes = await threeInstances(target);
      redlock = new Redlock(nodes.clients, { retryCount: 0 });
      redlock.on('error', (e) => errors.push(e));
    });

    after(async () => {
      await nodes.close();
    });

    // acquire, extend and release resolve once a quorum agreed; `attempts` resolve to each
    // attempt's votes once every instance has answered.
    const allVotes = async (result) => Promise.all(result.attempts);

    test('acquires on all three instances, extends, releases', async () => {
      const lock = await redlock.acquire(['lock:sr:a'], 2000);
      assert.equal((await allVotes(lock))[0].votesFor.size, 3);
      assert.deepEqual(await nodes.values('lock:sr:a'), [lock.value, lock.value, lock.value]);
      for (const pttl of await nodes.pttls('lock:sr:a')) assertWithin(pttl, 1500, 2000, 'PTTL');

      const extended = await lock.extend(10000);
      assert.equal(extended.value, lock.value);
      assert.equal((await allVotes(extended))[0].votesFor.size, 3);
      for (const pttl of await nodes.pttls('lock:sr:a')) assertWithin(pttl, 9000, 10000, 'PTTL');

      const released = await extended.release();
      assert.equal((await allVotes(released))[0].votesFor.size, 3);
      assert.deepEqual(await nodes.values('lock:sr:a'), [null, null, null]);
      assert.deepEqual(errors, []);
    });

    test('locks several resources at once', async () => {
      const lock = await redlock.acquire(['lock:sr:m1', 'lock:sr:m2'], 5000);
      await allVotes(lock);
      assert.deepEqual(await nodes.values('lock:sr:m1'), [lock.value, lock.value, lock.value]);
      assert.deepEqual(await nodes.values('lock:sr:m2'), [lock.value, lock.value, lock.value]);
      await assert.rejects(redlock.acquire(['lock:sr:m2', 'lock:sr:m3'], 5000), ExecutionError);
      assert.deepEqual(await nodes.values('lock:sr:m3'), [null, null, null]);
      await allVotes(await lock.release());
      assert.deepEqual(await nodes.values('lock:sr:m2'), [null, null, null]);
    });

    test('a contended acquire fails with every instance voting against', async () => {
      const held = await redlock.acquire(['lock:sr:b'], 10000);
      errors.length = 0;

      const failure = await redlock
        .acquire(['lock:sr:b'], 10000, { retryCount: 2, retryDelay: 50, retryJitter: 10 })
        .then(() => assert.fail('a second holder acquired the lock'), (e) => e);

      assert.ok(failure instanceof ExecutionError);
      assert.equal(failure.attempts.length, 3);
      const stats = await failure.attempts[0];
      assert.equal(stats.votesFor.size, 0);
      assert.equal(stats.votesAgainst.size, 3);
      for (const e of stats.votesAgainst.values()) {
        assert.ok(e instanceof ResourceLockedError, String(e));
      }
      assert.deepEqual(await nodes.values('lock:sr:b'), [held.value, held.value, held.value]);
      await allVotes(await held.release());
    });

    test('keeps a quorum with one instance down', async () => {
      await nodes.thirdDown();
      try {
        errors.length = 0;
        const lock = await redlock.acquire(['lock:sr:d'], 5000);
        await allVotes(lock);
        assert.deepEqual(await nodes.values('lock:sr:d'), [lock.value, lock.value, null]);
        const extended = await lock.extend(20000);
        await allVotes(extended);
        const pttls = await nodes.pttls('lock:sr:d');
        assertWithin(pttls[0], 19000, 20000, 'PTTL');
        assertWithin(pttls[1], 19000, 20000, 'PTTL');
        await allVotes(await extended.release());
        assert.deepEqual(await nodes.values('lock:sr:d'), [null, null, null]);
        assert.ok(errors.length >= 1, 'the dead instance reported no error');
      } finally {
        await nodes.thirdUp();
      }
    });

    test('refuses the lock when only one instance can grant it', async () => {
      await nodes.direct[0].set('lock:sr:f', 'someone-else', 'PX', 10000);
      await nodes.thirdDown();
      try {
        await assert.rejects(redlock.acquire(['lock:sr:f'], 5000), ExecutionError);
        // The one vote it got is rolled back.
        await eventuallyDeepEqual(() => nodes.values('lock:sr:f'), ['someone-else', null, null]);
      } finally {
        await nodes.thirdUp();
      }
    });

    test('using() extends the lock automatically while the routine runs', async () => {
      let inside;
      const settings = { automaticExtensionThreshold: 300 };
      await redlock.using(['lock:sr:u'], 600, settings, async (signal) => {
        await sleep(1000); // longer than the lock's 600 ms: only extension keeps it
        assert.equal(signal.aborted, false);
        inside = await nodes.values('lock:sr:u');
        for (const pttl of await nodes.pttls('lock:sr:u')) assertWithin(pttl, 0, 600, 'PTTL');
      });
      assert.ok(inside.every((v) => v !== null && v === inside[0]), `values inside: ${inside}`);
      // using() returns once a quorum released; the last instance answers a moment later.
      await eventuallyDeepEqual(() => nodes.values('lock:sr:u'), [null, null, null]);
    });
  });
}
