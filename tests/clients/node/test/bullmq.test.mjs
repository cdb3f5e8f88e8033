// BullMQ 6.7.6 (npm; it loads the project's ioredis 6.0.0) against redis-server and warden: a
// Queue and a Worker, QueueEvents (XREAD BLOCK on the queue's event stream), retries with fixed
// and exponential backoff, delayed jobs, the rate limiter, a flow of a parent and its children,
// a job scheduler (repeatable jobs), and job removal and obliterate. Every Lua script BullMQ
// runs XADDs to `<prefix>:<queue>:events`, so warden runs this suite once it has streams.
//
// Where time comes from. BullMQ takes every timestamp from the client, never from the server:
// a job's `timestamp` is the producer's Date.now() (dist/esm/classes/job.js:89), the delayed set
// scores a job at (timestamp + delay) * 0x1000 (commands/includes/getDelayedScore.lua), and the
// worker's moveToActive passes its own Date.now() (classes/redis-queue-backend.js, moveToActive)
// to the script that promotes the jobs scored up to it (commands/includes/promoteDelayedJobs.lua).
// No script calls TIME (only the unrelated Relay scripts do). The server's clock only decides
// when the worker's BZPOPMIN on the marker key times out, that is when the worker next looks.
// So on warden a delayed job is released by moving both clocks by the same amount: this
// process's Date.now() (mocked as the real time plus an offset, as warden's clock is the real
// time plus the offset that DEBUG CLOCK ADVANCE adds), then warden's clock, whose advance
// times out the worker's BZPOPMIN at once. On redis-server, which has no DEBUG CLOCK, a delayed
// job waits a short real delay. Neither waits by sleeping: each test awaits the library's events.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { FlowProducer, Job, Queue, QueueEvents, Worker } from 'bullmq';
import Redis from 'ioredis';
import { HOST, TARGETS, waitFor, within } from '../helpers.mjs';

const PREFIX = 'bq';
const HOUR_MS = 3600 * 1000;
// How long a delayed job waits on redis-server, in real time.
const REAL_DELAY_MS = 300;
// How long a test waits for an event before it fails. Covers a worker that, in the unlikely
// interleaving, issued its BZPOPMIN (at most 10 s) just after warden's clock moved.
const EVENT_MS = 15000;

// One test's queue, its BullMQ objects and an ioredis connection of its own, on the target's
// first server. start() flushes the server; close() closes the BullMQ objects in reverse order,
// runs the cleanups (putting warden's clock back), then closes the connection. What fails while
// closing joins `errors`, which each test asserts empty at its end.
class Scenario {
  constructor(target, label) {
    this.target = target;
    this.name = `${label}-${randomBytes(4).toString('hex')}`;
    this.connection = { host: HOST, port: target.ports[0] };
    this.closers = [];
    this.cleanups = [];
    this.errors = [];
  }

  async start() {
    this.redis = new Redis(this.connection);
    this.redis.on('error', (e) => this.errors.push(e));
    assert.equal(await this.redis.flushall(), 'OK');
    return this;
  }

  key(suffix) {
    return `${PREFIX}:${this.name}:${suffix}`;
  }

  track(object) {
    object.on('error', (e) => this.errors.push(e));
    this.closers.push(() => object.close());
    return object;
  }

  queue(opts = {}) {
    return this.track(
      new Queue(this.name, { connection: this.connection, prefix: PREFIX, ...opts }),
    );
  }

  worker(processor, opts = {}) {
    return this.track(
      new Worker(this.name, processor, { connection: this.connection, prefix: PREFIX, ...opts }),
    );
  }

  queueEvents(opts = {}) {
    return this.track(
      new QueueEvents(this.name, { connection: this.connection, prefix: PREFIX, ...opts }),
    );
  }

  flowProducer() {
    return this.track(new FlowProducer({ connection: this.connection, prefix: PREFIX }));
  }

