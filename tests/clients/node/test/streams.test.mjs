// Streams through ioredis 6 and node-redis 6 against redis-server and warden, in RESP3 (both
// libraries' default) and in RESP2: XADD (explicit ids, MAXLEN exact and ~, MINID, NOMKSTREAM,
// LIMIT), XLEN, XRANGE/XREVRANGE, XDEL, XTRIM, XREAD (COUNT, several streams, BLOCK timing out
// and BLOCK woken by another connection's XADD), consumer groups (XGROUP CREATE/SETID/DESTROY/
// CREATECONSUMER/DELCONSUMER, XREADGROUP with '>', history, NOACK and BLOCK, XACK), XPENDING
// (summary, ranges with IDLE and a consumer), XCLAIM (IDLE, TIME, RETRYCOUNT, FORCE, JUSTID),
// XAUTOCLAIM (cursor, JUSTID, deleted entries), XINFO STREAM (and FULL), GROUPS and CONSUMERS,
// each as the library returns it, and a work queue with a crashed consumer.
//
// Ids are explicit wherever a value depends on them. Idle times are made with XCLAIM IDLE/TIME
// instead of waiting, and only they are compared within ranges. No sleeps: a blocked reader is
// found in CLIENT LIST (flag b) before the other connection adds.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { HOST, TARGETS, waitFor, within } from '../helpers.mjs';

const WAIT_MS = 5000;

// The CLIENT LIST line of connection `id`, parsed into an object.
function clientFields(listText, id) {
  for (const line of String(listText).trim().split('\n')) {
    const fields = Object.fromEntries(
      line
        .trim()
        .split(' ')
        .map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)]),
    );
    if (fields.id === String(id)) return fields;
  }
  return undefined;
}

// Resolves once connection `id` shows flag b in `command`; `list()` returns CLIENT LIST's text.
async function blockedIn(list, id, command) {
  await waitFor(
    async () => {
      const c = clientFields(await list(), id);
      return c !== undefined && c.flags.includes('b') && c.cmd === command;
    },
    `connection ${id} blocked in ${command}`,
    WAIT_MS,
  );
}

function assertIdle(value, low, what) {
  assert.equal(typeof value, 'number', `${what} is not a number: ${value}`);
  assert.ok(value >= low && value < low + WAIT_MS, `${what} ${value} not in [${low}, +${WAIT_MS})`);
}

const ID_RE = /^(\d+)-(\d+)$/;

function parseId(id) {
  const m = ID_RE.exec(id);
  assert.ok(m, `not a stream id: ${id}`);
  return [BigInt(m[1]), BigInt(m[2])];
}

// ------------------------------------------------------------------------------------------
// ioredis
// ------------------------------------------------------------------------------------------

