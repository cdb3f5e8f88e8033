// warden as the Redis of a Node test suite: started on a port the kernel picks, read back from
// the port file, and its clock moved forward instead of sleeping through a 30 s lease.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Redis from 'ioredis';

const WARDEN = process.env.WARDEN_BINARY ?? 'warden';
let server;
let dir;
let redis;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'warden-'));
  const portFile = join(dir, 'port');
  server = spawn(WARDEN, ['--port', '0', '--port-file', portFile,
    '--enable-debug-command', 'local', '--loglevel', 'warning'], { stdio: 'inherit' });
  const deadline = Date.now() + 10_000;
  while (!existsSync(portFile)) {
    assert.ok(Date.now() < deadline, 'warden did not start');
    assert.equal(server.exitCode, null, 'warden exited during start-up');
    await delay(1);
  }
  const port = Number(readFileSync(portFile, 'utf8'));
  redis = new Redis({ host: '127.0.0.1', port });
});

after(async () => {
  redis?.disconnect();
  server?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

test('a 30 s lease expires when the clock moves 30 s', async () => {
  await redis.call('DEBUG', 'CLOCK', 'FREEZE');
  assert.equal(await redis.set('lock:job', 'owner1', 'PX', 30000, 'NX'), 'OK');
  assert.equal(await redis.pttl('lock:job'), 30000);
  assert.equal(await redis.set('lock:job', 'owner2', 'PX', 30000, 'NX'), null);
  await redis.call('DEBUG', 'CLOCK', 'ADVANCE', 30000);
  assert.equal(await redis.exists('lock:job'), 0);
  assert.equal(await redis.set('lock:job', 'owner2', 'PX', 30000, 'NX'), 'OK');
  assert.equal(await redis.get('lock:job'), 'owner2');
});

test('compare-and-delete refuses a stale owner after re-acquisition', async () => {
  await redis.call('DEBUG', 'CLOCK', 'FREEZE');
  const release =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
  assert.equal(await redis.set('lock:order', 'a', 'PX', 1000, 'NX'), 'OK');
  await redis.call('DEBUG', 'CLOCK', 'ADVANCE', 1000);
  assert.equal(await redis.set('lock:order', 'b', 'PX', 1000, 'NX'), 'OK');
  assert.equal(await redis.eval(release, 1, 'lock:order', 'a'), 0);
  assert.equal(await redis.get('lock:order'), 'b');
  assert.equal(await redis.eval(release, 1, 'lock:order', 'b'), 1);
});
