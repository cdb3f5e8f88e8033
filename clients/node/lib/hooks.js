// useWarden() for every runner: one server per test file (or per describe block it is called
// in), started before its tests, flushed before each one, stopped after them. The runner's hook
// functions come from the runner's own module (node-test.js, vitest.js, jest.js).
import { Warden } from './warden.js';

export function useWarden({ beforeAll, afterAll, beforeEach }, options = {}) {
  const { flushBeforeEach = true, ...startOptions } = options;
  let server = null;
  let started;
  const ready = new Promise((resolve, reject) => {
    started = { resolve, reject };
  });
  ready.catch(() => {});  // the before-all hook reports a failed start
  beforeAll(async () => {
    try {
      server = await Warden.start(startOptions);
      started.resolve(server);
    } catch (error) {
      started.reject(error);
      throw error;
    }
  });
  afterAll(async () => {
    await server?.stop();
    server = null;
  });
  if (flushBeforeEach) beforeEach(() => server?.flush());
  // Stands for the server from the moment the hooks are registered: its properties are read
  // inside tests and hooks, once the before-all hook has run. `ready` resolves then: node's
  // runner (20) runs a file's top-level before() hooks at once, side by side, so one of those
  // must await it before reading the rest.
  return new Proxy({}, {
    get(_, name) {
      if (name === 'ready') return ready;
      if (server === null) {
        // Awaiting or inspecting the handle must not throw.
        if (typeof name === 'symbol' || name === 'then') return undefined;
        throw new Error(`warden-testing: warden.${name} is read before the server started; ` +
          'read it inside a test or hook, after `await warden.ready` in a before hook');
      }
      const value = server[name];
      return typeof value === 'function' ? value.bind(server) : value;
    },
  });
}