for (const target of TARGETS) {
  for (const proto of [
    { label: 'RESP3 (default)', options: {}, resp: 3 },
    { label: 'RESP2', options: { protocol: 2 }, resp: 2 },
  ]) {
    describe(`ioredis 6.0.0 streams ${proto.label} [${target.name}]`, () => {
      let redis;
      let other;
      let prefix;
      const errors = [];
      const connect = () => {
        const c = new Redis({ host: HOST, port: target.ports[0], ...proto.options });
        c.on('error', (e) => errors.push(e));
        return c;
      };
      const key = (name) => `${prefix}${name}`;
      const fill = async (k, count, startMs = 1) => {
        const pipe = redis.pipeline();
        for (let i = 0; i < count; i++) pipe.xadd(k, `${startMs + i}-0`, 'n', String(i));
        await pipe.exec();
      };

      before(async () => {
        redis = connect();
        other = connect();
        prefix = `streams:${randomBytes(6).toString('hex')}:`;
      });

      after(async () => {
        await redis.quit();
        await other.quit();
        assert.deepEqual(errors, []);
      });

      test('XADD ids, XLEN, XRANGE and XREVRANGE with COUNT', async () => {
        const s = key('basic');
        assert.equal(await redis.xlen(s), 0);
        assert.equal(await redis.xadd(s, '1-1', 'a', '1'), '1-1');
        assert.equal(await redis.xadd(s, '1-2', 'a', '2', 'b', 'x'), '1-2');
        assert.equal(await redis.xadd(s, '2', 'a', '3'), '2-0');
        assert.equal(await redis.xadd(s, '2-*', 'a', '4'), '2-1');
        await assert.rejects(redis.xadd(s, '2-1', 'a', 'x'), {
          message:
            'ERR The ID specified in XADD is equal or smaller than the target stream top item',
        });
        assert.equal(await redis.xlen(s), 4);
        const all = [
          ['1-1', ['a', '1']],
          ['1-2', ['a', '2', 'b', 'x']],
          ['2-0', ['a', '3']],
          ['2-1', ['a', '4']],
        ];
        assert.deepEqual(await redis.xrange(s, '-', '+'), all);
        assert.deepEqual(await redis.xrange(s, '-', '+', 'COUNT', 2), all.slice(0, 2));
        assert.deepEqual(await redis.xrange(s, '(1-1', '2-0'), all.slice(1, 3));
        assert.deepEqual(await redis.xrevrange(s, '+', '-', 'COUNT', 3), all.slice(1).reverse());
        assert.deepEqual(await redis.xrevrange(s, '2', '(1-2'), [all[3], all[2]]);

        // '*' ids: increasing, near the server's time.
        const star = key('star');
        const [before] = await redis.time();
        const ids = [];
        for (let i = 0; i < 10; i++) ids.push(await redis.xadd(star, '*', 'i', String(i)));
        const [afterTime] = await redis.time();
        const parsed = ids.map(parseId);
        for (let i = 1; i < parsed.length; i++) {
          const [a, b] = [parsed[i - 1], parsed[i]];
          assert.ok(b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]), `${ids[i]} after ${ids[i - 1]}`);
        }
        assert.ok(parsed[0][0] >= BigInt(before) * 1000n);
        assert.ok(parsed[9][0] <= (BigInt(afterTime) + 1n) * 1000n);
        assert.deepEqual(
          (await redis.xrange(star, '-', '+')).map(([id]) => id),
          ids,
        );
      });

      test('XADD MAXLEN (exact and ~), MINID, LIMIT and NOMKSTREAM; XDEL and XTRIM', async () => {
        const exact = key('exact');
        for (let i = 1; i <= 10; i++) await redis.xadd(exact, 'MAXLEN', 3, `${i}-0`, 'n', String(i));
        assert.deepEqual(await redis.xrange(exact, '-', '+'), [
          ['8-0', ['n', '8']],
          ['9-0', ['n', '9']],
          ['10-0', ['n', '10']],
        ]);
        // '~' drops whole nodes of 100 entries, keeping at least MAXLEN.
        const approx = key('approx');
        const lengths = [];
        for (let i = 1; i <= 250; i++) {
          await redis.xadd(approx, 'MAXLEN', '~', 10, `${i}-0`, 'n', String(i));
          lengths.push(await redis.xlen(approx));
        }
        assert.deepEqual([lengths[108], lengths[109]], [109, 10]);
        assert.ok(lengths.slice(9).every((n) => n >= 10));
        assert.equal(await redis.xlen(approx), 50);
        assert.deepEqual(await redis.xrange(approx, '-', '+', 'COUNT', 1), [['201-0', ['n', '201']]]);

        const limited = key('limited');
        await fill(limited, 300);
        assert.equal(
          await redis.xadd(limited, 'MAXLEN', '~', 10, 'LIMIT', 100, '301-0', 'n', 'x'),
          '301-0',
        );
        assert.equal(await redis.xlen(limited), 201);

        const m = key('minid');
        await fill(m, 5);
        assert.equal(await redis.xadd(m, 'MINID', 4, '6-0', 'n', '6'), '6-0');
        assert.deepEqual((await redis.xrange(m, '-', '+')).map(([id]) => id), ['4-0', '5-0', '6-0']);

        assert.equal(await redis.xadd(key('missing'), 'NOMKSTREAM', '*', 'n', '1'), null);
        assert.equal(await redis.exists(key('missing')), 0);

        assert.equal(await redis.xdel(m, '4-0', '9-0'), 1);
        assert.equal(await redis.xtrim(m, 'MAXLEN', 1), 1);
        assert.deepEqual(await redis.xrange(m, '-', '+'), [['6-0', ['n', '6']]]);
        const big = key('big');
        await fill(big, 350);
        assert.equal(await redis.xtrim(big, 'MAXLEN', '~', 10, 'LIMIT', 100), 100);
        assert.equal(await redis.xtrim(big, 'MINID', '~', 320), 200);
        assert.equal(await redis.xlen(big), 50);
        await assert.rejects(redis.xtrim(big, 'MAXLEN', 10, 'LIMIT', 10), {
          message: 'ERR syntax error, LIMIT cannot be used without the special ~ option',
        });
      });

      test('XREAD with COUNT over two streams, and BLOCK timing out', async () => {
        const a = key('read-a');
        const b = key('read-b');
        await fill(a, 4);
        await fill(b, 2, 10);
        assert.deepEqual(await redis.xread('COUNT', 2, 'STREAMS', a, b, '1-0', '0'), [
          [a, [['2-0', ['n', '1']], ['3-0', ['n', '2']]]],
          [b, [['10-0', ['n', '0']], ['11-0', ['n', '1']]]],
        ]);
        assert.deepEqual(await redis.xread('STREAMS', a, b, '4-0', '10-0'), [
          [b, [['11-0', ['n', '1']]]],
        ]);
        assert.equal(await redis.xread('STREAMS', a, '4-0'), null);
        const start = Date.now();
        assert.equal(await redis.xread('BLOCK', 100, 'STREAMS', a, '$'), null);
        assert.ok(Date.now() - start >= 90);
      });

      test('XREAD BLOCK is woken by another connection\'s XADD', async () => {
        const s = key('wake');
        await redis.xadd(s, '1-0', 'n', 'old');
        const readerId = await redis.client('ID');
        const read = redis.xread('COUNT', 5, 'BLOCK', WAIT_MS * 2, 'STREAMS', key('none'), s, '$', '$');
        await blockedIn(() => other.client('LIST'), readerId, 'xread');
        assert.equal(await other.xadd(s, '5-1', 'job', 'wake'), '5-1');
        assert.deepEqual(await within(read, 'XREAD BLOCK woken'), [[s, [['5-1', ['job', 'wake']]]]]);
      });

      test('consumer groups: XGROUP, XREADGROUP, XACK and XPENDING', async () => {
        const s = key('group');
        await assert.rejects(redis.xgroup('CREATE', s, 'g', '$'), {
          message:
            'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may ' +
            'want to use the MKSTREAM option to create an empty stream automatically.',
        });
        assert.equal(await redis.xgroup('CREATE', s, 'g', '$', 'MKSTREAM'), 'OK');
        await assert.rejects(redis.xgroup('CREATE', s, 'g', '0'), {
          message: 'BUSYGROUP Consumer Group name already exists',
        });
        await fill(s, 6);
        assert.equal(await redis.xgroup('SETID', s, 'g', '0'), 'OK');
        assert.equal(await redis.xgroup('CREATECONSUMER', s, 'g', 'alice'), 1);
        assert.equal(await redis.xgroup('CREATECONSUMER', s, 'g', 'alice'), 0);
        assert.deepEqual(await redis.xreadgroup('GROUP', 'g', 'alice', 'COUNT', 2, 'STREAMS', s, '>'), [
          [s, [['1-0', ['n', '0']], ['2-0', ['n', '1']]]],
        ]);
        assert.deepEqual(await other.xreadgroup('GROUP', 'g', 'bob', 'COUNT', 1, 'STREAMS', s, '>'), [
          [s, [['3-0', ['n', '2']]]],
        ]);
        assert.deepEqual(
          await redis.xreadgroup('GROUP', 'g', 'carol', 'COUNT', 2, 'NOACK', 'STREAMS', s, '>'),
          [[s, [['4-0', ['n', '3']], ['5-0', ['n', '4']]]]],
        );
        // History: only the consumer's own pending entries.
        assert.deepEqual(await redis.xreadgroup('GROUP', 'g', 'alice', 'STREAMS', s, '0'), [
          [s, [['1-0', ['n', '0']], ['2-0', ['n', '1']]]],
        ]);
        assert.deepEqual(await redis.xreadgroup('GROUP', 'g', 'carol', 'STREAMS', s, '0'), [[s, []]]);
        assert.deepEqual(await redis.xpending(s, 'g'), [
          3,
          '1-0',
          '3-0',
          [
            ['alice', '2'],
            ['bob', '1'],
          ],
        ]);
        assert.equal(await redis.xack(s, 'g', '1-0', '3-0', '9-0'), 2);
        assert.deepEqual(await redis.xpending(s, 'g'), [1, '2-0', '2-0', [['alice', '1']]]);
        assert.equal(await redis.xgroup('DELCONSUMER', s, 'g', 'alice'), 1);
        assert.deepEqual(await redis.xpending(s, 'g'), [0, null, null, null]);
        assert.equal(await redis.xgroup('DESTROY', s, 'g'), 1);
        assert.equal(await redis.xgroup('DESTROY', s, 'g'), 0);
        await assert.rejects(redis.xreadgroup('GROUP', 'g', 'alice', 'STREAMS', s, '>'), {
          message: `NOGROUP No such key '${s}' or consumer group 'g' in XREADGROUP with GROUP option`,
        });
      });

      test('XREADGROUP BLOCK is woken by another connection\'s XADD', async () => {
        const s = key('group-wake');
        assert.equal(await other.xgroup('CREATE', s, 'g', '$', 'MKSTREAM'), 'OK');
        const readerId = await redis.client('ID');
        const read = redis.xreadgroup('GROUP', 'g', 'c', 'BLOCK', WAIT_MS * 2, 'STREAMS', s, '>');
        await blockedIn(() => other.client('LIST'), readerId, 'xreadgroup');
        assert.equal(await other.xadd(s, '3-0', 'job', '1'), '3-0');
        assert.deepEqual(await within(read, 'XREADGROUP BLOCK woken'), [[s, [['3-0', ['job', '1']]]]]);
        assert.deepEqual(await other.xpending(s, 'g'), [1, '3-0', '3-0', [['c', '1']]]);
      });

      test('a blocked XREADGROUP fails at once when its stream is deleted', async () => {
        const s = key('group-gone');
        assert.equal(await other.xgroup('CREATE', s, 'g', '$', 'MKSTREAM'), 'OK');
        const readerId = await redis.client('ID');
        const start = Date.now();
        // BLOCK 3 s: a server that misses the deletion answers nil at the timeout instead.
        const outcome = redis
          .xreadgroup('GROUP', 'g', 'c', 'BLOCK', 3000, 'STREAMS', s, '>')
          .then((value) => ({ value }), (e) => ({ error: e.message }));
        await blockedIn(() => other.client('LIST'), readerId, 'xreadgroup');
        assert.equal(await other.del(s), 1);
        assert.deepEqual(await within(outcome, 'XREADGROUP answered'), {
          error: 'UNBLOCKED the stream key no longer exists',
        });
        assert.ok(Date.now() - start < 2500, 'answered at the timeout, not at the deletion');
      });

      test('XPENDING ranges, XCLAIM and XAUTOCLAIM', async () => {
        const s = key('claim');
        await fill(s, 6);
        await redis.xgroup('CREATE', s, 'g', '0');
        await redis.xreadgroup('GROUP', 'g', 'alice', 'COUNT', 4, 'STREAMS', s, '>');
        // 2-0 and 4-0 look delivered a minute ago.
        assert.deepEqual(
          await redis.xclaim(s, 'g', 'alice', 0, '2-0', '4-0', 'IDLE', 60000, 'JUSTID'),
          ['2-0', '4-0'],
        );
        const rows = await redis.xpending(s, 'g', '-', '+', 10);
        assert.deepEqual(
          rows.map(([id, consumer, , count]) => [id, consumer, count]),
          [
            ['1-0', 'alice', 1],
            ['2-0', 'alice', 1],
            ['3-0', 'alice', 1],
            ['4-0', 'alice', 1],
          ],
        );
        assertIdle(rows[1][2], 60000, 'idle of 2-0');
        assertIdle(rows[0][2], 0, 'idle of 1-0');
        assert.deepEqual(
          (await redis.xpending(s, 'g', 'IDLE', 30000, '-', '+', 10, 'alice')).map(([id]) => id),
          ['2-0', '4-0'],
        );
        assert.deepEqual(await redis.xpending(s, 'g', '-', '+', 10, 'bob'), []);

        assert.deepEqual(await redis.xclaim(s, 'g', 'bob', 30000, '1-0', '2-0'), [['2-0', ['n', '1']]]);
        assert.deepEqual(
          await redis.xclaim(s, 'g', 'bob', 0, '3-0', 'IDLE', 90000, 'RETRYCOUNT', 5),
          [['3-0', ['n', '2']]],
        );
        const [[, consumer3, idle3, count3]] = await redis.xpending(s, 'g', '3-0', '3-0', 1);
        assert.deepEqual([consumer3, count3], ['bob', 5]);
        assertIdle(idle3, 90000, 'idle of 3-0');
        const [seconds] = await redis.time();
        assert.deepEqual(
          await redis.xclaim(s, 'g', 'bob', 0, '1-0', 'TIME', Number(seconds) * 1000 - 120000,
            'JUSTID'),
          ['1-0'],
        );
        const [[, , idle1]] = await redis.xpending(s, 'g', '1-0', '1-0', 1);
        assertIdle(idle1, 119000, 'idle of 1-0');
        assert.deepEqual(await redis.xclaim(s, 'g', 'bob', 0, '5-0'), []);
        assert.deepEqual(await redis.xclaim(s, 'g', 'bob', 0, '5-0', 'FORCE', 'JUSTID'), ['5-0']);

        // XAUTOCLAIM: 1-0 (idle 2 min), 3-0 (1.5 min) and 4-0 (1 min) are idle over 30 s.
        assert.equal(await redis.xdel(s, '4-0'), 1);
        assert.deepEqual(await redis.xautoclaim(s, 'g', 'carol', 30000, '0-0', 'COUNT', 1), [
          '2-0',
          [['1-0', ['n', '0']]],
          [],
        ]);
        assert.deepEqual(await redis.xautoclaim(s, 'g', 'carol', 30000, '2-0', 'COUNT', 10), [
          '0-0',
          [['3-0', ['n', '2']]],
          ['4-0'],
        ]);
        assert.deepEqual(
          await redis.xautoclaim(s, 'g', 'dave', 0, '0-0', 'COUNT', 2, 'JUSTID'),
          ['3-0', ['1-0', '2-0'], []],
        );
        const after = await redis.xpending(s, 'g', '-', '+', 10);
        assert.deepEqual(
          after.map(([id, consumer, , count]) => [id, consumer, count]),
          [
            ['1-0', 'dave', 2],
            ['2-0', 'dave', 2],
            ['3-0', 'carol', 6],
            ['5-0', 'bob', 1],
          ],
        );
      });

      test('XINFO STREAM, STREAM FULL, GROUPS and CONSUMERS', async () => {
        const s = key('info');
        await fill(s, 3);
        await redis.xgroup('CREATE', s, 'g', '0');
        await redis.xreadgroup('GROUP', 'g', 'alice', 'COUNT', 2, 'STREAMS', s, '>');
        await redis.xgroup('CREATECONSUMER', s, 'g', 'bob');
        assert.deepEqual(await redis.xinfo('STREAM', s), [
          'length', 3,
          'radix-tree-keys', 1,
          'radix-tree-nodes', 2,
          'last-generated-id', '3-0',
          'max-deleted-entry-id', '0-0',
          'entries-added', 3,
          'recorded-first-entry-id', '1-0',
          'groups', 1,
          'first-entry', ['1-0', ['n', '0']],
          'last-entry', ['3-0', ['n', '2']],
        ]);
        assert.deepEqual(await redis.xinfo('GROUPS', s), [
          ['name', 'g', 'consumers', 2, 'pending', 2, 'last-delivered-id', '2-0',
            'entries-read', 2, 'lag', 1],
        ]);
        const consumers = await redis.xinfo('CONSUMERS', s, 'g');
        assert.deepEqual(
          consumers.map((c) => [c[0], c[1], c[2], c[3], c[4]]),
          [
            ['name', 'alice', 'pending', 2, 'idle'],
            ['name', 'bob', 'pending', 0, 'idle'],
          ],
        );
        for (const c of consumers) assertIdle(c[5], 0, 'consumer idle');
        assert.equal(consumers[0].length, 6);

        const full = await redis.xinfo('STREAM', s, 'FULL', 'COUNT', 2);
        const [seconds] = await redis.time();
        const now = Number(seconds) * 1000 + 1000;
        const fields = Object.fromEntries(
          Array.from({ length: full.length / 2 }, (_, i) => [full[2 * i], full[2 * i + 1]]),
        );
        assert.deepEqual(Object.keys(fields), [
          'length', 'radix-tree-keys', 'radix-tree-nodes', 'last-generated-id',
          'max-deleted-entry-id', 'entries-added', 'recorded-first-entry-id', 'entries', 'groups',
        ]);
        assert.deepEqual(fields.entries, [['1-0', ['n', '0']], ['2-0', ['n', '1']]]);
        const [group] = fields.groups;
        assert.deepEqual(group.slice(0, 10), [
          'name', 'g', 'last-delivered-id', '2-0', 'entries-read', 2, 'lag', 1, 'pel-count', 2,
        ]);
        assert.equal(group[10], 'pending');
        assert.deepEqual(group[11].map(([id, c, , n]) => [id, c, n]), [
          ['1-0', 'alice', 1],
          ['2-0', 'alice', 1],
        ]);
        for (const [, , at] of group[11]) assert.ok(at > now - WAIT_MS && at <= now, `${at}`);
        assert.equal(group[12], 'consumers');
        assert.deepEqual(group[13].map((c) => [c[0], c[1], c[2], c[4], c[5], c[6]]), [
          ['name', 'alice', 'seen-time', 'pel-count', 2, 'pending'],
          ['name', 'bob', 'seen-time', 'pel-count', 0, 'pending'],
        ]);
        assert.deepEqual(group[13][0][7].map(([id, , n]) => [id, n]), [['1-0', 1], ['2-0', 1]]);
        await assert.rejects(redis.xinfo('STREAM', key('missing')), { message: 'ERR no such key' });
      });

      if (proto.resp === 3) {
        test("RESP3 maps as objects (replyMapping: 'resp3')", async () => {
          const m = new Redis({ host: HOST, port: target.ports[0], replyMapping: 'resp3' });
          m.on('error', (e) => errors.push(e));
          try {
            const s = key('maps');
            await m.xadd(s, '1-0', 'a', '1');
            await m.xadd(s, '2-0', 'b', '2');
            await m.xgroup('CREATE', s, 'g', '0');
            assert.deepEqual(await m.xreadgroup('GROUP', 'g', 'c', 'COUNT', 1, 'STREAMS', s, '>'), {
              [s]: [['1-0', ['a', '1']]],
            });
            assert.deepEqual(await m.xread('STREAMS', s, '0'), {
              [s]: [['1-0', ['a', '1']], ['2-0', ['b', '2']]],
            });
            assert.equal(await m.xread('STREAMS', s, '2-0'), null);
            assert.deepEqual(await m.xinfo('STREAM', s), {
              length: 2,
              'radix-tree-keys': 1,
              'radix-tree-nodes': 2,
              'last-generated-id': '2-0',
              'max-deleted-entry-id': '0-0',
              'entries-added': 2,
              'recorded-first-entry-id': '1-0',
              groups: 1,
              'first-entry': ['1-0', ['a', '1']],
              'last-entry': ['2-0', ['b', '2']],
            });
            const full = await m.xinfo('STREAM', s, 'FULL');
            const [group] = full.groups;
            assert.deepEqual(Object.keys(group), [
              'name', 'last-delivered-id', 'entries-read', 'lag', 'pel-count', 'pending', 'consumers',
            ]);
            assert.deepEqual(Object.keys(group.consumers[0]), [
              'name', 'seen-time', 'pel-count', 'pending',
            ]);
            assert.deepEqual(full.entries, [['1-0', ['a', '1']], ['2-0', ['b', '2']]]);
            assert.deepEqual(await m.xinfo('GROUPS', s), [
              {
                name: 'g', consumers: 1, pending: 1, 'last-delivered-id': '1-0',
                'entries-read': 1, lag: 1,
              },
            ]);
            const [consumer] = await m.xinfo('CONSUMERS', s, 'g');
            assert.deepEqual(Object.keys(consumer), ['name', 'pending', 'idle']);
            assert.deepEqual([consumer.name, consumer.pending], ['c', 1]);
            assert.deepEqual(await m.xpending(s, 'g'), [1, '1-0', '1-0', [['c', '1']]]);
          } finally {
            await m.quit();
          }
        });
      }
    });
  }
}

