// node-redisson 1.0.4 (npm; source github.com/smilecc/node-redisson, dist/executor/CommandExecutor.js
// and dist/locks/RedissonLock.js) against redis-server and warden, over the ioredis 6.0.0 that it
// requires (it does not declare it; this package's ioredis is the one it loads), in RESP3 and RESP2.
// Its lock is Java Redisson's: a hash named after the lock whose field `<executor id>:<client
// id>` counts re-entries, taken by EVALSHA of a script that returns nil or the remaining PTTL; a
// locker that gets a PTTL subscribes to `redisson_lock__channel:{name}` and retries when the
// unlock script publishes 0 there (or when that PTTL has passed). Without a lease the watchdog
// renews the hash every lockWatchdogTimeout / 3.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { Redisson } from 'node-redisson';
import { HOST, TARGETS, assertWithin, sleep, waitFor, within } from '../helpers.mjs';

const PROTOCOLS = [
  { label: 'RESP3 (default)', options: {}, resp: 3 },
  { label: 'RESP2', options: { protocol: 2 }, resp: 2 },
];

const NOT_HOLDER = 'attempt to unlock lock, not locked by current client';

// The wake-up test's holder takes the lock for this long: a waiter woken later than a second
// after the unlock was woken by its timeout, not by the message.
const WAKE_LEASE_MS = 2000;

const channelOf = (name) => `redisson_lock__channel:{${name}}`;

