// redis-semaphore's Mutex with ioredis: acquire (SET NX PX), refresh (a compare-and-pexpire
// script by EVALSHA), release (compare-and-delete), and a contender that waits. Then its
// Semaphore and MultiSemaphore, whose scripts keep the holders in a sorted set scored by
// acquisition time (ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE, ZREM; refresh re-scores by ZSCORE
// and ZADD): the limit under concurrent contenders, refresh, release, eviction, loss.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { LostLockError, MultiSemaphore, Mutex, Semaphore, TimeoutError } from 'redis-semaphore';
import { HOST, TARGETS, assertWithin, eventuallyDeepEqual, sleep, waitFor } from '../helpers.mjs';

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

// Runs `total` contenders, each with its own connection and the lock `make(connection)` returns,
// all acquiring at once. A holder keeps its permit until the most holders the limit allows have
// been seen at once (or every contender has had a turn), reading ZCARD of `key` meanwhile.
async function contend(target, total, limit, key, make) {
  const conns = Array.from({ length: total }, () => new Redis({ host: HOST, port: target.ports[0] }));
  let holding = 0;
  let acquired = 0;
  let mostAtOnce = 0;
  let mostPermits = 0;
  try {
    await Promise.all(conns.map(async (conn) => {
      const lock = make(conn);
      await lock.acquire();
      holding++;
      acquired++;
      mostAtOnce = Math.max(mostAtOnce, holding);
      await waitFor(async () => {
        mostPermits = Math.max(mostPermits, await conn.zcard(key));
        return mostAtOnce === limit || acquired === total;
      }, 'holders at the limit', 5000);
      holding--;
      await lock.release();
    }));
  } finally {
    await Promise.all(conns.map((c) => c.quit()));
  }
  return { acquired, mostAtOnce, mostPermits };
}

