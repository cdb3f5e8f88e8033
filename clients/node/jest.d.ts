import type { UseWardenOptions, Warden } from './index.js';

/**
 * Starts warden before the tests of this file (or of the describe block it is called in),
 * flushes it before each test and stops it after them. The result stands for the server: read
 * its properties inside tests and hooks; `ready` resolves once it has started.
 */
export function useWarden(options?: UseWardenOptions): Warden & { readonly ready: Promise<Warden> };
