// simple-redis-mutex 3.0.0 (npm; source github.com/AmrSaber/simple-redis-mutex, dist/index.js) on
// node-redis 6.3.1 against redis-server and warden, in RESP3 and RESP2. A lock is
// `SET @simple-redis-mutex:lock-<name> <random> NX PX <timeout>` plus an INCR of a global
// fencing-token counter; release is a compare-and-delete script (SCRIPT LOAD, then EVALSHA, EVAL
// again after NOSCRIPT) that PUBLISHes the released key on `@simple-redis-mutex:locks-releases`.
// lock() waits for that message, polling only every `pollingInterval` for locks that expire.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { HOST, TARGETS, assertWithin, waitFor, within } from '../helpers.mjs';

const PROTOCOLS = [
  { label: 'RESP3 (default)', options: {}, resp: 3 },
  { label: 'RESP2', options: { RESP: 2 }, resp: 2 },
];

const CHANNEL = '@simple-redis-mutex:locks-releases';
const FENCING = '@simple-redis-mutex:fencing-tokens';

// The library keeps one subscriber per process, made from the first client it is given, and asks
// for the same client always. Each describe block stands for one process: it loads its own copy
// of the module.
const require = createRequire(import.meta.url);
function freshLibrary() {
  const path = require.resolve('simple-redis-mutex');
  delete require.cache[path];
  return require(path);
}

