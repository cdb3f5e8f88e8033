// warden-testing.mjs, the helpers a Node suite takes, over ioredis against a warden it starts
// itself from $WARDEN_BINARY.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import Redis from 'ioredis';
import {
  advance, cleanSlate, clearFaults, commandLog, dropSnapshot, fault, freeze, nowMs, realClock,
  restore, snapshot, startWarden, unsupported, waitBlocked,
} from './warden-testing.mjs';

describe('warden-testing.mjs', () => {
  let server;
  let r;
  before(async () => {
    server = await startWarden();
    r = new Redis(server.port, '127.0.0.1', { lazyConnect: true });
    await r.connect();
  });
  after(async () => {
    r.disconnect();
    await server.stop();
  });
  beforeEach(() => cleanSlate(r));

  test('a frozen clock moves only when advanced', async () => {
    await freeze(r, 1_700_000_000_000);
    assert.equal(await nowMs(r), 1_700_000_000_000);
    assert.equal(await r.set('lease', 'me', 'PX', 30000, 'NX'), 'OK');
    await advance(r, 29_999);
    assert.equal(await r.pttl('lease'), 1);
    await advance(r, 1);
    assert.equal(await r.get('lease'), null);
    assert.deepEqual(await r.time(), ['1700000030', '0']);
    await realClock(r);
    assert.ok((await nowMs(r)) > 1_700_000_030_000);
  });

  test('waitBlocked, then advance times a BRPOP out', async () => {
    await freeze(r);
    const waiter = new Redis(server.port, '127.0.0.1');
    try {
      const popped = waiter.brpop('jobs', 5);
      assert.equal(await waitBlocked(r, 1), 1);
      await advance(r, 5000);
      assert.equal(await popped, null);
    } finally {
      waiter.disconnect();
    }
  });

  test('snapshot and restore, with a lease running out in between', async () => {
    await freeze(r);
    await r.set('lock', 'me', 'PX', 10000);
    await r.hset('user:1', 'name', 'Ann');
    await snapshot(r, 'clean');
    await r.flushall();
    await restore(r, 'clean');
    assert.deepEqual((await r.keys('*')).sort(), ['lock', 'user:1']);
    assert.equal(await r.pttl('lock'), 10000);
    await advance(r, 10001);
    await restore(r, 'clean');
    assert.deepEqual(await r.keys('*'), ['user:1']);
    await dropSnapshot(r, 'clean');
    await assert.rejects(restore(r, 'clean'), /no such snapshot/);
  });

  test('a fault rule fails one command, then is spent', async () => {
    const rule = await fault(r, ['ERROR', 'LOADING warden is loading the dataset in memory'],
      { command: 'get', key: 'lock:*', times: 1 });
    assert.equal(typeof rule.id, 'number');
    await assert.rejects(r.get('lock:a'), /^ReplyError: LOADING warden is loading/);
    assert.equal(await r.get('lock:a'), null);
    const drop = await fault(r, ['DROP'], { command: 'ping' });
    assert.equal(await drop.remove(), 1);
    assert.equal(await r.ping(), 'PONG');
    await clearFaults(r);
  });

  test('the command log shows what the code sent', async () => {
    const log = await commandLog(r);
    await r.set('lock', 'me', 'PX', 30000, 'NX');
    await r.eval("return redis.call('get', KEYS[1])", 1, 'lock');
    assert.deepEqual(await log.commands({ includeScripts: false }), [
      ['set', 'lock', 'me', 'PX', '30000', 'NX'],
      ['eval', "return redis.call('get', KEYS[1])", '1', 'lock'],
    ]);
    const entries = await log.entries();
    assert.deepEqual(entries.map((e) => e.origin), ['client', 'client', 'script']);
    assert.deepEqual(entries[2].args, ['get', 'lock']);
    await log.stop();
  });

  test('unknown commands are reported', async () => {
    await r.config('RESETSTAT');
    await assert.rejects(r.call('NOSUCHCOMMAND', 'x'), /unknown command/);
    await assert.rejects(r.call('NOSUCHCOMMAND', 'y'), /unknown command/);
    await assert.rejects(r.call('CONFIG', 'NOSUCH'), /unknown subcommand/);
    assert.deepEqual(await unsupported(r), { 'config|nosuch': 1, nosuchcommand: 2 });
  });
});
