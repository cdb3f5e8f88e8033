// useWarden() for node's test runner: `import { useWarden } from 'warden-testing/node-test'`.
import { after, before, beforeEach } from 'node:test';
import { useWarden as register } from './lib/hooks.js';

export function useWarden(options) {
  return register({ beforeAll: before, afterAll: after, beforeEach }, options);
}