for (const target of TARGETS) {
  for (const proto of PROTOCOLS) {
    describe(`simple-redis-mutex 3.0.0 ${proto.label} [${target.name}]`, () => {
      const { lock, tryLock } = freshLibrary();
      const prefix = `srm:${randomUUID()}:`;
      const clientName = `srm-${randomUUID().slice(0, 8)}`;
      let redis; // the one client given to the library
      let admin;
      let watcher; // subscribed to the release channel
      const releases = [];

      before(async () => {
        const options = { socket: { host: HOST, port: target.ports[0] }, ...proto.options };
        redis = createClient({ ...options, name: clientName });
        admin = createClient(options);
        watcher = createClient(options);
        for (const c of [redis, admin, watcher]) await c.connect();
        await watcher.subscribe(CHANNEL, (m) => releases.push(JSON.parse(m)));
        assert.equal((await redis.clientInfo()).resp, proto.resp);
      });

      after(async () => {
        // Closing the library's client also closes the subscriber it made from it.
        await redis.close();
        await admin.close();
        await watcher.close();
      });

      const keyOf = (name) => `@simple-redis-mutex:lock-${name}`;
      const fencing = async () => Number(await admin.get(FENCING));
      const release = (count) =>
        waitFor(() => releases.length > count && releases[count], 'release message');

      test('lock() sets the key with its timeout and a fencing token; release deletes it and publishes', async () => {
        const name = `${prefix}basic`;
        const token = await fencing();
        const unlock = await lock(redis, name, { timeout: 5000 });
        const value = await admin.get(keyOf(name));
        assert.match(value, /^0\.\d+$/);
        assertWithin(await admin.pTTL(keyOf(name)), 4000, 5000, 'PTTL');
        assert.equal(unlock.fencingToken, token + 1);
        assert.equal(await fencing(), token + 1);

        const count = releases.length;
        await unlock();
        assert.deepEqual(await release(count), { key: keyOf(name), value });
        assert.equal(await admin.exists(keyOf(name)), 0);

        // A second call is a no-op: it cannot release the next holder's lock.
        const [got, next] = await tryLock(redis, name, { timeout: 5000 });
        assert.equal(got, true);
        assert.equal(next.fencingToken, token + 2);
        const nextValue = await admin.get(keyOf(name));
        await unlock();
        assert.equal(await admin.get(keyOf(name)), nextValue);
        await next();
        assert.equal(await admin.exists(keyOf(name)), 0);
      });

      test('tryLock is refused while the lock is held, without a fencing token', async () => {
        const name = `${prefix}contended`;
        const [got, unlock] = await tryLock(redis, name, { timeout: 5000 });
        assert.equal(got, true);
        const value = await admin.get(keyOf(name));
        const token = await fencing();

        const [refused, noop] = await tryLock(redis, name, { timeout: 5000 });
        assert.equal(refused, false);
        assert.equal(noop.fencingToken, -1);
        assert.equal(await fencing(), token, 'a refused tryLock took a fencing token');
        await noop();
        assert.equal(await admin.get(keyOf(name)), value);

        await unlock();
        const [again, unlockAgain] = await tryLock(redis, name, { timeout: 5000 });
        assert.equal(again, true);
        assert.equal(unlockAgain.fencingToken, token + 1);
        await unlockAgain();
      });

      test('a second lock() waits and is woken by the release message, not by polling', async () => {
        const name = `${prefix}wake`;
        const [got, unlock] = await tryLock(redis, name, { timeout: 10000 });
        assert.equal(got, true);
        const holderValue = await admin.get(keyOf(name));

        let acquiredAt = 0;
        // Polling every 30 s: only the release message can wake this waiter in time.
        const waiting = lock(redis, name, { timeout: 10000, pollingInterval: 30000, failAfter: 5000 })
          .then((u) => {
            acquiredAt = Date.now();
            return u;
          });
        // The waiter has tried once: the library's connection last ran a refused SET (a holder's
        // SET is followed by INCR).
        await waitFor(async () => {
          const me = (await admin.clientList()).find((c) => c.name === clientName && c.sub === 0);
          return me.cmd === 'set';
        }, 'waiter attempted');
        assert.equal(acquiredAt, 0, 'the waiter took a held lock');
        assert.equal(await admin.get(keyOf(name)), holderValue);

        const token = await fencing();
        const releasedAt = Date.now();
        await unlock();
        const next = await within(waiting, 'waiter woken by the release message', 1000);
        assert.ok(acquiredAt - releasedAt < 1000, `woken ${acquiredAt - releasedAt} ms after release`);
        assert.equal(next.fencingToken, token + 1);
        const value = await admin.get(keyOf(name));
        assert.notEqual(value, holderValue);
        assertWithin(await admin.pTTL(keyOf(name)), 9000, 10000, 'PTTL');
        await next();
        assert.equal(await admin.exists(keyOf(name)), 0);
      });

      test('a lock that is never released expires, and a polling waiter takes it', async () => {
        const name = `${prefix}expiry`;
        const [got, stale] = await tryLock(redis, name, { timeout: 200 });
        assert.equal(got, true);
        const staleValue = await admin.get(keyOf(name));
        assertWithin(await admin.pTTL(keyOf(name)), 0, 200, 'PTTL');

        const count = releases.length;
        const start = Date.now();
        const next = await within(
          lock(redis, name, { timeout: 5000, pollingInterval: 50, failAfter: 3000 }),
          'waiter after expiry', 4000);
        assert.ok(Date.now() - start >= 100, 'the waiter got the lock before it expired');
        const value = await admin.get(keyOf(name));
        assert.notEqual(value, staleValue);

        // The expired holder's release leaves the new holder's lock alone and publishes nothing.
        await stale();
        assert.equal(await admin.get(keyOf(name)), value);
        await next();
        assert.deepEqual(await release(count), { key: keyOf(name), value });
        assert.equal(releases.length, count + 1);
        assert.equal(await admin.exists(keyOf(name)), 0);
      });

      test('refreshTimeout() resets the lease, and does nothing once the lock is lost', async () => {
        const name = `${prefix}refresh`;
        const unlock = await lock(redis, name, { timeout: 5000 });
        await admin.pExpire(keyOf(name), 1000);
        await unlock.refreshTimeout();
        assertWithin(await admin.pTTL(keyOf(name)), 4000, 5000, 'PTTL');

        await admin.set(keyOf(name), 'someone-else', { PX: 1000 });
        await unlock.refreshTimeout();
        assertWithin(await admin.pTTL(keyOf(name)), 0, 1000, 'PTTL');
        await unlock();
        assert.equal(await admin.get(keyOf(name)), 'someone-else');
        await admin.del(keyOf(name));
      });

      test('failAfter: a waiter gives up with the library error and calls onFail', async () => {
        const name = `${prefix}fail`;
        const [got, unlock] = await tryLock(redis, name, { timeout: 5000 });
        assert.equal(got, true);
        let failed = 0;
        await assert.rejects(
          lock(redis, name, { failAfter: 200, onFail: () => failed++ }),
          { message: `Lock "${name}" could not be acquired after 200 millis` });
        assert.equal(failed, 1);
        await unlock();
        assert.equal(await admin.exists(keyOf(name)), 0);
      });

      test('release after SCRIPT FLUSH gets NOSCRIPT, loads the script again and releases', async () => {
        const name = `${prefix}noscript`;
        const first = await lock(redis, name, { timeout: 5000 });
        await first(); // the library has the script's SHA now
        const unlock = await lock(redis, name, { timeout: 5000 });
        assert.equal(await admin.scriptFlush(), 'OK');
        const count = releases.length;
        await unlock();
        assert.equal(await admin.exists(keyOf(name)), 0);
        assert.equal((await release(count)).key, keyOf(name));
      });
    });
  }
}
