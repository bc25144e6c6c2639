import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The unit tests of the server's pure modules, for the mutation run (stryker.config.mjs): no
 * database, no HTTP server, so that each mutant is tested in seconds.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/hash.test.ts',
      'test/day-buckets.test.ts',
      'test/forecast-model.test.ts',
      'test/csv-writer.test.ts',
      'test/limits.test.ts',
      'test/rate-limit-policy.test.ts',
      'test/rate-limit-windows.test.ts',
      'test/bucket-day.test.ts',
      'test/integration-pieces.test.ts',
      'test/units.test.ts',
      'test/forecast-season.test.ts',
      'test/forecast-challengers.test.ts',
      'test/forecast-choice.test.ts',
      'test/forecast-holt-winters.test.ts',
      'test/cors-policy.test.ts',
      'test/sql-runner.test.ts',
      'test/product-csv.test.ts',
      'test/catalog-labels.test.ts',
      'test/opening-days.test.ts',
    ],
  },
});
