// Functions through ioredis 6 and node-redis 6 against redis-server and warden: FUNCTION LOAD
// (and REPLACE, and its errors), FCALL and FCALL_RO with keys and arguments, FUNCTION LIST (by
// library name, with code) and FUNCTION STATS as each library returns them, FUNCTION DELETE,
// FUNCTION KILL with nothing running, a lock library used the way an application would, and
// node-redis's `functions` client option, which calls a library's functions as methods.
//
// Library and function names carry a per-run suffix: the node suites run in parallel processes
// against the same servers, so nothing here flushes every library.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { HOST, TARGETS, assertWithin } from '../helpers.mjs';

// A lock with a fencing token: acquire returns the token, release and extend check it.
function lockLibrary(s) {
  return `#!lua name=nlocks_${s}
local function acquire(keys, args)
  local token = redis.call('incr', keys[2])
  if redis.call('set', keys[1], token, 'NX', 'PX', args[1]) then
    return token
  end
  return false
end

local function release(keys, args)
  if redis.call('get', keys[1]) == args[1] then
    return redis.call('del', keys[1])
  end
  return 0
end

redis.register_function('nacquire_${s}', acquire)
redis.register_function('nrelease_${s}', release)
redis.register_function{function_name='nholder_${s}', flags={'no-writes'},
  description='who holds the lock', callback=function(keys) return redis.call('get', keys[1]) end}
`;
}

