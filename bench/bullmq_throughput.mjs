// BullMQ's job throughput against one server: add --jobs jobs to a fresh queue, then process them
// with one Worker at --concurrency (10), timing both phases. bench/streams_section.py runs it
// against warden and redis-server in alternating rounds, on the load generators' core.
//
//     node bench/bullmq_throughput.mjs --port 6379 [--jobs 20000] [--concurrency 10]
//         [--in-flight 50] [--queue bench]
//
// Adding: queue.add() with up to --in-flight adds awaiting at once (a web tier enqueueing from
// many requests): each is BullMQ's addStandardJob script by EVALSHA on the Queue's connection.
// Processing: a Worker whose processor returns a small object at once, so each job costs its
// moveToActive, its moveToFinished (which also fetches the next job) and the worker's marker
// BZPOPMIN when the queue runs dry; every step XADDs to the queue's event stream (MAXLEN ~
// 10,000 by default). BullMQ's defaults otherwise: completed jobs are kept.
//
// Prints one JSON line: {"jobs":..,"add_s":..,"process_s":..,"add_per_sec":..,
// "process_per_sec":..,"jobs_per_sec":..,"completed":..,"failed":..,"waiting":..,
// "events":..}, jobs_per_sec being jobs / (add_s + process_s). The server should be empty
// (the runner FLUSHALLs it first). BullMQ and ioredis come from tests/clients/node/node_modules.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const require = createRequire(new URL('../tests/clients/node/package.json', import.meta.url));
const { Queue, Worker } = require('bullmq');
const Redis = require('ioredis');

const { values: opts } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string' },
    jobs: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '10' },
    'in-flight': { type: 'string', default: '50' },
    queue: { type: 'string', default: 'bench' },
  },
});
if (!opts.port) {
  console.error('usage: node bench/bullmq_throughput.mjs --port PORT [--jobs N]');
  process.exit(2);
}
const jobs = Number(opts.jobs);
const concurrency = Number(opts.concurrency);
const inFlight = Number(opts['in-flight']);
const connection = { host: opts.host, port: Number(opts.port), maxRetriesPerRequest: null };

const errors = [];
const queue = new Queue(opts.queue, { connection });
queue.on('error', (e) => errors.push(e));
await queue.waitUntilReady();

// A job as an application would enqueue it: a type and a small payload.
function payload(i) {
  return { orderId: i, email: `user${i}@example.com`, template: 'order-confirmation' };
}

const addStart = process.hrtime.bigint();
let next = 0;
async function adder() {
  while (next < jobs) {
    const i = next++;
    await queue.add('email', payload(i));
  }
}
await Promise.all(Array.from({ length: Math.min(inFlight, jobs) }, adder));
const addNs = process.hrtime.bigint() - addStart;

let completed = 0;
let failed = 0;
let resolveDone;
const done = new Promise((resolve) => {
  resolveDone = resolve;
});
const processStart = process.hrtime.bigint();
const worker = new Worker(
  opts.queue,
  async (job) => ({ sent: true, orderId: job.data.orderId }),
  { connection, concurrency },
);
worker.on('error', (e) => errors.push(e));
worker.on('completed', () => {
  if (++completed + failed === jobs) resolveDone();
});
worker.on('failed', (job, e) => {
  errors.push(e);
  if (completed + ++failed === jobs) resolveDone();
});
await done;
const processNs = process.hrtime.bigint() - processStart;

const counts = await queue.getJobCounts('completed', 'failed', 'wait', 'active');
const client = new Redis(connection);
const events = await client.xlen(`bull:${opts.queue}:events`);
client.disconnect();
await worker.close();
await queue.close();

const addS = Number(addNs) / 1e9;
const processS = Number(processNs) / 1e9;
console.log(
  JSON.stringify({
    jobs,
    concurrency,
    in_flight: inFlight,
    add_s: addS,
    process_s: processS,
    add_per_sec: jobs / addS,
    process_per_sec: jobs / processS,
    jobs_per_sec: jobs / (addS + processS),
    completed: counts.completed,
    failed: counts.failed,
    waiting: counts.wait + counts.active,
    events,
    errors: errors.map(String).slice(0, 3),
  }),
);
process.exit(errors.length === 0 && counts.completed === jobs ? 0 : 1);
