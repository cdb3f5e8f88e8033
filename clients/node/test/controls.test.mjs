// Each control of a started warden, through ioredis as a suite would use it: the clock, blocked
// clients, snapshots, fault rules, the command log, unknown commands, the seed.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import Redis from 'ioredis';
import { ReplyError, startWarden } from 'warden-testing';

describe('startWarden', () => {
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
  beforeEach(() => warden.flush());

  test('listens on the port in its url, on loopback', async () => {
    assert.equal(warden.url, `redis://127.0.0.1:${warden.port}`);
    assert.ok(warden.port > 0);
    assert.equal(await redis.ping(), 'PONG');
  });

  test('a frozen clock moves only when advanced', async () => {
    await warden.freeze(1_700_000_000_000);
    assert.equal(await warden.now(), 1_700_000_000_000);
    assert.equal(await redis.set('lease', 'me', 'PX', 30000, 'NX'), 'OK');
    await warden.advance(29_999);
    assert.equal(await redis.pttl('lease'), 1);
    await warden.advance(1);
    assert.equal(await redis.get('lease'), null);
    assert.deepEqual(await redis.time(), ['1700000030', '0']);
    await warden.realClock();
    assert.ok((await warden.now()) > 1_700_000_030_000);
  });

  test('waitBlocked, then advance times a BRPOP out', async () => {
    await warden.freeze();
    const waiter = new Redis(warden.url);
    try {
      const popped = waiter.brpop('jobs', 5);
      assert.equal(await warden.waitBlocked(1), 1);
      await warden.advance(5000);
      assert.equal(await popped, null);
    } finally {
      waiter.disconnect();
    }
  });

  test('waitBlocked rejects with warden\'s text when nobody blocks', async () => {
    await assert.rejects(warden.waitBlocked(1, 1), {
      name: 'ReplyError',
      message: 'ERR timed out waiting for 1 blocked clients (0 blocked)',
      command: ['DEBUG', 'WAIT-BLOCKED', '1', '1'],
    });
  });

  test('snapshot save and load, with a lease running out in between', async () => {
    await warden.freeze();
    await redis.set('lock', 'me', 'PX', 10000);
    await redis.hset('user:1', 'name', 'Ann');
    await warden.snapshot.save('clean');
    const [info, ...others] = await warden.snapshot.list();
    assert.deepEqual(others, []);
    assert.deepEqual({ ...info, bytes: 'some' },
      { name: 'clean', keys: 2, bytes: 'some', timeMs: await warden.now() });
    assert.ok(info.bytes > 0);
    await redis.flushall();
    await warden.snapshot.load('clean');
    assert.deepEqual((await redis.keys('*')).sort(), ['lock', 'user:1']);
    assert.equal(await redis.pttl('lock'), 10000);
    await warden.advance(10001);
    await warden.snapshot.load('clean');
    assert.deepEqual(await redis.keys('*'), ['user:1']);
    await warden.snapshot.drop('clean');
    await assert.rejects(warden.snapshot.load('clean'), /no such snapshot/);
  });

  test('an error fault fails one command, then is spent', async () => {
    const rule = await warden.faults.error('LOADING warden is loading the dataset in memory',
      { command: 'get', key: 'lock:*', times: 1 });
    assert.equal(rule.id, 1);
    assert.deepEqual((await warden.faults.list()).map((r) => [r.id, r.command, r.key, r.action]),
      [[1, 'get', 'lock:*', 'ERROR LOADING warden is loading the dataset in memory']]);
    await assert.rejects(redis.get('lock:a'), /^ReplyError: LOADING warden is loading/);
    assert.equal(await redis.get('lock:a'), null);
    assert.deepEqual(await warden.faults.list(), []);
  });

  test('dropAfter: the lock is taken, its client never hears', async () => {
    await warden.faults.dropAfter({ command: 'set', times: 1 });
    // A bare socket: ioredis holds the process for two seconds after such a close.
    const socket = net.connect(warden.port, warden.host);
    let heard = '';
    socket.on('data', (chunk) => { heard += chunk; });
    const set = ['SET', 'lock:job', 'a', 'PX', '30000', 'NX'];
    socket.write(`*${set.length}\r\n${set.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`);
    await once(socket, 'close');
    assert.equal(heard, '');
    assert.equal(await redis.get('lock:job'), 'a');
  });

  test('a delay rule holds replies; removing it lets them through', async () => {
    const rule = await warden.faults.delay(60_000, { command: 'ping', jitter: 10 });
    assert.match((await warden.faults.list())[0].action, /^DELAY 60000 JITTER 10$/);
    assert.equal(await rule.remove(), true);
    assert.equal(await rule.remove(), false);
    assert.equal(await redis.ping(), 'PONG');
  });

  test('the command log shows what the code sent, not the controls', async () => {
    await warden.commandLog.start();
    await redis.set('lock', 'me', 'PX', 30000, 'NX');
    await warden.advance(10);
    await redis.eval("return redis.call('get', KEYS[1])", 1, 'lock');
    assert.deepEqual(await warden.commandLog.commands({ includeScripts: false }), [
      ['set', 'lock', 'me', 'PX', '30000', 'NX'],
      ['eval', "return redis.call('get', KEYS[1])", '1', 'lock'],
    ]);
    const entries = await warden.commandLog.entries();
    assert.deepEqual(entries.map((e) => e.origin), ['client', 'client', 'script']);
    assert.deepEqual(entries[2].args, ['get', 'lock']);
    assert.equal(entries[0].db, 0);
    assert.equal((await warden.commandLog.status()).state, 'on');
    await warden.commandLog.stop();
    await redis.get('lock');
    assert.equal((await warden.commandLog.entries()).length, 3);
  });

  test('the controls reconnect after a test drops every client', async () => {
    await redis.call('DEBUG', 'DROP-CLIENTS');
    await warden.commandLog.start();
    await redis.call('DEBUG', 'DROP-CLIENTS');  // ioredis reconnects too
    await warden.advance(1);
    await redis.set('k', 'v');
    assert.deepEqual(await warden.commandLog.commands(),
      [['debug', 'DROP-CLIENTS'], ['set', 'k', 'v']]);
  });

  test('unknown commands are counted', async () => {
    await assert.rejects(redis.call('NOSUCHCOMMAND', 'x'), /unknown command/);
    await assert.rejects(redis.call('NOSUCHCOMMAND', 'y'), /unknown command/);
    await assert.rejects(redis.call('CONFIG', 'NOSUCH'), /unknown subcommand/);
    assert.deepEqual(await warden.unsupported(), { 'config|nosuch': 1, nosuchcommand: 2 });
  });

  test('command() sends anything and rejects with warden\'s error text', async () => {
    assert.equal(await warden.command('ECHO', 'hi'), 'hi');
    const error = await warden.command('GET').catch((e) => e);
    assert.ok(error instanceof ReplyError);
    assert.equal(error.message, "ERR wrong number of arguments for 'get' command");
    assert.deepEqual(error.command, ['GET']);
  });

  test('the seed in use is the one CONFIG GET shows', async () => {
    assert.match(warden.seed, /^\d+$/);
    assert.deepEqual(await redis.config('GET', 'seed'), ['seed', warden.seed]);
  });

  test('the log is warden\'s output', () => {
    assert.match(warden.log(), /Seed \d+/);
  });
});

describe('startWarden({ seed })', () => {
  // Two servers on the same seed draw the same random choices: the run can be replayed.
  const randomKeys = async (seed) => {
    const warden = await startWarden({ seed });
    try {
      await warden.command('MSET', ...Array.from({ length: 40 }, (_, i) => [`k${i}`, i]).flat());
      const picks = [];
      for (let i = 0; i < 10; i++) picks.push(await warden.command('RANDOMKEY'));
      return { seed: warden.seed, picks };
    } finally {
      await warden.stop();
    }
  };

  test('reports the seed it was given and repeats its random choices', async () => {
    const first = await randomKeys('12345678901234567890');
    const again = await randomKeys('12345678901234567890');
    assert.equal(first.seed, '12345678901234567890');
    assert.deepEqual(again, first);
  });

  test('config and args reach warden\'s command line', async () => {
    const warden = await startWarden({ config: { maxmemory: '10mb' }, args: ['--databases', '4'] });
    try {
      assert.deepEqual(await warden.command('CONFIG', 'GET', 'maxmemory'),
        ['maxmemory', '10485760']);
      assert.deepEqual(await warden.command('CONFIG', 'GET', 'databases'), ['databases', '4']);
    } finally {
      await warden.stop();
    }
  });
});
