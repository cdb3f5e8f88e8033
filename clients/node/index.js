// warden-testing: warden as the Redis of a Node test suite. startWarden() runs a server on a
// free port with its test controls on; the suite's own Redis client connects to its `url`.
// node-test.js, vitest.js and jest.js wrap it in each runner's hooks.
import { Warden } from './lib/warden.js';

export { ReplyError } from './lib/resp.js';

export function startWarden(options = {}) {
  return Warden.start(options);
}
