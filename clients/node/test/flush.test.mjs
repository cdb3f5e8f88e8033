// flush() between tests: whatever one test changed, the next one finds the server as it
// started, and the suite's clients stay connected.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { startWarden } from 'warden-testing';

let warden;
let redis;
before(async () => {
  warden = await startWarden();
  redis = new Redis(warden.url);
});
after(async () => {
  redis.disconnect();
  await warden.stop();
});

test('keys in every database go', async () => {
  await redis.set('a', '1');
  await redis.select(5);
  await redis.set('b', '2');
  await warden.flush();
  assert.equal(await redis.dbsize(), 0);
  await redis.select(0);
  assert.equal(await redis.dbsize(), 0);
});

test('the clock is real again, and what was timed after an advance is gone', async () => {
  await warden.freeze(1_000_000);
  await warden.advance(1_000_000_000);
  await redis.set('lease', 'me', 'PX', 60_000);
  await warden.flush();
  const [mode, nowMs] = await warden.command('DEBUG', 'CLOCK');
  assert.equal(mode, 'real');
  assert.ok(Math.abs(nowMs - Date.now()) < 60_000, `${nowMs} is not near ${Date.now()}`);
  assert.equal(await redis.exists('lease'), 0);
});

test('an offset from advancing the real clock is gone', async () => {
  await warden.advance(3_600_000);
  await warden.flush();
  assert.ok((await warden.now()) < Date.now() + 60_000);
});

test('fault rules, the command log and snapshots go', async () => {
  await warden.commandLog.start();
  await redis.set('k', 'v');
  await warden.faults.error('ERR no', { command: 'get' });
  await warden.command('DEBUG', 'REPLY-DELAY', '60000');
  await warden.snapshot.save('one');
  await warden.snapshot.save('two');
  await warden.flush();
  assert.deepEqual(await warden.faults.list(), []);
  assert.equal(await redis.get('k'), null);
  const { state, entries } = await warden.commandLog.status();
  assert.deepEqual({ state, entries }, { state: 'off', entries: 0 });
  assert.deepEqual(await warden.snapshot.list(), []);
});

test('scripts and functions go', async () => {
  const sha = await redis.script('LOAD', 'return 1');
  await redis.call('FUNCTION', 'LOAD',
    "#!lua name=lib\nredis.register_function('f', function() return 1 end)");
  await warden.flush();
  assert.deepEqual(await redis.script('EXISTS', sha), [0]);
  assert.deepEqual(await redis.call('FUNCTION', 'LIST'), []);
});

test('a CLIENT PAUSE ends, and the command it held runs before the data goes', async () => {
  await redis.call('CLIENT', 'PAUSE', '3600000', 'WRITE');
  const held = new Redis(warden.url, { connectionName: 'held' });
  try {
    const set = held.set('late', '1');
    // Held: CLIENT LIST, which a WRITE pause lets through, shows the client blocked.
    while (!/name=held .*flags=b/.test(await redis.client('LIST'))) { /* poll */ }
    await warden.flush();
    assert.equal(await set, 'OK');
    assert.equal(await held.exists('late'), 0);
  } finally {
    held.disconnect();
  }
});

test('a CLIENT PAUSE ALL, which holds even CLIENT UNPAUSE, ends', async () => {
  await redis.call('CLIENT', 'PAUSE', '3600000', 'ALL');
  await warden.flush();
  assert.equal(await redis.ping(), 'PONG');
});

test('a blocked command left waiting times out', async () => {
  const waiter = new Redis(warden.url);
  try {
    const popped = waiter.blpop('jobs', 3600);
    await warden.waitBlocked(1);
    await warden.flush();
    assert.equal(await popped, null);
  } finally {
    waiter.disconnect();
  }
});

test('configuration changes are undone, aliases included', async () => {
  await redis.config('SET', 'maxmemory', '1mb', 'maxmemory-policy', 'allkeys-lru');
  await redis.config('SET', 'hash-max-ziplist-entries', '7');
  await warden.flush();
  assert.deepEqual(await redis.config('GET', 'maxmemory'), ['maxmemory', '0']);
  assert.deepEqual(await redis.config('GET', 'maxmemory-policy'),
    ['maxmemory-policy', 'noeviction']);
  assert.deepEqual(await redis.config('GET', 'hash-max-listpack-entries'),
    ['hash-max-listpack-entries', '512']);
});

test('ACL users are as at start', async () => {
  const before = await redis.acl('LIST');
  await redis.acl('SETUSER', 'bob', 'on', '>secret', '~lock:*', '+set', '(~x* +get)');
  await redis.acl('SETUSER', 'default', '-flushall');
  await warden.flush();
  assert.deepEqual(await redis.acl('LIST'), before);
});

test('statistics start again: commandstats, unknown commands, the slow log', async () => {
  await assert.rejects(redis.call('NOSUCH'));
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  await redis.set('k', 'v');
  await warden.flush();
  assert.deepEqual(await warden.unsupported(), {});
  assert.equal(await redis.slowlog('LEN'), 0);
  assert.doesNotMatch(await redis.info('commandstats'), /cmdstat_set:/);
});

test('background expiry is on again', async () => {
  await warden.command('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
  await warden.flush();
  await warden.freeze();
  await redis.set('k', 'v', 'PX', 10);
  await warden.advance(10);
  assert.equal(await redis.dbsize(), 0);  // ADVANCE expired it, as active expiry does
});
