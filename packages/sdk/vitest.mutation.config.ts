import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The unit tests that cover the core (requests, retries, errors, pagination, batches, webhooks)
 * against mocked servers, for the mutation run (stryker.config.mjs): not the integration test on the
 * real server, nor the build and type checks, which would make each mutant take minutes.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/client.test.ts',
      'test/http-core.test.ts',
      'test/http-abort.test.ts',
      'test/retry-waits.test.ts',
      'test/errors.test.ts',
      'test/pagination.test.ts',
      'test/batch.test.ts',
      'test/resources.test.ts',
      'test/robustness.test.ts',
      'test/webhooks.test.ts',
      'test/minimal-contract.test.ts',
      'test/checkpoints.test.ts',
    ],
  },
});
