// useWarden() for jest (in its ESM mode): `import { useWarden } from 'warden-testing/jest'`.
// The hooks are jest's globals, else @jest/globals' exports (with injectGlobals: false).
import { useWarden as register } from './lib/hooks.js';

const hooks = typeof globalThis.beforeAll === 'function'
  ? globalThis : await import('@jest/globals');

export function useWarden(options) {
  return register(hooks, options);
}
