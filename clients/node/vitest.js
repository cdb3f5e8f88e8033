// useWarden() for vitest: `import { useWarden } from 'warden-testing/vitest'`. The hooks are
// vitest's globals when its `globals` option is on, else vitest's exports.
import { useWarden as register } from './lib/hooks.js';

const hooks = typeof globalThis.beforeAll === 'function' ? globalThis : await import('vitest');

export function useWarden(options) {
  return register(hooks, options);
}
