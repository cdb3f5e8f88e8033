// redlock 4 (the `redlock` package's current release) over three independent instances, with
// ioredis clients: acquire, extend, release, a contended acquire that must fail, and one
// instance down.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Redlock from 'redlock';
import { TARGETS, assertWithin } from '../helpers.mjs';
import { threeInstances } from '../redlock_fixture.mjs';

for (const target of TARGETS) {
  describe(`redlock 4.2.0 [${target.name}]`, () => {
    let nodes;
    let redlock;
    const clientErrors = [];

    before(async () => {
      nodes = await threeInstances(target);
      redlock = new Redlock(nodes.clients, { retryCount: 0, driftFactor: 0.01 });
      redlock.on('clientError', (e) => clientErrors.push(e));
    });

    after(async () => {
      await nodes.close();
    });

    test('acquires on all three instances, extends, releases', async () => {
      const lock = await redlock.lock('lock:rl:a', 2000);
      assert.match(lock.value, /^[0-9a-f]{32}$/);
      assert.deepEqual(await nodes.values('lock:rl:a'), [lock.value, lock.value, lock.value]);
      for (const pttl of await nodes.pttls('lock:rl:a')) assertWithin(pttl, 1500, 2000, 'PTTL');

      const extended = await lock.extend(10000);
      assert.equal(extended.value, lock.value);
      assert.ok(extended.expiration > Date.now() + 9000);
      for (const pttl of await nodes.pttls('lock:rl:a')) assertWithin(pttl, 9000, 10000, 'PTTL');

      await extended.unlock();
      assert.deepEqual(await nodes.values('lock:rl:a'), [null, null, null]);
      assert.deepEqual(clientErrors, []);
    });

    test('a contended acquire fails and leaves the holder in place', async () => {
      const held = await redlock.lock('lock:rl:b', 10000);
      const rival = new Redlock(nodes.clients, { retryCount: 2, retryDelay: 50, retryJitter: 10 });

      await assert.rejects(rival.lock('lock:rl:b', 10000), {
        name: 'LockError',
        message: 'Exceeded 2 attempts to lock the resource "lock:rl:b".',
      });

      assert.deepEqual(await nodes.values('lock:rl:b'), [held.value, held.value, held.value]);
      await held.unlock();
      const next = await rival.lock('lock:rl:b', 10000);
      assert.deepEqual(await nodes.values('lock:rl:b'), [next.value, next.value, next.value]);
      await next.unlock();
    });

    test('a released lock cannot be extended and a second unlock fails', async () => {
      const lock = await redlock.lock('lock:rl:c', 5000);
      await lock.unlock();
      await assert.rejects(lock.extend(5000), { name: 'LockError' });
      await assert.rejects(redlock.unlock({ resource: 'lock:rl:c', value: lock.value }), {
        name: 'LockError',
      });
    });

    test('keeps a quorum with one instance down', async () => {
      await nodes.thirdDown();
      try {
        clientErrors.length = 0;
        const lock = await redlock.lock('lock:rl:d', 5000);
        assert.ok(clientErrors.length >= 1, 'the dead instance raised no client error');
        const [first, second, third] = await nodes.values('lock:rl:d');
        assert.deepEqual([first, second, third], [lock.value, lock.value, null]);

        const extended = await lock.extend(20000);
        const pttls = await nodes.pttls('lock:rl:d');
        assertWithin(pttls[0], 19000, 20000, 'PTTL');
        assertWithin(pttls[1], 19000, 20000, 'PTTL');
        assert.equal(pttls[2], -2);

        await extended.unlock();
        assert.deepEqual(await nodes.values('lock:rl:d'), [null, null, null]);
      } finally {
        await nodes.thirdUp();
      }
    });

    test('an instance dying while the lock is held stops neither extend nor release', async () => {
      const lock = await redlock.lock('lock:rl:e', 5000);
      assert.deepEqual(await nodes.values('lock:rl:e'), [lock.value, lock.value, lock.value]);
      await nodes.thirdDown();
      try {
        const extended = await lock.extend(20000);
        const pttls = await nodes.pttls('lock:rl:e');
        assertWithin(pttls[0], 19000, 20000, 'PTTL');
        assertWithin(pttls[1], 19000, 20000, 'PTTL');
        await extended.unlock();
        const values = await nodes.values('lock:rl:e');
        // The instance behind the dead link still holds its copy until it expires.
        assert.deepEqual(values, [null, null, lock.value]);
      } finally {
        await nodes.thirdUp();
      }
    });

    test('refuses the lock when only one instance can grant it', async () => {
      await nodes.direct[1].set('lock:rl:f', 'someone-else', 'PX', 10000);
      await nodes.thirdDown();
      try {
        await assert.rejects(redlock.lock('lock:rl:f', 5000), { name: 'LockError' });
        // The one vote it got was rolled back.
        assert.deepEqual(await nodes.values('lock:rl:f'), [null, 'someone-else', null]);
      } finally {
        await nodes.thirdUp();
      }
    });
  });
}
