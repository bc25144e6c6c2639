import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The unit tests of the station's outbox and scale readers and of the decimal reader, for the
 * mutation run (stryker.config.mjs): no page rendered, so that each mutant is tested in seconds.
 * (The list replaces the base one: mergeConfig would add to it.)
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/station-outbox.test.ts', 'test/scale.test.ts', 'test/station-serial.test.ts', 'test/decimal.test.ts'],
  },
});
