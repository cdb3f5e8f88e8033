// redis-semaphore's Mutex with ioredis: acquire (SET NX PX), refresh (a compare-and-pexpire
// script by EVALSHA), release (compare-and-delete), and a contender that waits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { LostLockError, Mutex, TimeoutError } from 'redis-semaphore';
import { HOST, TARGETS, assertWithin, eventuallyDeepEqual, sleep } from '../helpers.mjs';

for (const target of TARGETS) {
  describe(`redis-semaphore 5.8.0 Mutex [${target.name}]`, () => {
    let a;
    let b;

    before(async () => {
      a = new Redis({ host: HOST, port: target.ports[0] });
      b = new Redis({ host: HOST, port: target.ports[0] });
      await a.flushall();
      await a.script('FLUSH');
    });

    after(async () => {
      await a.quit();
      await b.quit();
    });

    test('acquire stores the identifier with the lock timeout; release deletes it', async () => {
      const mutex = new Mutex(a, 'job', { lockTimeout: 10000 });
      await mutex.acquire();
      assert.equal(mutex.isAcquired, true);
      assert.equal(await a.get('mutex:job'), mutex.identifier);
      assertWithin(await a.pttl('mutex:job'), 9000, 10000, 'PTTL');

      await mutex.release();
      assert.equal(mutex.isAcquired, false);
      assert.equal(await a.exists('mutex:job'), 0);
    });

    test('refresh keeps the lock past its timeout', async () => {
      const mutex = new Mutex(a, 'refresh', { lockTimeout: 600, refreshInterval: 150 });
      await mutex.acquire();
      // Time itself is what is tested: the lease (600 ms) must outlive its timeout only through
      // refreshes, on a real server clock (Redis has no clock to move).
      await sleep(1200);
      assert.equal(mutex.isAcquired, true);
      assert.equal(await a.get('mutex:refresh'), mutex.identifier);
      assertWithin(await a.pttl('mutex:refresh'), 0, 600, 'PTTL');
      await mutex.release();
      assert.equal(await a.exists('mutex:refresh'), 0);
    });

    test('a contender waits until the holder releases, then holds the lock', async () => {
      const holder = new Mutex(a, 'queue', { lockTimeout: 10000 });
      const waiter = new Mutex(b, 'queue', {
        lockTimeout: 10000,
        acquireTimeout: 5000,
        retryInterval: 20,
      });
      await holder.acquire();

      let acquired = false;
      const waiting = waiter.acquire().then(() => {
        acquired = true;
      });
      // A negative over time: for 300 ms of real time the contender must not get the lock.
      await sleep(300);
      assert.equal(acquired, false, 'the contender acquired a held lock');
      assert.equal(await a.get('mutex:queue'), holder.identifier);

      await holder.release();
      await waiting;
      assert.equal(waiter.isAcquired, true);
      assert.equal(await a.get('mutex:queue'), waiter.identifier);
      await waiter.release();
      assert.equal(await a.exists('mutex:queue'), 0);
    });

    test('tryAcquire and a timed-out acquire are refused while the lock is held', async () => {
      const holder = new Mutex(a, 'busy', { lockTimeout: 10000 });
      await holder.acquire();
      const rival = new Mutex(b, 'busy', {
        lockTimeout: 10000,
        acquireTimeout: 200,
        retryInterval: 20,
      });

      assert.equal(await rival.tryAcquire(), false);
      await assert.rejects(rival.acquire(), TimeoutError);
      assert.equal(rival.isAcquired, false);
      assert.equal(await a.get('mutex:busy'), holder.identifier);
      await holder.release();
    });

    test('a lock deleted behind its holder is reported lost at the next refresh', async () => {
      const lost = [];
      const mutex = new Mutex(a, 'lost', {
        lockTimeout: 5000,
        refreshInterval: 100,
        onLockLost: (e) => lost.push(e),
      });
      await mutex.acquire();
      await b.set('mutex:lost', 'intruder');
      // The mutex notices at its next refresh: wait for that, bounded.
      await eventuallyDeepEqual(() => lost.length >= 1, true, 2000);
      assert.ok(lost[0] instanceof LostLockError);
      assert.equal(mutex.isAcquired, false);
      // The failed refresh left the intruder's value alone.
      assert.equal(await a.get('mutex:lost'), 'intruder');
      assert.equal(await a.ttl('mutex:lost'), -1);
      await mutex.release();
      assert.equal(await a.get('mutex:lost'), 'intruder');
    });
  });
}