  // Every client the server lists, parsed into objects (CLIENT LIST is the same on both).
  async clients() {
    const text = await this.redis.client('LIST');
    const field = (f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)];
    return text
      .trim()
      .split('\n')
      .map((line) => Object.fromEntries(line.trim().split(' ').map(field)));
  }

  // Resolves once some connection is blocked (flag b) in `command`, optionally named `name`.
  async blockedIn(command, name) {
    await waitFor(
      async () =>
        (await this.clients()).some(
          (c) =>
            c.cmd === command && c.flags.includes('b') && (name === undefined || c.name === name),
        ),
      `a connection blocked in ${command}`,
      5000,
    );
  }

  async close() {
    for (const step of [...this.closers.reverse(), ...this.cleanups]) {
      try {
        await step();
      } catch (e) {
        this.errors.push(e);
      }
    }
    await this.redis.quit();
  }
}

// The first `count` emissions of `event` (each as its argument list) that pass `filter`. Listen
// before doing what emits; awaiting the result waits at most EVENT_MS, counted from the await
// (a result never awaited, in a test that failed earlier, leaves no timer behind).
function collect(emitter, event, count, filter = () => true) {
  const seen = [];
  let done;
  const promise = new Promise((resolve) => {
    done = resolve;
  });
  const listener = (...args) => {
    if (!filter(...args)) return;
    seen.push(args);
    if (seen.length === count) {
      emitter.off(event, listener);
      done(seen);
    }
  };
  emitter.on(event, listener);
  return {
    then(resolve, reject) {
      return within(promise, `${count} '${event}' event(s)`, EVENT_MS).then(resolve, reject);
    },
  };
}

// Makes delayed jobs due. On warden: waiting() resolves once the worker has taken the delay
// marker and sits in BZPOPMIN until the first delayed job's time; advance(ms) then moves this
// process's clock and warden's forward by `ms`, in that order. Warden's advance times the
// BZPOPMIN out, and the worker's next moveToActive carries a timestamp past the job's. On
// redis-server the delay is REAL_DELAY_MS of real time, which passes on its own while the test
// awaits the job's event. Warden's clock goes back to real time when the scenario closes; the
// mocked Date.now() is restored when the test ends.
function timeline(target, t, scenario) {
  if (target.name !== 'warden') {
    return { delayMs: REAL_DELAY_MS, async waiting() {}, async advance() {} };
  }
  const realNow = Date.now;
  let offset = 0;
  t.mock.method(Date, 'now', () => realNow.call(Date) + offset);
  let moved = false;
  scenario.cleanups.push(async () => {
    if (moved) assert.equal(await scenario.redis.call('DEBUG', 'CLOCK', 'REAL'), 'OK');
  });
  return {
    delayMs: HOUR_MS,
    async waiting() {
      const marker = scenario.key('marker');
      const delayed = scenario.key('delayed');
      await waitFor(
        async () =>
          (await scenario.redis.zcard(delayed)) > 0 && (await scenario.redis.zcard(marker)) === 0,
        'a job in the delayed set and its marker taken by the worker',
        5000,
      );
      await scenario.blockedIn('bzpopmin');
    },
    async advance(ms) {
      offset += ms;
      moved = true;
      assert.equal(await scenario.redis.call('DEBUG', 'CLOCK', 'ADVANCE', String(ms)), 'OK');
    },
  };
}

