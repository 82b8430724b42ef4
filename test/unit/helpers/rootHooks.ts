import { answeredOrigins } from '../../../src/core/transports/sseStream';

/**
 * Mocha's root hooks for the unit run (required by .mocharc.json): each test starts with what a new
 * session of the editor starts with. Which origins answered is the session's (a reset there asks
 * whether the server runs rather than whether it expects TLS): a server of an earlier test that
 * had the same port does not count.
 */
export const mochaHooks = {
  beforeEach(): void {
    answeredOrigins.clear();
  },
};