for (const target of TARGETS) {
  describe(`ioredis 6.0.0 functions [${target.name}]`, () => {
    const s = `io${randomBytes(6).toString('hex')}`;
    let redis;
    before(async () => {
      redis = new Redis({ host: HOST, port: target.ports[0] });
      assert.equal(await redis.function('LOAD', lockLibrary(s)), `nlocks_${s}`);
    });
    after(async () => {
      await redis.function('DELETE', `nlocks_${s}`).catch(() => {});
      redis.disconnect();
    });

    test('a lock library: acquire, holder, release, with fencing tokens', async () => {
      const lock = `lock:${s}`;
      const fence = `fence:${s}`;
      assert.equal(await redis.fcall(`nacquire_${s}`, 2, lock, fence, 30000), 1);
      assert.equal(await redis.fcall(`nacquire_${s}`, 2, lock, fence, 30000), null);
      assert.equal(await redis.fcall_ro(`nholder_${s}`, 1, lock), '1');
      assertWithin(await redis.pttl(lock), 29000, 30000, 'PTTL');
      assert.equal(await redis.fcall(`nrelease_${s}`, 1, lock, '2'), 0);
      assert.equal(await redis.fcall(`nrelease_${s}`, 1, lock, '1'), 1);
      assert.equal(await redis.fcall(`nacquire_${s}`, 2, lock, fence, 30000), 3);
    });

    test('errors as the server words them', async () => {
      await assert.rejects(redis.function('LOAD', lockLibrary(s)), {
        message: `ERR Library 'nlocks_${s}' already exists`,
      });
      await assert.rejects(redis.fcall(`nope_${s}`, 0), { message: 'ERR Function not found' });
      await assert.rejects(redis.fcall_ro(`nacquire_${s}`, 2, 'a', 'b', 1), {
        message: 'ERR Can not execute a script with write flag using *_ro command.',
      });
      await assert.rejects(redis.fcall(`nacquire_${s}`, 3, 'a'), {
        message: "ERR Number of keys can't be greater than number of args",
      });
      await assert.rejects(redis.function('KILL'), {
        message: 'NOTBUSY No scripts in execution right now.',
      });
      await assert.rejects(redis.function('DELETE', `nope_${s}`), {
        message: 'ERR Library not found',
      });
    });

    test('FUNCTION LIST and REPLACE', async () => {
      const name = `nrep_${s}`;
      const code = (v) =>
        `#!lua name=${name}\nredis.register_function('${name}_f', function() return ${v} end)`;
      assert.equal(await redis.function('LOAD', code(1)), name);
      assert.equal(await redis.function('LOAD', 'REPLACE', code(2)), name);
      assert.equal(await redis.fcall(`${name}_f`, 0), 2);
      const listed = await redis.function('LIST', 'LIBRARYNAME', name, 'WITHCODE');
      assert.equal(listed.length, 1);
      // ioredis hands maps back as flat arrays of names and values.
      assert.deepEqual(listed[0], [
        'library_name',
        name,
        'engine',
        'LUA',
        'functions',
        [['name', `${name}_f`, 'description', null, 'flags', []]],
        'library_code',
        code(2),
      ]);
      assert.equal(await redis.function('DELETE', name), 'OK');
      assert.deepEqual(await redis.function('LIST', 'LIBRARYNAME', name), []);
    });
  });

  describe(`node-redis 6.3.1 functions [${target.name}]`, () => {
    const s = `nr${randomBytes(6).toString('hex')}`;
    let client;
    let withLibrary;
    before(async () => {
      client = createClient({ socket: { host: HOST, port: target.ports[0] } });
      await client.connect();
      assert.equal(await client.functionLoad(lockLibrary(s)), `nlocks_${s}`);
      // The functions option: each function a method of its library, named as registered.
      withLibrary = createClient({
        socket: { host: HOST, port: target.ports[0] },
        functions: {
          locks: {
            [`nacquire_${s}`]: {
              NUMBER_OF_KEYS: 2,
              parseCommand(parser, lock, fence, ttl) {
                parser.pushKey(lock);
                parser.pushKey(fence);
                parser.push(String(ttl));
              },
              transformReply: undefined,
            },
            [`nholder_${s}`]: {
              NUMBER_OF_KEYS: 1,
              IS_READ_ONLY: true,
              parseCommand(parser, lock) {
                parser.pushKey(lock);
              },
              transformReply: undefined,
            },
          },
        },
      });
      await withLibrary.connect();
    });
    after(async () => {
      await client.functionDelete(`nlocks_${s}`).catch(() => {});
      await client.quit();
      await withLibrary.quit();
    });

    test('fCall and fCallRo', async () => {
      const lock = `lock:${s}`;
      const fence = `fence:${s}`;
      const acquire = (name) =>
        client.fCall(name, { keys: [lock, fence], arguments: ['30000'] });
      assert.equal(await acquire(`nacquire_${s}`), 1);
      assert.equal(await acquire(`nacquire_${s}`), null);
      assert.equal(await client.fCallRo(`nholder_${s}`, { keys: [lock] }), '1');
      assert.equal(
        await client.fCall(`nrelease_${s}`, { keys: [lock], arguments: ['1'] }),
        1,
      );
      await assert.rejects(client.fCall(`nope_${s}`, { keys: [] }), {
        message: 'ERR Function not found',
      });
    });

    test('the functions client option', async () => {
      const lock = `optlock:${s}`;
      const fence = `optfence:${s}`;
      const locks = withLibrary.locks;
      assert.equal(await locks[`nacquire_${s}`](lock, fence, 30000), 1);
      assert.equal(await locks[`nholder_${s}`](lock), '1');
      assert.equal(await locks[`nacquire_${s}`](lock, fence, 30000), null);
    });

    test('functionList, functionListWithCode and functionStats', async () => {
      const listed = await client.functionList({ LIBRARYNAME: `nlocks_${s}` });
      assert.equal(listed.length, 1);
      assert.equal(listed[0].library_name, `nlocks_${s}`);
      assert.equal(listed[0].engine, 'LUA');
      const functions = Object.fromEntries(listed[0].functions.map((f) => [f.name, f]));
      assert.deepEqual(Object.keys(functions).sort(), [
        `nacquire_${s}`,
        `nholder_${s}`,
        `nrelease_${s}`,
      ]);
      assert.equal(functions[`nholder_${s}`].description, 'who holds the lock');
      assert.deepEqual([...functions[`nholder_${s}`].flags], ['no-writes']);
      assert.equal(functions[`nacquire_${s}`].description, null);
      const withCode = await client.functionListWithCode({ LIBRARYNAME: `nlocks_${s}` });
      assert.equal(withCode[0].library_code, lockLibrary(s));
      const stats = await client.functionStats();
      assert.equal(stats.running_script, null);
      assert.ok(stats.engines.LUA.libraries_count >= 1);
      assert.ok(stats.engines.LUA.functions_count >= 3);
    });

    test('functionLoad REPLACE and functionDelete', async () => {
      const name = `nrr_${s}`;
      const code = (v) =>
        `#!lua name=${name}\nredis.register_function('${name}_f', function() return ${v} end)`;
      assert.equal(await client.functionLoad(code(1)), name);
      await assert.rejects(client.functionLoad(code(1)), {
        message: `ERR Library '${name}' already exists`,
      });
      assert.equal(await client.functionLoad(code(5), { REPLACE: true }), name);
      assert.equal(await client.fCall(`${name}_f`, { keys: [] }), 5);
      assert.equal(await client.functionDelete(name), 'OK');
      await assert.rejects(client.functionDelete(name), { message: 'ERR Library not found' });
    });
  });
}
