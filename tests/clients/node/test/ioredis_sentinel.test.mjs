// ioredis's `sentinels` option across a failover: a master and a replica of one kind (warden,
// or redis-server for the reference), one Sentinel (quorum 1, down-after 1000 ms) watching
// them. A client connected through Sentinel writes lock keys in a loop; the master is killed
// with SIGKILL; Sentinel promotes the replica and the client, which finds the master by asking
// Sentinel again, keeps writing there. Every process is started here, on free loopback ports
// in a temp directory of its own, and stopped by its pid.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Redis from 'ioredis';
import { once } from 'node:events';
import { HOST } from '../helpers.mjs';

const REDIS_SERVER = '/usr/bin/redis-server';
const WARDEN = process.env.WARDEN_BIN;
const DEADLINE_MS = 30000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function start(binary, args, dir) {
  const child = spawn(binary, args, { cwd: dir, stdio: 'ignore' });
  return child;
}

// Polls `probe` until it returns a truthy value or the deadline passes. Between tries it waits
// (at most 50 ms) on `watched` exiting, which fails the wait at once.
async function waitFor(what, probe, watched, timeoutMs = DEADLINE_MS) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    if (watched.exitCode !== null || watched.signalCode !== null) {
      throw new Error(`a server exited while waiting for ${what}`);
    }
    try {
      await once(watched, 'exit', { signal: AbortSignal.timeout(50) });
    } catch {
      // still running: try again
    }
  }
}

async function infoField(port, field) {
  const c = new Redis({ port, host: HOST, lazyConnect: true, maxRetriesPerRequest: 0,
    retryStrategy: () => null });
  c.on('error', () => {});
  try {
    await c.connect();
    const info = await c.info('replication');
    const line = info.split('\r\n').find((l) => l.startsWith(field + ':'));
    return line ? line.slice(field.length + 1) : '';
  } finally {
    c.disconnect();
  }
}

for (const kind of ['redis-server', 'warden']) {
  describe(`ioredis sentinels across a failover [${kind}]`, () => {
    it('keeps writing to the promoted replica after the master is killed', async () => {
      const binary = kind === 'warden' ? WARDEN : REDIS_SERVER;
      assert.ok(binary, 'WARDEN_BIN is not set: run through tests/clients/run.sh');
      const dir = mkdtempSync(path.join(tmpdir(), 'ioredis-sentinel-'));
      const children = [];
      let client;
      try {
        const [masterPort, replicaPort, sentinelPort] = [
          await freePort(), await freePort(), await freePort()];
        const common = ['--save', '', '--repl-diskless-sync-delay', '0'];
        const master = start(binary, ['--port', String(masterPort), '--dir', dir,
          '--dbfilename', 'm.rdb', ...common], dir);
        children.push(master);
        const replica = start(binary, ['--port', String(replicaPort), '--dir', dir,
          '--dbfilename', 'r.rdb', '--replicaof', HOST, String(masterPort), ...common], dir);
        children.push(replica);
        await waitFor('the replica to sync',
          async () => (await infoField(replicaPort, 'master_link_status')) === 'up', replica);
        const conf = path.join(dir, 'sentinel.conf');
        writeFileSync(conf, [
          `port ${sentinelPort}`, 'bind 127.0.0.1', `dir ${dir}`,
          `sentinel monitor mymaster ${HOST} ${masterPort} 1`,
          'sentinel down-after-milliseconds mymaster 1000',
          'sentinel failover-timeout mymaster 5000', ''].join('\n'));
        const sentinel = start(REDIS_SERVER, [conf, '--sentinel'], dir);
        children.push(sentinel);
        await waitFor('Sentinel to see the replica', async () => {
          const s = new Redis({ port: sentinelPort, host: HOST, lazyConnect: true,
            retryStrategy: () => null });
          s.on('error', () => {});
          try {
            await s.connect();
            const replicas = await s.call('SENTINEL', 'REPLICAS', 'mymaster');
            return replicas.length === 1;
          } finally {
            s.disconnect();
          }
        }, sentinel);

        client = new Redis({
          sentinels: [{ host: HOST, port: sentinelPort }], name: 'mymaster',
          sentinelRetryStrategy: () => 100, retryStrategy: () => 100,
        });
        // Refused connections while no master is up are expected; the writes below say whether
        // the client got through.
        client.on('error', () => {});
        let written = 0;
        const write = async () => {
          await client.set(`lock:${written}`, `token-${written}`, 'PX', 600000);
          written += 1;
        };
        for (let i = 0; i < 20; i += 1) await write();
        master.kill('SIGKILL');
        const killedAt = Date.now();
        // Writes fail while no master is up; they succeed again once Sentinel promoted the
        // replica and the client asked it where the master is.
        await waitFor('a write after the failover', async () => {
          await write();
          return true;
        }, replica);
        const tookMs = Date.now() - killedAt;
        for (let i = 0; i < 20; i += 1) await write();
        const role = await client.call('ROLE');
        assert.equal(role[0], 'master');
        const server = await client.info('server');
        assert.match(server, new RegExp(`\r\ntcp_port:${replicaPort}\r\n`));
        assert.equal(await client.get(`lock:${written - 1}`), `token-${written - 1}`);
        assert.equal(await infoField(replicaPort, 'role'), 'master');
        console.log(`[${kind}] failover seen by the client after ${tookMs} ms`);
      } finally {
        if (client) client.disconnect();
        for (const child of children) {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        }
        await Promise.all(children.map((child) => (child.exitCode !== null || child.signalCode
          ? null : new Promise((resolve) => child.once('exit', resolve)))));
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