for (const target of TARGETS) {
  describe(`redis-semaphore 5.8.0 Semaphore [${target.name}]`, () => {
    let a;
    let b;

    before(async () => {
      a = new Redis({ host: HOST, port: target.ports[0] });
      b = new Redis({ host: HOST, port: target.ports[0] });
      await a.flushall();
    });

    after(async () => {
      await a.quit();
      await b.quit();
    });

    test('three permits go to three holders; a fourth is refused until one is released', async () => {
      const holders = [0, 1, 2].map(() => new Semaphore(a, 'pool', 3, { lockTimeout: 10000 }));
      const before = Date.now();
      for (const h of holders) await h.acquire();
      const after = Date.now();
      assert.equal(await a.zcard('semaphore:pool'), 3);
      assertWithin(await a.pttl('semaphore:pool'), 9000, 10000, 'PTTL');
      // Each holder is a member scored by its acquisition time in ms.
      const score = Number(await a.zscore('semaphore:pool', holders[0].identifier));
      assertWithin(score, before - 1, after, 'ZSCORE');

      const rival = new Semaphore(b, 'pool', 3, { lockTimeout: 10000, acquireAttemptsLimit: 1 });
      assert.equal(await rival.tryAcquire(), false);

      await holders[1].release();
      assert.equal(await a.zscore('semaphore:pool', holders[1].identifier), null);
      assert.equal(await rival.tryAcquire(), true);
      assert.deepEqual(
        (await a.zrange('semaphore:pool', 0, -1)).sort(),
        [holders[0].identifier, holders[2].identifier, rival.identifier].sort());
      for (const h of [holders[0], holders[2], rival]) await h.release();
      assert.equal(await a.exists('semaphore:pool'), 0);
    });

    test('a holder whose timestamp is older than the lock timeout is evicted by the next acquire', async () => {
      // An abandoned holder from long ago: the acquire script removes it by score.
      await a.zadd('semaphore:stale', Date.now() - 60000, 'abandoned');
      const fresh = new Semaphore(b, 'stale', 1, { lockTimeout: 10000, acquireAttemptsLimit: 1 });
      assert.equal(await fresh.tryAcquire(), true);
      assert.deepEqual(await a.zrange('semaphore:stale', 0, -1), [fresh.identifier]);
      await fresh.release();
    });

    test('the limit holds across several concurrent holders', async () => {
      // Seven contenders on their own connections, three permits: no more than three ever hold
      // one at once (checked in the process and in the sorted set), and every contender gets one.
      const result = await contend(target, 7, 3, 'semaphore:crowd', (conn) =>
        new Semaphore(conn, 'crowd', 3, { lockTimeout: 10000, acquireTimeout: 5000, retryInterval: 10 }));
      assert.deepEqual(result, { acquired: 7, mostAtOnce: 3, mostPermits: 3 });
      assert.equal(await a.exists('semaphore:crowd'), 0);
    });

    test('a MultiSemaphore never hands out more permits than the limit to concurrent holders', async () => {
      // Limit 5, two permits each: two holders at most (four permits), never three.
      const result = await contend(target, 5, 2, 'semaphore:crowd-multi', (conn) =>
        new MultiSemaphore(conn, 'crowd-multi', 5, 2, {
          lockTimeout: 10000, acquireTimeout: 5000, retryInterval: 10,
        }));
      assert.deepEqual(result, { acquired: 5, mostAtOnce: 2, mostPermits: 4 });
      assert.equal(await a.exists('semaphore:crowd-multi'), 0);
    });

    test('refresh keeps Semaphore and MultiSemaphore permits past their lock timeout', async () => {
      const options = { lockTimeout: 600, refreshInterval: 150 };
      const single = new Semaphore(a, 'refresh', 1, options);
      const multi = new MultiSemaphore(a, 'refresh-multi', 3, 2, options);
      await single.acquire();
      await multi.acquire();
      const acquiredAt = Number(await a.zscore('semaphore:refresh', single.identifier));
      // Wait for the condition rather than a time: every member re-scored by a refresh made after
      // the first lease would have run out (the scores are the refresh times).
      const scores = async () => [
        Number(await a.zscore('semaphore:refresh', single.identifier)),
        Number(await a.zscore('semaphore:refresh-multi', `${multi.identifier}_0`)),
        Number(await a.zscore('semaphore:refresh-multi', `${multi.identifier}_1`)),
      ];
      await waitFor(async () => (await scores()).every((score) => score > acquiredAt + 600),
        'refreshed past the first lease', 5000);
      assert.equal(single.isAcquired, true);
      assert.equal(multi.isAcquired, true);
      // The refresh script re-scored each member with the time of the refresh.
      assertWithin(Number(await a.zscore('semaphore:refresh', single.identifier)),
        acquiredAt + 600, Date.now(), 'ZSCORE');
      for (const i of [0, 1]) {
        assertWithin(Number(await a.zscore('semaphore:refresh-multi', `${multi.identifier}_${i}`)),
          acquiredAt + 600, Date.now(), 'ZSCORE');
      }
      assertWithin(await a.pttl('semaphore:refresh'), 0, 600, 'PTTL');
      assertWithin(await a.pttl('semaphore:refresh-multi'), 0, 600, 'PTTL');
      // Still held: a rival is refused the one permit.
      const rival = new Semaphore(b, 'refresh', 1, { lockTimeout: 600, acquireAttemptsLimit: 1 });
      assert.equal(await rival.tryAcquire(), false);
      await single.release();
      await multi.release();
      assert.equal(await a.exists('semaphore:refresh'), 0);
      assert.equal(await a.exists('semaphore:refresh-multi'), 0);
    });

    test('a permit removed behind its holder is reported lost at the next refresh', async () => {
      const lost = [];
      const options = { lockTimeout: 5000, refreshInterval: 100, onLockLost: (e) => lost.push(e) };
      const single = new Semaphore(a, 'lost', 2, options);
      const multi = new MultiSemaphore(a, 'lost-multi', 4, 2, options);
      const bystander = new Semaphore(a, 'lost', 2, { lockTimeout: 5000 });
      await single.acquire();
      await multi.acquire();
      await bystander.acquire();
      assert.equal(await b.zrem('semaphore:lost', single.identifier), 1);
      assert.equal(await b.zrem('semaphore:lost-multi', `${multi.identifier}_0`), 1);

      await eventuallyDeepEqual(() => lost.length, 2, 2000);
      assert.ok(lost.every((e) => e instanceof LostLockError));
      assert.deepEqual(lost.map((e) => e.message).sort(), [
        'Lost multi-semaphore for key semaphore:lost-multi',
        'Lost semaphore for key semaphore:lost',
      ]);
      assert.equal(single.isAcquired, false);
      assert.equal(multi.isAcquired, false);
      // The failed refreshes added nothing back; the other holders keep theirs.
      assert.deepEqual(await a.zrange('semaphore:lost', 0, -1), [bystander.identifier]);
      assert.deepEqual(await a.zrange('semaphore:lost-multi', 0, -1), [`${multi.identifier}_1`]);
      await bystander.release();
      assert.equal(await a.exists('semaphore:lost'), 0);
      // release() after the loss sends nothing: the permit left behind waits for its timeout.
      await multi.release();
      assert.deepEqual(await a.zrange('semaphore:lost-multi', 0, -1), [`${multi.identifier}_1`]);
    });

    test('a MultiSemaphore takes several permits at once, or none', async () => {
      const big = new MultiSemaphore(a, 'multi', 5, 3, { lockTimeout: 10000 });
      await big.acquire();
      assert.equal(await a.zcard('semaphore:multi'), 3);
      assert.deepEqual((await a.zrange('semaphore:multi', 0, -1)).sort(),
        [0, 1, 2].map((i) => `${big.identifier}_${i}`).sort());

      const tooBig = new MultiSemaphore(b, 'multi', 5, 3, { lockTimeout: 10000, acquireAttemptsLimit: 1 });
      assert.equal(await tooBig.tryAcquire(), false);
      assert.equal(await a.zcard('semaphore:multi'), 3);
      const fits = new MultiSemaphore(b, 'multi', 5, 2, { lockTimeout: 10000, acquireAttemptsLimit: 1 });
      assert.equal(await fits.tryAcquire(), true);
      assert.equal(await a.zcard('semaphore:multi'), 5);

      await big.release();
      await fits.release();
      assert.equal(await a.exists('semaphore:multi'), 0);
    });
  });
}
