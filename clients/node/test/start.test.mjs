// How startWarden fails: without a binary it says where it looked; when warden refuses to start
// it rejects with warden's own words.
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startWarden } from 'warden-testing';

const WARDEN = process.env.WARDEN_BINARY;

// Runs `fn` with process.env changed as given (undefined deletes), then puts it back.
async function withEnv(changes, fn) {
  const saved = Object.fromEntries(Object.keys(changes).map((k) => [k, process.env[k]]));
  const apply = (values) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(changes);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

describe('finding the binary', () => {
  let dir;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'warden-testing-test-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('neither WARDEN_BINARY nor PATH has warden: the error names both', async () => {
    await withEnv({ WARDEN_BINARY: undefined, PATH: dir }, () =>
      assert.rejects(startWarden(), {
        message: 'warden-testing: no warden binary: WARDEN_BINARY is not set and there is no ' +
          `warden on PATH (${dir}); build warden and set WARDEN_BINARY to it`,
      }));
  });

  test('WARDEN_BINARY names a file that is not there', async () => {
    const missing = join(dir, 'nowhere', 'warden');
    await withEnv({ WARDEN_BINARY: missing }, () =>
      assert.rejects(startWarden(), {
        message: `warden-testing: WARDEN_BINARY is ${missing}, which is not an executable file`,
      }));
  });

  test('without WARDEN_BINARY, warden on PATH is used', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'warden'), `#!/bin/sh\nexec '${WARDEN}' "$@"\n`);
    await chmod(join(bin, 'warden'), 0o755);
    const warden = await withEnv({ WARDEN_BINARY: undefined, PATH: `${bin}:${process.env.PATH}` },
      () => startWarden());
    try {
      assert.equal(await warden.command('PING'), 'PONG');
    } finally {
      await warden.stop();
    }
  });

  test('the binary option comes before WARDEN_BINARY', async () => {
    const warden = await withEnv({ WARDEN_BINARY: join(dir, 'nowhere') },
      () => startWarden({ binary: WARDEN }));
    await warden.stop();
  });
});

describe('warden refuses to start', () => {
  test('a bad option: warden\'s config error', async () => {
    await assert.rejects(startWarden({ config: { maxmemory: 'lots' } }), (error) => {
      assert.match(error.message, /^warden-testing: warden exited during start-up \(status 1\):\n/);
      assert.ok(error.message.includes([
        '*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***',
        'Reading the configuration file, at line 8',
        '>>> \'maxmemory "lots"\'',
        'argument must be a memory value',
      ].join('\n')), error.message);
      return true;
    });
  });

  test('an unknown option', async () => {
    await assert.rejects(startWarden({ args: ['--no-such-option', 'x'] }),
      /\n>>> 'no-such-option "x"'\nBad directive or wrong number of arguments/);
  });

  test('a busy port: warden\'s log line', async () => {
    const busy = net.createServer();
    await new Promise((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address();
    try {
      await assert.rejects(startWarden({ port }), (error) => {
        assert.match(error.message, /^warden-testing: warden exited during start-up \(status 1\)/);
        assert.match(error.message, new RegExp(
          `# Could not create server TCP listening socket 127\\.0\\.0\\.1:${port}: ` +
          'address already in use\n'));
        return true;
      });
    } finally {
      busy.close();
    }
  });

  test('a binary that never writes the port file: the start times out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'warden-testing-test-'));
    try {
      const silent = join(dir, 'silent');
      await writeFile(silent, '#!/bin/sh\nexec sleep 60\n');
      await chmod(silent, 0o755);
      await assert.rejects(startWarden({ binary: silent, startTimeoutMs: 50 }),
        /^Error: warden-testing: warden did not start within 50 ms:/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('stop', () => {
  test('stops the process and may be called twice', async () => {
    const warden = await startWarden();
    await warden.stop();
    await warden.stop();
    assert.throws(() => process.kill(warden.pid, 0), { code: 'ESRCH' });
    await assert.rejects(warden.command('PING'), /the server was stopped/);
  });
});