for (const target of TARGETS) {
  describe(`bullmq 6.7.6 [${target.name}]`, () => {
    test('a Worker processes jobs in order and stores their return values', async () => {
      const s = await new Scenario(target, 'basic').start();
      try {
        const queue = s.queue();
        const order = [];
        const worker = s.worker(async (job) => {
          order.push(job.data.n);
          return { doubled: job.data.n * 2, name: job.name };
        });
        const completed = collect(worker, 'completed', 3);
        const added = [];
        for (const n of [1, 2, 3]) added.push(await queue.add('double', { n }));
        assert.deepEqual(added.map((j) => j.id), ['1', '2', '3']);

        const events = await completed;
        assert.deepEqual(order, [1, 2, 3]);
        assert.deepEqual(events.map(([job, result]) => [job.id, result]), [
          ['1', { doubled: 2, name: 'double' }],
          ['2', { doubled: 4, name: 'double' }],
          ['3', { doubled: 6, name: 'double' }],
        ]);
        for (const [job] of events) {
          assert.deepEqual(job.returnvalue, { doubled: job.data.n * 2, name: 'double' });
          const stored = await Job.fromId(queue, job.id);
          assert.deepEqual(stored.returnvalue, job.returnvalue);
          assert.deepEqual(stored.data, { n: job.data.n });
          assert.equal(stored.attemptsMade, 1);
          assert.ok(stored.processedOn >= stored.timestamp, 'processed before it was added');
          assert.ok(stored.finishedOn >= stored.processedOn, 'finished before it was processed');
          assert.equal(await stored.getState(), 'completed');
        }
        assert.deepEqual(await queue.getJobCounts('completed', 'failed', 'wait', 'active'), {
          completed: 3,
          failed: 0,
          wait: 0,
          active: 0,
        });
        assert.deepEqual(await s.redis.zrange(s.key('completed'), 0, -1), ['1', '2', '3']);
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test('QueueEvents hears completed and failed through XREAD BLOCK', async () => {
      const s = await new Scenario(target, 'events').start();
      try {
        const queue = s.queue();
        const events = s.queueEvents();
        // Its first XREAD is at `$`: an event written before it blocks would be missed.
        await s.blockedIn('xread', `${PREFIX}:${Buffer.from(s.name).toString('base64')}:qe`);
        const completed = collect(events, 'completed', 1);
        const failed = collect(events, 'failed', 1);

        s.worker(async (job) => {
          if (job.data.fail) throw new Error('it failed on purpose');
          return `ok ${job.data.n}`;
        });
        const good = await queue.add('good', { n: 7 });
        const bad = await queue.add('bad', { fail: true });

        const [[done, doneId]] = await completed;
        assert.deepEqual(done, { jobId: good.id, returnvalue: 'ok 7', prev: 'active' });
        assert.match(doneId, /^\d+-\d+$/);
        const [[fail, failId]] = await failed;
        assert.deepEqual(fail, {
          jobId: bad.id,
          failedReason: 'it failed on purpose',
          prev: 'active',
        });
        assert.match(failId, /^\d+-\d+$/);

        // waitUntilFinished listens on the same QueueEvents.
        assert.equal(
          await within(good.waitUntilFinished(events), 'good finished', EVENT_MS),
          'ok 7',
        );
        await assert.rejects(within(bad.waitUntilFinished(events), 'bad finished', EVENT_MS), {
          message: 'it failed on purpose',
        });

        // The stream holds the whole history, in order, for each job.
        const entries = await s.redis.xrange(s.key('events'), '-', '+');
        const history = (jobId) =>
          entries
            .map(([, fields]) => Object.fromEntries(fieldPairs(fields)))
            .filter((f) => f.jobId === jobId)
            .map((f) => f.event);
        assert.deepEqual(history(good.id), ['added', 'waiting', 'active', 'completed']);
        assert.deepEqual(history(bad.id), [
          'added',
          'waiting',
          'active',
          'failed',
          'retries-exhausted',
        ]);
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test('fixed backoff retries until the last attempt fails', async () => {
      const s = await new Scenario(target, 'fixed').start();
      try {
        const queue = s.queue();
        const attempts = [];
        const worker = s.worker(async (job) => {
          attempts.push({ n: job.attemptsMade + 1, at: Date.now() });
          throw new Error(`attempt ${job.attemptsMade + 1} failed`);
        });
        const failures = collect(worker, 'failed', 3);
        const job = await queue.add(
          'flaky',
          {},
          { attempts: 3, backoff: { type: 'fixed', delay: 100 } },
        );

        const seen = await failures;
        assert.deepEqual(
          seen.map(([j, err]) => [j.id, j.attemptsMade, err.message]),
          [
            [job.id, 1, 'attempt 1 failed'],
            [job.id, 2, 'attempt 2 failed'],
            [job.id, 3, 'attempt 3 failed'],
          ],
        );
        assert.deepEqual(attempts.map((a) => a.n), [1, 2, 3]);
        // Each retry waited in the delayed set for its backoff.
        for (let i = 1; i < attempts.length; i++) {
          const gap = attempts[i].at - attempts[i - 1].at;
          assert.ok(gap >= 100, `attempt ${i + 1} started ${gap} ms after attempt ${i} failed`);
        }
        const stored = await Job.fromId(queue, job.id);
        assert.equal(await stored.getState(), 'failed');
        assert.equal(stored.attemptsMade, 3);
        assert.equal(stored.failedReason, 'attempt 3 failed');
        assert.equal(stored.stacktrace.length, 3);
        assert.deepEqual(await queue.getJobCounts('failed', 'delayed', 'wait'), {
          failed: 1,
          delayed: 0,
          wait: 0,
        });
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test('exponential backoff retries until an attempt succeeds', async () => {
      const s = await new Scenario(target, 'exponential').start();
      try {
        const queue = s.queue();
        const attempts = [];
        const worker = s.worker(async (job) => {
          const n = job.attemptsMade + 1;
          attempts.push({ n, at: Date.now() });
          if (n < 4) throw new Error(`not yet (${n})`);
          return `succeeded on attempt ${n}`;
        });
        const failedAttempts = [];
        worker.on('failed', (j, err) => failedAttempts.push([j.attemptsMade, err.message]));
        const completed = collect(worker, 'completed', 1);
        const job = await queue.add(
          'eventually',
          {},
          { attempts: 5, backoff: { type: 'exponential', delay: 40 } },
        );

        const [[done, result]] = await completed;
        assert.equal(done.id, job.id);
        assert.equal(result, 'succeeded on attempt 4');
        assert.deepEqual(failedAttempts, [
          [1, 'not yet (1)'],
          [2, 'not yet (2)'],
          [3, 'not yet (3)'],
        ]);
        // Backoff 40 * 2^(n-1) after the n-th failure: 40, 80, 160 ms.
        for (const [i, wait] of [[1, 40], [2, 80], [3, 160]]) {
          const gap = attempts[i].at - attempts[i - 1].at;
          assert.ok(gap >= wait, `attempt ${i + 1} came ${gap} ms after attempt ${i}, not ${wait}`);
        }
        const stored = await Job.fromId(queue, job.id);
        assert.equal(await stored.getState(), 'completed');
        assert.equal(stored.returnvalue, 'succeeded on attempt 4');
        assert.equal(stored.attemptsMade, 4);
        assert.equal(stored.failedReason, 'not yet (3)');
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test('a delayed job runs once its delay is over', async (t) => {
      const s = await new Scenario(target, 'delayed').start();
      const time = timeline(target, t, s);
      try {
        const queue = s.queue();
        const worker = s.worker(async (job) => `ran ${job.data.n}`);
        const completed = collect(worker, 'completed', 1);
        const job = await queue.add('later', { n: 1 }, { delay: time.delayMs });

        // Scored by the producer's clock: (timestamp + delay) * 0x1000, plus a counter.
        const score = Number(await s.redis.zscore(s.key('delayed'), job.id));
        assert.equal(Math.floor(score / 0x1000), job.timestamp + time.delayMs);
        await time.waiting();
        if (target.name === 'warden') {
          // The worker has seen the job and waits: nothing happens until the clocks move.
          assert.equal(await job.getState(), 'delayed');
        }
        await time.advance(time.delayMs);

        const [[done, result]] = await completed;
        assert.equal(done.id, job.id);
        assert.equal(result, 'ran 1');
        const stored = await Job.fromId(queue, job.id);
        assert.equal(stored.returnvalue, 'ran 1');
        assert.ok(
          stored.processedOn - stored.timestamp >= time.delayMs,
          `processed ${stored.processedOn - stored.timestamp} ms after it was added`,
        );
        assert.equal(await s.redis.zcard(s.key('delayed')), 0);
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test('the rate limiter lets max jobs through per duration', async () => {
      const s = await new Scenario(target, 'limited').start();
      const duration = 400;
      try {
        const queue = s.queue();
        const seen = [];
        // Concurrency 1: while a job runs no other is taken, so the limiter key's count read here
        // is the one this job's moveToActive left.
        const worker = s.worker(
          async (job) => {
            const [count, pttl] = await Promise.all([
              s.redis.get(s.key('limiter')),
              s.redis.pttl(s.key('limiter')),
            ]);
            seen.push({ n: job.data.n, processedOn: job.processedOn, count, pttl });
            return job.data.n;
          },
          { limiter: { max: 2, duration }, concurrency: 1 },
        );
        const completed = collect(worker, 'completed', 6);
        await queue.addBulk([1, 2, 3, 4, 5, 6].map((n) => ({ name: 'limited', data: { n } })));
        await completed;

        assert.deepEqual(seen.map((e) => e.n), [1, 2, 3, 4, 5, 6]);
        assert.deepEqual(seen.map((e) => e.count), ['1', '2', '1', '2', '1', '2']);
        for (const e of seen) {
          assert.ok(
            e.pttl > 0 && e.pttl <= duration,
            `limiter PTTL ${e.pttl} not in (0, ${duration}]`,
          );
        }
        // A window opens only after the previous one's key expired. processedOn is the worker's
        // clock when it asked for the job, a little before the server saw the request: 50 ms
        // of slack.
        for (const i of [2, 4]) {
          const gap = seen[i].processedOn - seen[i - 2].processedOn;
          assert.ok(
            gap >= duration - 50,
            `window ${i / 2 + 1} opened ${gap} ms after the previous`,
          );
        }
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test("a flow's parent runs after its children and reads their values", async () => {
      const s = await new Scenario(target, 'flow').start();
      try {
        const queue = s.queue();
        const flow = s.flowProducer();
        const tree = await flow.add({
          name: 'sum',
          queueName: s.name,
          data: {},
          children: [1, 2, 3].map((n) => ({ name: 'part', queueName: s.name, data: { n } })),
        });
        const parent = tree.job;
        assert.equal(tree.children.length, 3);
        assert.equal(await parent.getState(), 'waiting-children');
        assert.deepEqual(await parent.getDependenciesCount(), {
          processed: 0,
          unprocessed: 3,
          ignored: 0,
          failed: 0,
        });

        const finished = {};
        const worker = s.worker(async (job) => {
          if (job.name === 'part') return job.data.n * 10;
          const values = await job.getChildrenValues();
          return { values, total: Object.values(values).reduce((a, b) => a + b, 0) };
        });
        worker.on('completed', (job) => {
          finished[job.id] = job.finishedOn;
        });
        const [[done, result]] = await collect(worker, 'completed', 1, (job) => job.name === 'sum');

        assert.equal(done.id, parent.id);
        const expected = {};
        for (const child of tree.children) {
          expected[s.key(child.job.id)] = child.job.data.n * 10;
          assert.ok(
            done.processedOn >= finished[child.job.id],
            'the parent ran before a child finished',
          );
        }
        assert.deepEqual(result, { values: expected, total: 60 });
        assert.deepEqual(await parent.getChildrenValues(), expected);
        assert.equal(await parent.getState(), 'completed');
        assert.deepEqual(await parent.getDependenciesCount(), {
          processed: 3,
          unprocessed: 0,
          ignored: 0,
          failed: 0,
        });
        assert.deepEqual(await queue.getJobCounts('completed', 'waiting-children'), {
          completed: 4,
          'waiting-children': 0,
        });
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test('a job scheduler repeats its job every interval', async (t) => {
      const s = await new Scenario(target, 'repeat').start();
      const time = timeline(target, t, s);
      try {
        const queue = s.queue();
        const worker = s.worker(async (job) => `tick ${job.data.tag}`);
        const ticks = [];
        worker.on('completed', (job, result) => ticks.push([job, result]));
        const first = collect(worker, 'completed', 1);
        const next = await queue.upsertJobScheduler(
          'ticker',
          { every: time.delayMs },
          { name: 'tick', data: { tag: 'x' } },
        );
        assert.equal(next.name, 'tick');

        const schedulers = await queue.getJobSchedulers();
        assert.equal(schedulers.length, 1);
        assert.equal(schedulers[0].key, 'ticker');
        assert.equal(schedulers[0].name, 'tick');
        assert.equal(schedulers[0].every, time.delayMs);
        assert.equal(await queue.getJobSchedulersCount(), 1);

        await first;
        // The first run comes at once; the next is delayed by the interval.
        const second = collect(worker, 'completed', 1);
        await time.waiting();
        await time.advance(time.delayMs);
        await second;

        assert.equal(ticks.length >= 2, true);
        const [[a, ra], [b, rb]] = ticks;
        assert.deepEqual([ra, rb], ['tick x', 'tick x']);
        for (const job of [a, b]) assert.equal(job.repeatJobKey, 'ticker');
        // Each run's id carries the instant it is due: the first is due when it was upserted,
        // the next one interval later.
        assert.equal(a.id, next.id);
        const [, dueA] = a.id.match(/^repeat:ticker:(\d+)$/).map(Number);
        assert.equal(b.id, `repeat:ticker:${dueA + time.delayMs}`);
        assert.ok(
          b.processedOn >= dueA + time.delayMs,
          `the second run came ${b.processedOn - dueA} ms after the first was due`,
        );
        assert.equal((await queue.getJobScheduler('ticker')).key, 'ticker');

        assert.equal(await queue.removeJobScheduler('ticker'), true);
        assert.deepEqual(await queue.getJobSchedulers(), []);
        assert.equal(await queue.getJobSchedulersCount(), 0);
        assert.equal(await queue.getDelayedCount(), 0);
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test('job.remove, removeOnComplete and removeOnFail delete jobs', async () => {
      const s = await new Scenario(target, 'remove').start();
      try {
        const queue = s.queue();
        // job.remove() on a waiting job, before any worker runs.
        const doomed = await queue.add('doomed', { n: 0 });
        assert.equal(await s.redis.exists(s.key(doomed.id)), 1);
        await doomed.remove();
        assert.equal(await Job.fromId(queue, doomed.id), undefined);
        assert.equal(await s.redis.exists(s.key(doomed.id)), 0);
        assert.deepEqual(await s.redis.lrange(s.key('wait'), 0, -1), []);

        const worker = s.worker(async (job) => {
          if (job.data.fail) throw new Error('failed to be removed');
          return 'done';
        });
        const completed = collect(worker, 'completed', 2);
        const failed = collect(worker, 'failed', 2);
        const kept = await queue.add('kept', {});
        const gone = await queue.add('gone', {}, { removeOnComplete: true });
        const keptFail = await queue.add('kept-fail', { fail: true });
        const goneFail = await queue.add('gone-fail', { fail: true }, { removeOnFail: true });
        await Promise.all([completed, failed]);

        assert.equal((await Job.fromId(queue, kept.id)).returnvalue, 'done');
        assert.equal(await Job.fromId(queue, gone.id), undefined);
        assert.equal((await Job.fromId(queue, keptFail.id)).failedReason, 'failed to be removed');
        assert.equal(await Job.fromId(queue, goneFail.id), undefined);
        assert.deepEqual(await s.redis.zrange(s.key('completed'), 0, -1), [kept.id]);
        assert.deepEqual(await s.redis.zrange(s.key('failed'), 0, -1), [keptFail.id]);
        assert.equal(await s.redis.exists(s.key(gone.id), s.key(goneFail.id)), 0);

        // A finished job can be removed too.
        await (await Job.fromId(queue, kept.id)).remove();
        assert.deepEqual(await s.redis.zrange(s.key('completed'), 0, -1), []);
        assert.equal(await s.redis.exists(s.key(kept.id)), 0);
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });

    test('obliterate removes every key of the queue', async () => {
      const s = await new Scenario(target, 'obliterate').start();
      try {
        const queue = s.queue();
        const worker = s.worker(async () => 'done');
        const completed = collect(worker, 'completed', 2);
        await queue.addBulk([{ name: 'a', data: {} }, { name: 'b', data: {} }]);
        await completed;
        await worker.close();
        await queue.add('waiting', {});
        await queue.add('delayed', {}, { delay: HOUR_MS });
        await queue.add('prioritized', {}, { priority: 3 });
        assert.deepEqual(await queue.getJobCounts('completed', 'wait', 'delayed', 'prioritized'), {
          completed: 2,
          wait: 1,
          delayed: 1,
          prioritized: 1,
        });
        // Another queue's keys stay.
        const other = s.track(
          new Queue(`${s.name}-other`, { connection: s.connection, prefix: PREFIX }),
        );
        await other.add('stays', {});
        const otherKeys = (await s.redis.keys(`${PREFIX}:${s.name}-other:*`)).sort();

        await queue.obliterate();
        assert.deepEqual(await s.redis.keys(`${PREFIX}:${s.name}:*`), []);
        assert.deepEqual((await s.redis.keys(`${PREFIX}:${s.name}-other:*`)).sort(), otherKeys);
        assert.deepEqual(await queue.getJobCounts('completed', 'wait', 'delayed', 'prioritized'), {
          completed: 0,
          wait: 0,
          delayed: 0,
          prioritized: 0,
        });
      } finally {
        await s.close();
      }
      assert.deepEqual(s.errors, []);
    });
  });
}

function* fieldPairs(fields) {
  for (let i = 0; i < fields.length; i += 2) yield [fields[i], fields[i + 1]];
}
