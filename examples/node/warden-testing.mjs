// warden as the Redis of a Node test suite: start a server, move its clock, snapshot and
// restore its data, inject faults, read the commands your code sent. No dependencies: every
// control takes your ioredis client and sends a DEBUG subcommand with client.call().
//
//   import Redis from 'ioredis';
//   import { startWarden, freeze, advance } from './warden-testing.mjs';
//   const server = await startWarden();                 // $WARDEN_BINARY, or warden on PATH
//   const r = new Redis(server.port);
//   await freeze(r);
//   await r.set('lock', 'me', 'PX', 30000, 'NX');
//   await advance(r, 30000);                            // the lease is over, no sleep
//   await server.stop();
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const START_TIMEOUT_MS = 10000;

// Starts warden on a free loopback port with the debug controls on. `args` are more
// redis-server style options; `seed` fixes every random choice (fault probabilities too).
export async function startWarden({ binary, args = [], seed } = {}) {
  binary ??= process.env.WARDEN_BINARY ?? 'warden';
  const dir = await mkdtemp(join(tmpdir(), 'warden-testing.'));
  const portFile = join(dir, 'port');
  const argv = ['--port', '0', '--port-file', portFile, '--bind', '127.0.0.1',
    '--enable-debug-command', 'yes', ...args];
  if (seed !== undefined) argv.push('--seed', String(seed));
  const child = spawn(binary, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (chunk) => { log += chunk; });
  child.stderr.on('data', (chunk) => { log += chunk; });
  let exited = false;
  const exit = new Promise((resolve) => child.on('close', () => { exited = true; resolve(); }));
  child.on('error', (e) => { log += String(e); });

  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    await exit;
    await rm(dir, { recursive: true, force: true });
  };
  // The port file appears, complete, once connections are accepted.
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && !exited) {
    const text = await readFile(portFile, 'utf8').catch(() => '');
    if (text) return { port: Number(text), pid: child.pid, stop, log: () => log };
    await sleep(5);
  }
  await stop();
  throw new Error(`warden did not start:\n${log}`);
}

// --- The clock ------------------------------------------------------------------------------

export async function nowMs(r) {
  const [, ms] = await r.call('DEBUG', 'CLOCK');
  return Number(ms);
}

export const freeze = (r, atMs) =>
  r.call('DEBUG', 'CLOCK', 'FREEZE', ...(atMs === undefined ? [] : [String(atMs)]));
export const advance = (r, ms) => r.call('DEBUG', 'CLOCK', 'ADVANCE', String(ms));
export const realClock = (r) => r.call('DEBUG', 'CLOCK', 'REAL');

// Resolves once at least `count` clients are blocked in a blocking command; rejects after
// `timeoutMs` of real time.
export const waitBlocked = (r, count, timeoutMs = 5000) =>
  r.call('DEBUG', 'WAIT-BLOCKED', String(count), String(timeoutMs));

// --- Snapshots ------------------------------------------------------------------------------

export const snapshot = (r, name = 'default') => r.call('DEBUG', 'SNAPSHOT', 'SAVE', name);
export const restore = (r, name = 'default') => r.call('DEBUG', 'SNAPSHOT', 'LOAD', name);
export const dropSnapshot = (r, name = 'default') => r.call('DEBUG', 'SNAPSHOT', 'DROP', name);

// --- Faults ---------------------------------------------------------------------------------

// fault(r, ['ERROR', 'LOADING warden is loading'], { command: 'get', key: 'lock:*', times: 1 })
// Actions: ['ERROR', text], ['DELAY', ms] or ['DELAY', ms, 'JITTER', ms], ['DROP'],
// ['DROP-AFTER']. Resolves to { id, remove() }.
export async function fault(r, action, { command, key, clientName, after, times, probability } = {}) {
  const args = ['DEBUG', 'FAULT', 'ADD'];
  for (const [option, value] of [['COMMAND', command], ['KEY', key], ['CLIENT-NAME', clientName],
    ['AFTER', after], ['TIMES', times], ['PROBABILITY', probability]]) {
    if (value !== undefined) args.push(option, String(value));
  }
  args.push(...action.map(String));
  const id = await r.call(...args);
  return { id, remove: () => r.call('DEBUG', 'FAULT', 'DEL', String(id)) };
}

export const clearFaults = (r) => r.call('DEBUG', 'FAULT', 'CLEAR');

// --- The command log ------------------------------------------------------------------------

// Starts an empty log. The returned object reads it: entries() oldest first, commands() as
// arrays of strings with the name lower-cased, stop() turns the log off.
export async function commandLog(r, maxEntries) {
  await r.call('DEBUG', 'COMMAND-LOG', 'ON', ...(maxEntries === undefined ? [] : [String(maxEntries)]));
  await r.call('DEBUG', 'COMMAND-LOG', 'RESET');
  const entries = async () => {
    const raw = await r.call('DEBUG', 'COMMAND-LOG', 'GET');
    return raw.map(([seq, timeMs, clientId, clientName, db, args, origin]) => ({
      seq: Number(seq), timeMs: Number(timeMs), clientId: Number(clientId),
      clientName: String(clientName), db: Number(db), args: args.map(String), origin: String(origin),
    }));
  };
  return {
    entries,
    async commands({ includeScripts = true } = {}) {
      return (await entries())
        .filter((e) => includeScripts || e.origin !== 'script')
        .map((e) => [e.args[0].toLowerCase(), ...e.args.slice(1)]);
    },
    reset: () => r.call('DEBUG', 'COMMAND-LOG', 'RESET'),
    stop: () => r.call('DEBUG', 'COMMAND-LOG', 'OFF'),
  };
}

// Commands warden answered as unknown since start or CONFIG RESETSTAT: { name: count }, a
// subcommand as 'config|nosuch'.
export async function unsupported(r) {
  const flat = await r.call('DEBUG', 'UNSUPPORTED');
  const counts = {};
  for (let i = 0; i + 1 < flat.length; i += 2) counts[String(flat[i])] = Number(flat[i + 1]);
  return counts;
}

// Between two tests: no log, no fault rules, the real clock, no data.
export async function cleanSlate(r) {
  await r.call('DEBUG', 'COMMAND-LOG', 'OFF');
  await clearFaults(r);
  await realClock(r);
  await r.flushall();
}