// ------------------------------------------------------------------------------------------
// node-redis
// ------------------------------------------------------------------------------------------

const entry = (id, message) => ({ id, message });

for (const target of TARGETS) {
  for (const proto of [
    { label: 'RESP3 (default)', options: {} },
    { label: 'RESP2', options: { RESP: 2 } },
  ]) {
    describe(`node-redis 6.3.1 streams ${proto.label} [${target.name}]`, () => {
      let client;
      let other;
      let prefix;
      const errors = [];
      const key = (name) => `${prefix}${name}`;
      const fill = async (k, count, startMs = 1) => {
        const adds = [];
        for (let i = 0; i < count; i++) adds.push(client.xAdd(k, `${startMs + i}-0`, { n: String(i) }));
        await Promise.all(adds);
      };
      const list = () => other.sendCommand(['CLIENT', 'LIST']);

      before(async () => {
        client = createClient({ socket: { host: HOST, port: target.ports[0] }, ...proto.options });
        client.on('error', (e) => errors.push(e));
        await client.connect();
        other = client.duplicate();
        other.on('error', (e) => errors.push(e));
        await other.connect();
        prefix = `streams:${randomBytes(6).toString('hex')}:`;
      });

      after(async () => {
        await client.close();
        await other.close();
        assert.deepEqual(errors, []);
      });

      test('xAdd, xLen, xRange, xRevRange, xDel and xTrim', async () => {
        const s = key('basic');
        assert.equal(await client.xAdd(s, '1-1', { a: '1' }), '1-1');
        assert.equal(await client.xAdd(s, '1-2', { a: '2', b: 'x' }), '1-2');
        assert.equal(await client.xAdd(s, '2', { a: '3' }), '2-0');
        assert.equal(await client.xAdd(s, '2-*', { a: '4' }), '2-1');
        assert.equal(await client.xLen(s), 4);
        const all = [
          entry('1-1', { a: '1' }),
          entry('1-2', { a: '2', b: 'x' }),
          entry('2-0', { a: '3' }),
          entry('2-1', { a: '4' }),
        ];
        assert.deepEqual(await client.xRange(s, '-', '+'), all);
        assert.deepEqual(await client.xRange(s, '(1-1', '+', { COUNT: 2 }), all.slice(1, 3));
        assert.deepEqual(await client.xRevRange(s, '+', '-', { COUNT: 2 }), [all[3], all[2]]);
        assert.equal(await client.xDel(s, ['1-1', '7-0']), 1);
        assert.equal(await client.xTrim(s, 'MAXLEN', 2), 1);
        assert.deepEqual(await client.xRange(s, '-', '+'), all.slice(2));
        const star = await client.xAdd(s, '*', { a: '5' });
        const [ms] = parseId(star);
        assert.ok(ms > 1600000000000n, star);

        const exact = key('exact');
        for (let i = 1; i <= 6; i++) {
          await client.xAdd(exact, `${i}-0`, { n: String(i) }, {
            TRIM: { strategy: 'MAXLEN', threshold: 2 },
          });
        }
        assert.deepEqual(await client.xRange(exact, '-', '+'), [
          entry('5-0', { n: '5' }),
          entry('6-0', { n: '6' }),
        ]);
        // '~' drops whole nodes of 100 entries: 1..100, 101..200, 201..209.
        const approx = key('approx');
        await fill(approx, 209);
        assert.equal(
          await client.xAdd(approx, '210-0', { n: 'x' }, {
            TRIM: { strategy: 'MINID', strategyModifier: '~', threshold: 150, limit: 100 },
          }),
          '210-0',
        );
        assert.equal(await client.xLen(approx), 110);
        assert.equal(
          await client.xAdd(approx, '211-0', { n: 'y' }, {
            TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: 10 },
          }),
          '211-0',
        );
        assert.equal(await client.xLen(approx), 11);
        assert.equal(await client.xTrim(approx, 'MINID', '211', { strategyModifier: '=' }), 10);
        assert.equal(await client.xAddNoMkStream(key('missing'), '*', { n: '1' }), null);
        assert.equal(await client.exists(key('missing')), 0);
      });

      test('xRead with COUNT, and BLOCK timing out', async () => {
        const a = key('read-a');
        const b = key('read-b');
        await fill(a, 3);
        await fill(b, 2, 10);
        assert.deepEqual(
          await client.xRead([{ key: a, id: '0' }, { key: b, id: '10-0' }], { COUNT: 2 }),
          [
            { name: a, messages: [entry('1-0', { n: '0' }), entry('2-0', { n: '1' })] },
            { name: b, messages: [entry('11-0', { n: '1' })] },
          ],
        );
        assert.equal(await client.xRead({ key: a, id: '3-0' }), null);
        const start = Date.now();
        assert.equal(await client.xRead({ key: a, id: '$' }, { BLOCK: 100 }), null);
        assert.ok(Date.now() - start >= 90);
      });

      test('xRead BLOCK on a duplicated client is woken by an xAdd', async () => {
        const s = key('wake');
        await client.xAdd(s, '1-0', { n: 'old' });
        const reader = client.duplicate();
        reader.on('error', (e) => errors.push(e));
        await reader.connect();
        try {
          const readerId = await reader.clientId();
          const read = reader.xRead({ key: s, id: '$' }, { BLOCK: WAIT_MS * 2, COUNT: 10 });
          await blockedIn(list, readerId, 'xread');
          assert.equal(await client.xAdd(s, '9-9', { job: 'wake' }), '9-9');
          assert.deepEqual(await within(read, 'xRead BLOCK woken'), [
            { name: s, messages: [entry('9-9', { job: 'wake' })] },
          ]);
        } finally {
          await reader.close();
        }
      });

      test('xGroupCreate, xReadGroup, xAck, xPending and xPendingRange', async () => {
        const s = key('group');
        assert.equal(await client.xGroupCreate(s, 'g', '$', { MKSTREAM: true }), 'OK');
        await assert.rejects(client.xGroupCreate(s, 'g', '$'), {
          message: 'BUSYGROUP Consumer Group name already exists',
        });
        await fill(s, 5);
        assert.equal(await client.xGroupCreate(s, 'early', '0'), 'OK');
        assert.equal(await client.xGroupSetId(s, 'g', '1-0'), 'OK');
        assert.equal(await client.xGroupCreateConsumer(s, 'g', 'alice'), 1);
        assert.deepEqual(
          await client.xReadGroup('g', 'alice', { key: s, id: '>' }, { COUNT: 2 }),
          [{ name: s, messages: [entry('2-0', { n: '1' }), entry('3-0', { n: '2' })] }],
        );
        assert.deepEqual(
          await client.xReadGroup('g', 'bob', { key: s, id: '>' }, { COUNT: 1, NOACK: true }),
          [{ name: s, messages: [entry('4-0', { n: '3' })] }],
        );
        assert.deepEqual(await client.xReadGroup('g', 'bob', { key: s, id: '>' }), [
          { name: s, messages: [entry('5-0', { n: '4' })] },
        ]);
        assert.equal(await client.xReadGroup('g', 'bob', { key: s, id: '>' }), null);
        assert.deepEqual(await client.xReadGroup('g', 'alice', { key: s, id: '0' }), [
          { name: s, messages: [entry('2-0', { n: '1' }), entry('3-0', { n: '2' })] },
        ]);
        assert.deepEqual(await client.xPending(s, 'g'), {
          pending: 3,
          firstId: '2-0',
          lastId: '5-0',
          consumers: [
            { name: 'alice', deliveriesCounter: 2 },
            { name: 'bob', deliveriesCounter: 1 },
          ],
        });
        assert.equal(await client.xAck(s, 'g', ['2-0', '5-0', '8-0']), 2);
        const rows = await client.xPendingRange(s, 'g', '-', '+', 10);
        assert.deepEqual(
          rows.map(({ id, consumer, deliveriesCounter }) => ({ id, consumer, deliveriesCounter })),
          // Reading the history delivered 3-0 a second time.
          [{ id: '3-0', consumer: 'alice', deliveriesCounter: 2 }],
        );
        assertIdle(rows[0].millisecondsSinceLastDelivery, 0, 'idle of 3-0');
        assert.deepEqual(await client.xPendingRange(s, 'g', '-', '+', 10, { consumer: 'bob' }), []);
        assert.deepEqual(await client.xPendingRange(s, 'g', '-', '+', 10, { IDLE: 60000 }), []);
        assert.equal(await client.xGroupDelConsumer(s, 'g', 'alice'), 1);
        assert.deepEqual(await client.xPending(s, 'g'), {
          pending: 0,
          firstId: null,
          lastId: null,
          consumers: null,
        });
        assert.equal(await client.xGroupDestroy(s, 'early'), 1);
        assert.equal(await client.xGroupDestroy(s, 'early'), 0);
      });

      test('xReadGroup BLOCK on a duplicated client is woken by an xAdd', async () => {
        const s = key('group-wake');
        await client.xGroupCreate(s, 'g', '$', { MKSTREAM: true });
        const reader = client.duplicate();
        reader.on('error', (e) => errors.push(e));
        await reader.connect();
        try {
          const readerId = await reader.clientId();
          const read = reader.xReadGroup('g', 'c', { key: s, id: '>' }, { BLOCK: WAIT_MS * 2 });
          await blockedIn(list, readerId, 'xreadgroup');
          assert.equal(await client.xAdd(s, '4-4', { job: '1' }), '4-4');
          assert.deepEqual(await within(read, 'xReadGroup BLOCK woken'), [
            { name: s, messages: [entry('4-4', { job: '1' })] },
          ]);
        } finally {
          await reader.close();
        }
      });

      test('a blocked xReadGroup rejects at once on XGROUP DESTROY and on DEL', async () => {
        const reader = client.duplicate();
        reader.on('error', (e) => errors.push(e));
        await reader.connect();
        try {
          const readerId = await reader.clientId();
          for (const [what, end, message] of [
            ['XGROUP DESTROY', (s) => client.xGroupDestroy(s, 'g'),
              'NOGROUP the consumer group this client was blocked on no longer exists'],
            ['DEL', (s) => client.del(s), 'UNBLOCKED the stream key no longer exists'],
          ]) {
            const s = key(`gone-${what}`);
            await client.xGroupCreate(s, 'g', '$', { MKSTREAM: true });
            const start = Date.now();
            // BLOCK 3 s: a server that misses the event answers nil at the timeout instead.
            const outcome = reader
              .xReadGroup('g', 'c', { key: s, id: '>' }, { BLOCK: 3000 })
              .then((value) => ({ value }), (e) => ({ error: e.message }));
            await blockedIn(list, readerId, 'xreadgroup');
            assert.equal(await end(s), 1);
            assert.deepEqual(await within(outcome, `xReadGroup answered after ${what}`), {
              error: message,
            }, what);
            assert.ok(Date.now() - start < 2500, `${what}: answered at the timeout`);
          }
        } finally {
          await reader.close();
        }
      });

      test('xClaim, xClaimJustId, xAutoClaim and xAutoClaimJustId', async () => {
        const s = key('claim');
        await fill(s, 6);
        await client.xGroupCreate(s, 'g', '0');
        await client.xReadGroup('g', 'alice', { key: s, id: '>' }, { COUNT: 5 });
        assert.deepEqual(await client.xClaimJustId(s, 'g', 'alice', 0, ['1-0', '2-0', '3-0'], {
          IDLE: 60000,
        }), ['1-0', '2-0', '3-0']);
        assert.deepEqual(await client.xClaim(s, 'g', 'bob', 30000, ['1-0', '4-0']), [
          entry('1-0', { n: '0' }),
        ]);
        assert.deepEqual(
          await client.xClaim(s, 'g', 'bob', 0, '2-0', { IDLE: 90000, RETRYCOUNT: 9 }),
          [entry('2-0', { n: '1' })],
        );
        const [row2] = await client.xPendingRange(s, 'g', '2-0', '2-0', 1);
        assert.deepEqual([row2.consumer, row2.deliveriesCounter], ['bob', 9]);
        assertIdle(row2.millisecondsSinceLastDelivery, 90000, 'idle of 2-0');
        const [seconds] = await client.time();
        assert.deepEqual(
          await client.xClaimJustId(s, 'g', 'bob', 0, '4-0', {
            TIME: Number(seconds) * 1000 - 120000,
          }),
          ['4-0'],
        );
        const [row4] = await client.xPendingRange(s, 'g', '4-0', '4-0', 1);
        assertIdle(row4.millisecondsSinceLastDelivery, 119000, 'idle of 4-0');
        assert.deepEqual(await client.xClaim(s, 'g', 'bob', 0, '6-0'), []);
        assert.deepEqual(await client.xClaim(s, 'g', 'bob', 0, '6-0', { FORCE: true }), [
          entry('6-0', { n: '5' }),
        ]);

        // Idle over 30 s: 2-0 (1.5 min), 3-0 (1 min), 4-0 (2 min). 3-0 is then deleted.
        assert.equal(await client.xDel(s, '3-0'), 1);
        assert.deepEqual(await client.xAutoClaim(s, 'g', 'carol', 30000, '0-0', { COUNT: 1 }), {
          nextId: '3-0',
          messages: [entry('2-0', { n: '1' })],
          deletedMessages: [],
        });
        assert.deepEqual(await client.xAutoClaim(s, 'g', 'carol', 30000, '3-0'), {
          nextId: '0-0',
          messages: [entry('4-0', { n: '3' })],
          deletedMessages: ['3-0'],
        });
        assert.deepEqual(await client.xAutoClaimJustId(s, 'g', 'dave', 0, '0-0', { COUNT: 2 }), {
          nextId: '4-0',
          messages: ['1-0', '2-0'],
          deletedMessages: [],
        });
        const rows = await client.xPendingRange(s, 'g', '-', '+', 10);
        assert.deepEqual(
          rows.map(({ id, consumer, deliveriesCounter }) => [id, consumer, deliveriesCounter]),
          [
            ['1-0', 'dave', 2],
            ['2-0', 'dave', 10],
            ['4-0', 'carol', 2],
            ['5-0', 'alice', 1],
            ['6-0', 'bob', 2],
          ],
        );
      });

      test('xInfoStream, xInfoGroups and xInfoConsumers', async () => {
        const s = key('info');
        await fill(s, 3);
        await client.xDel(s, '2-0');
        await client.xGroupCreate(s, 'g', '0');
        await client.xReadGroup('g', 'alice', { key: s, id: '>' }, { COUNT: 1 });
        await client.xGroupCreateConsumer(s, 'g', 'bob');
        const info = await client.xInfoStream(s);
        assert.deepEqual({ ...info }, {
          length: 2,
          'radix-tree-keys': 1,
          'radix-tree-nodes': 2,
          'last-generated-id': '3-0',
          'max-deleted-entry-id': '2-0',
          'entries-added': 3,
          'recorded-first-entry-id': '1-0',
          groups: 1,
          'first-entry': entry('1-0', { n: '0' }),
          'last-entry': entry('3-0', { n: '2' }),
        });
        const groups = await client.xInfoGroups(s);
        assert.deepEqual(groups.map((g) => ({ ...g })), [
          {
            name: 'g',
            consumers: 2,
            pending: 1,
            'last-delivered-id': '1-0',
            // A deletion after the group's last id makes both unknown.
            'entries-read': null,
            lag: null,
          },
        ]);
        const consumers = (await client.xInfoConsumers(s, 'g')).map((c) => ({ ...c }));
        assert.deepEqual(
          consumers.map(({ name, pending }) => ({ name, pending })),
          [
            { name: 'alice', pending: 1 },
            { name: 'bob', pending: 0 },
          ],
        );
        for (const c of consumers) assertIdle(c.idle, 0, 'consumer idle');
        assert.equal(consumers[0].inactive, undefined); // Redis 7.2 added it
        await assert.rejects(client.xInfoStream(key('missing')), { message: 'ERR no such key' });
      });

      test('a work queue: three consumers, and a crashed one\'s jobs taken by xAutoClaim', async () => {
        const s = key('jobs');
        await client.xGroupCreate(s, 'workers', '$', { MKSTREAM: true });
        await Promise.all(
          Array.from({ length: 30 }, (_, i) => client.xAdd(s, '*', { job: String(i) })),
        );
        const workers = [];
        for (const name of ['w1', 'w2', 'crashed']) {
          const c = client.duplicate();
          c.on('error', (e) => errors.push(e));
          await c.connect();
          workers.push({ name, c });
        }
        try {
          const processed = [];
          const take = async ({ name, c }, count) => {
            const got = await c.xReadGroup('workers', name, { key: s, id: '>' }, { COUNT: count });
            return got === null ? [] : got[0].messages;
          };
          const crashed = await take(workers[2], 5);
          assert.deepEqual(crashed.map((m) => m.message.job), ['0', '1', '2', '3', '4']);
          // w1 and w2 read concurrently until the stream is drained, acknowledging each batch.
          await Promise.all(
            workers.slice(0, 2).map(async (w) => {
              for (;;) {
                const batch = await take(w, 3);
                if (batch.length === 0) return;
                for (const m of batch) processed.push([w.name, Number(m.message.job)]);
                assert.equal(await w.c.xAck(s, 'workers', batch.map((m) => m.id)), batch.length);
              }
            }),
          );
          assert.deepEqual(
            processed.map(([, job]) => job).sort((x, y) => x - y),
            Array.from({ length: 25 }, (_, i) => i + 5),
          );
          const pending = await client.xPending(s, 'workers');
          assert.deepEqual(pending.consumers, [{ name: 'crashed', deliveriesCounter: 5 }]);
          // The crashed consumer's jobs age a minute, then w2 claims them page by page.
          await client.xClaimJustId(s, 'workers', 'crashed', 0, crashed.map((m) => m.id), {
            IDLE: 60000,
          });
          let cursor = '0-0';
          let pages = 0;
          do {
            const claimed = await workers[1].c.xAutoClaim(s, 'workers', 'w2', 30000, cursor, {
              COUNT: 2,
            });
            assert.deepEqual(claimed.deletedMessages, []);
            for (const m of claimed.messages) {
              processed.push(['w2', Number(m.message.job)]);
              assert.equal(await workers[1].c.xAck(s, 'workers', m.id), 1);
            }
            cursor = claimed.nextId;
            pages++;
          } while (cursor !== '0-0');
          assert.equal(pages, 3);
          assert.deepEqual(
            processed.map(([, job]) => job).sort((x, y) => x - y),
            Array.from({ length: 30 }, (_, i) => i),
          );
          assert.deepEqual(await client.xPending(s, 'workers'), {
            pending: 0,
            firstId: null,
            lastId: null,
            consumers: null,
          });
          const [group] = await client.xInfoGroups(s);
          assert.deepEqual(
            [group.consumers, group.pending, group['entries-read'], group.lag],
            [3, 0, 30, 0],
          );
        } finally {
          for (const { c } of workers) await c.close();
        }
      });
    });
  }
}