for (const target of TARGETS) {
  for (const proto of PROTOCOLS) {
    describe(`node-redisson 1.0.4 ${proto.label} [${target.name}]`, () => {
      const prefix = `nrs:${randomUUID()}:`;
      const options = { host: HOST, port: target.ports[0], ...proto.options };
      let one; // two Redissons: two processes' worth of connections
      let two;
      let admin;
      let watcher; // pattern-subscribed to this run's lock channels
      const messages = [];
      // node-redisson 1.0.4 never clears the timer of a waiter woken by the message
      // (CommandExecutor.waitSubscribeOnce): it still fires UNSUBSCRIBE when the holder's lease
      // would have run out, so `two` stays connected until then.
      let strayTimerDue = 0;

      before(async () => {
        one = new Redisson({ redis: { options } });
        two = new Redisson({ redis: { options } });
        admin = new Redis(options);
        watcher = new Redis(options);
        await watcher.psubscribe(`redisson_lock__channel:{${prefix}*}`);
        watcher.on('pmessage', (_, channel, message) => messages.push([channel, message]));
        const info = await admin.call('CLIENT', 'INFO');
        assert.match(info, new RegExp(` resp=${proto.resp}\\b`));
      });

      after(async () => {
        await sleep(Math.max(0, strayTimerDue - Date.now()));
        await one.quit();
        await two.quit();
        await admin.quit();
        await watcher.quit();
      });

      // The next message on a lock channel, after `count` earlier ones.
      const message = (count) =>
        waitFor(() => messages.length > count && messages[count], 'unlock message');

      test('a second locker blocked in lock() is woken by the unlock message and takes the lock', async () => {
        const name = `${prefix}wake`;
        const holder = one.getLock(name);
        const waiter = two.getLock(name);
        await holder.lock(WAKE_LEASE_MS);
        const waitStart = Date.now();
        strayTimerDue = waitStart + WAKE_LEASE_MS + 200;

        let acquiredAt = 0;
        const waiting = waiter.lock().then(() => {
          acquiredAt = Date.now();
        });
        // The waiter is waiting once it has subscribed to the lock's channel (it subscribes
        // after its attempt was refused).
        await waitFor(
          async () => (await admin.pubsub('NUMSUB', channelOf(name)))[1] === 1,
          'waiter subscribed');
        assert.equal(acquiredAt, 0, 'the waiter took a held lock');
        assert.deepEqual(await admin.hgetall(name), { [`${holder.id}:${holder.clientId}`]: '1' });

        const count = messages.length;
        const unlockedAt = Date.now();
        await holder.unlock();
        assert.deepEqual(await message(count), [channelOf(name), '0']);
        await within(waiting, 'waiter woken by the unlock message', 1000);
        assert.ok(acquiredAt - unlockedAt < 1000, `woken ${acquiredAt - unlockedAt} ms after unlock`);
        assert.ok(acquiredAt - waitStart < WAKE_LEASE_MS - 1000, 'woken by its timeout, not the message');

        // The waiter holds it under the watchdog's lease (30 s by default), and unsubscribed.
        assert.deepEqual(await admin.hgetall(name), { [`${waiter.id}:${waiter.clientId}`]: '1' });
        assertWithin(await admin.pttl(name), 29000, 30000, 'PTTL');
        assert.deepEqual(await admin.pubsub('NUMSUB', channelOf(name)), [channelOf(name), 0]);
        await waiter.unlock();
        assert.equal(await admin.exists(name), 0);
      });

      test('lock() stores a hash field under the watchdog lease; unlock() deletes it and publishes 0', async () => {
        const name = `${prefix}basic`;
        const lock = one.getLock(name);
        assert.equal(await lock.isLocked(), false);
        await lock.lock();
        assert.equal(await lock.isLocked(), true);
        assert.equal(await admin.type(name), 'hash');
        assert.deepEqual(await admin.hgetall(name), { [`${lock.id}:${lock.clientId}`]: '1' });
        assertWithin(await admin.pttl(name), 29000, 30000, 'PTTL');

        const count = messages.length;
        await lock.unlock();
        assert.deepEqual(await message(count), [channelOf(name), '0']);
        assert.equal(await admin.exists(name), 0);
        assert.equal(await lock.isLocked(), false);
        // The unlock script's latch key (SET PX 10) is deleted by unlock() itself.
        assert.deepEqual(await admin.keys(`redisson_unlock_latch:{${name}}:*`), []);
      });

      test('the same lock re-enters: the field counts, each unlock() gives one back', async () => {
        const name = `${prefix}reentrant`;
        const lock = one.getLock(name);
        const field = `${lock.id}:${lock.clientId}`;
        await lock.lock(10000);
        await lock.lock(10000);
        assert.deepEqual(await admin.hgetall(name), { [field]: '2' });
        // Another locker (another client id, same connections) is refused at once.
        assert.equal(await one.getLock(name).tryLock(0), false);

        const count = messages.length;
        await lock.unlock();
        assert.deepEqual(await admin.hgetall(name), { [field]: '1' });
        assertWithin(await admin.pttl(name), 9000, 10000, 'PTTL');
        // The first unlock published nothing: the next message is this marker.
        await admin.publish(channelOf(name), 'marker');
        assert.deepEqual(await message(count), [channelOf(name), 'marker']);

        await lock.unlock();
        assert.deepEqual(await message(count + 1), [channelOf(name), '0']);
        assert.equal(await admin.exists(name), 0);
        await assert.rejects(lock.unlock(), (e) => e.message.startsWith(NOT_HOLDER));
      });

      test('unlock() by a locker that does not hold the lock is refused and changes nothing', async () => {
        const name = `${prefix}notmine`;
        const holder = one.getLock(name);
        const other = two.getLock(name);
        await holder.lock(10000);
        await assert.rejects(other.unlock(), (e) => {
          assert.ok(e.message.startsWith(`${NOT_HOLDER}\n`), e.message);
          assert.equal(e.lockName, name);
          return true;
        });
        assert.deepEqual(await admin.hgetall(name), { [`${holder.id}:${holder.clientId}`]: '1' });
        await holder.unlock();
        assert.equal(await admin.exists(name), 0);
      });

      test('forceUnlock() deletes a lock held by another client and publishes 0', async () => {
        const name = `${prefix}force`;
        const holder = one.getLock(name);
        await holder.lock(10000);
        await holder.lock(10000);
        const count = messages.length;
        assert.equal(await two.getLock(name).forceUnlock(), true);
        assert.deepEqual(await message(count), [channelOf(name), '0']);
        assert.equal(await admin.exists(name), 0);
        assert.equal(await two.getLock(name).forceUnlock(), false);
        await assert.rejects(holder.unlock(), (e) => e.message.startsWith(NOT_HOLDER));
      });

      test('a lease given to lock() runs out, and a waiting locker gets the lock', async () => {
        const name = `${prefix}lease`;
        const holder = one.getLock(name);
        const waiter = two.getLock(name);
        await holder.lock(300);
        assertWithin(await admin.pttl(name), 0, 300, 'PTTL');
        // No unlock, so no message: the waiter retries when the PTTL it was told has passed.
        await within(waiter.lock(), 'waiter after the lease ran out', 3000);
        assert.deepEqual(await admin.hgetall(name), { [`${waiter.id}:${waiter.clientId}`]: '1' });
        // The old holder can no longer unlock it.
        await assert.rejects(holder.unlock(), (e) => e.message.startsWith(NOT_HOLDER));
        assert.equal(await admin.exists(name), 1);
        await waiter.unlock();
        assert.equal(await admin.exists(name), 0);
      });

      test('the watchdog keeps renewing a lock taken without a lease', async () => {
        const name = `${prefix}watchdog`;
        // A short watchdog lease (900 ms, renewed every 300 ms) so that renewals come quickly.
        const quick = new Redisson({ redis: { options }, lockWatchdogTimeout: 900n });
        try {
          const lock = quick.getLock(name);
          const start = Date.now();
          await lock.lock();
          assertWithin(await admin.pttl(name), 0, 900, 'PTTL');
          // Poll until six renewals (the PTTL going back up) have carried the lock through two
          // of its leases; every reading must find it. The deadline bounds the wait, not a time
          // the test sleeps through.
          let renewals = 0;
          let last = await admin.pttl(name);
          while (renewals < 6) {
            assert.ok(Date.now() - start < 5000, `${renewals} renewals within 5 s`);
            await sleep(25);
            const pttl = await admin.pttl(name);
            assert.ok(pttl > 0, `lock gone after ${Date.now() - start} ms (PTTL ${pttl})`);
            if (pttl > last) renewals++;
            last = pttl;
          }
          assert.deepEqual(await admin.hgetall(name), { [`${lock.id}:${lock.clientId}`]: '1' });
          await lock.unlock();
          assert.equal(await admin.exists(name), 0);
        } finally {
          await quick.quit();
        }
      });
    });
  }
}
