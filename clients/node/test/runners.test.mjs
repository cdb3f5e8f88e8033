// The vitest and jest helpers, with stand-ins for the runners' globals (neither runner is
// installed here): useWarden registers a before-all, an after-all and a before-each hook, and
// the hooks start, flush and stop a server. The node:test helper runs for real in
// lease.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

// Records the hooks useWarden registers, as vitest and jest would collect them.
function standInRunner() {
  const hooks = { beforeAll: [], afterAll: [], beforeEach: [] };
  const globals = {};
  for (const name of Object.keys(hooks)) globals[name] = (fn) => hooks[name].push(fn);
  return { hooks, globals };
}

async function withGlobals(globals, fn) {
  Object.assign(globalThis, globals);
  try {
    return await fn();
  } finally {
    for (const name of Object.keys(globals)) delete globalThis[name];
  }
}

for (const runner of ['vitest', 'jest']) {
  test(`warden-testing/${runner}: the hooks start, flush and stop a server`, async () => {
    const { hooks, globals } = standInRunner();
    const warden = await withGlobals(globals, async () => {
      const { useWarden } = await import(`warden-testing/${runner}`);
      return useWarden();
    });
    assert.deepEqual(Object.fromEntries(Object.entries(hooks).map(([k, v]) => [k, v.length])),
      { beforeAll: 1, afterAll: 1, beforeEach: 1 });
    assert.throws(() => warden.url, {
      message: 'warden-testing: warden.url is read before the server started; read it inside a ' +
        'test or hook, after `await warden.ready` in a before hook',
    });

    await hooks.beforeAll[0]();
    assert.equal((await warden.ready).port, warden.port);
    assert.equal(warden.url, `redis://127.0.0.1:${warden.port}`);
    await warden.command('SET', 'left', 'behind');
    await warden.freeze(1000);
    await hooks.beforeEach[0]();
    assert.equal(await warden.command('DBSIZE'), 0);
    assert.equal((await warden.command('DEBUG', 'CLOCK'))[0], 'real');

    const { pid } = warden;
    await hooks.afterAll[0]();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });
}

test('useWarden({ flushBeforeEach: false }) registers no before-each hook', async () => {
  const { hooks, globals } = standInRunner();
  await withGlobals(globals, async () => {
    const { useWarden } = await import('warden-testing/vitest');
    useWarden({ flushBeforeEach: false });
  });
  assert.equal(hooks.beforeEach.length, 0);
});

test('a server that does not start fails the before-all hook and rejects ready', async () => {
  const { hooks, globals } = standInRunner();
  const warden = await withGlobals(globals, async () => {
    const { useWarden } = await import('warden-testing/jest');
    return useWarden({ config: { maxmemory: 'lots' } });
  });
  await assert.rejects(hooks.beforeAll[0](), /argument must be a memory value/);
  await assert.rejects(warden.ready, /argument must be a memory value/);
  await hooks.afterAll[0]();
});
