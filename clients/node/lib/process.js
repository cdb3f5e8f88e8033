// Starting and stopping the warden process. The binary is `options.binary`, else
// $WARDEN_BINARY, else `warden` on PATH. warden gets a port the kernel picks (--port 0) and
// writes it to a port file once it accepts connections, so test files running in parallel never
// collide; its files (a SAVE, an AOF) go to a temporary directory removed on stop.
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;
const PORT_FILE_POLL_MS = 2;
const LOG_LIMIT_CHARS = 1 << 20;  // the newest megabyte of warden's output is kept

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function findBinary(binary, env = process.env) {
  if (binary !== undefined) {
    if (isExecutable(binary)) return resolve(binary);
    throw new Error(
      `warden-testing: the binary option is ${binary}, which is not an executable file`);
  }
  if (env.WARDEN_BINARY) {
    if (isExecutable(env.WARDEN_BINARY)) return resolve(env.WARDEN_BINARY);
    throw new Error(
      `warden-testing: WARDEN_BINARY is ${env.WARDEN_BINARY}, which is not an executable file`);
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, 'warden'))) return resolve(dir, 'warden');
  }
  throw new Error('warden-testing: no warden binary: WARDEN_BINARY is not set and there is ' +
    `no warden on PATH (${env.PATH ?? ''}); build warden and set WARDEN_BINARY to it`);
}

// Every running warden, killed if the test process exits without stopping it.
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

// The command line: ours first, so that `config` and `args` can override any of it.
export function wardenArgs({ port = 0, seed, config = {}, args = [] }, dir) {
  const argv = ['--port', String(port), '--port-file', join(dir, 'port'), '--bind', HOST,
    '--enable-debug-command', 'local', '--save', '', '--dir', dir];
  if (seed !== undefined) argv.push('--seed', String(seed));
  for (const [name, value] of Object.entries(config)) {
    argv.push(`--${name}`, ...(Array.isArray(value) ? value.map(String) : [String(value)]));
  }
  return [...argv, ...args.map(String)];
}

// Resolves to { port, pid, log(), stop() } once warden accepts connections. Rejects with
// warden's own words (what it wrote to stderr, then its log) if it exits first.
export async function spawnWarden(options) {
  const binary = findBinary(options.binary);
  const dir = await mkdtemp(join(tmpdir(), 'warden-testing-'));
  const child = spawn(binary, wardenArgs(options, dir), { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  const keep = (text, chunk) => (text + chunk).slice(-LOG_LIMIT_CHARS);
  child.stdout.setEncoding('utf8').on('data', (chunk) => { stdout = keep(stdout, chunk); });
  child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr = keep(stderr, chunk); });
  const log = () => stderr + stdout;
  let exit = null;
  let spawnError = null;
  const closed = new Promise((resolve) => {
    child.on('error', (error) => { spawnError = error; });
    child.on('close', (code, signal) => {
      exit = { code, signal };
      running.delete(child);
      resolve();
    });
  });

  let stopping = null;
  const stop = () => {
    stopping ??= (async () => {
      child.ref();
      if (exit === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await closed;
      clearTimeout(timer);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  const timeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(join(dir, 'port'), 'utf8').catch(() => '');
    if (text) {
      child.unref();
      child.stdout.unref();
      child.stderr.unref();
      return { port: Number(text), pid: child.pid, log, stop };
    }
    if (exit !== null || spawnError !== null || Date.now() > deadline) break;
    await delay(PORT_FILE_POLL_MS);
  }
  const why = spawnError ? `could not run ${binary}: ${spawnError.message}`
    : exit === null ? `warden did not start within ${timeoutMs} ms`
    : `warden exited during start-up (${exit.signal ?? `status ${exit.code}`})`;
  await stop();
  const error = new Error(`warden-testing: ${why}:\n${log().trim()}`);
  error.log = log();
  throw error;
}
