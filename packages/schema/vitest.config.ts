import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests a failed beforeAll kept from running are named as such (@merma/testing), not only "skipped".
    reporters: ['default', '@merma/testing/setup-failures'],
    include: ['test/**/*.test.ts'],
    // On the suite's one scale of deadlines (TEST_TIME_SCALE), as every package's.
    testTimeout: deadline(15_000),
    hookTimeout: deadline(15_000),
  },
});
