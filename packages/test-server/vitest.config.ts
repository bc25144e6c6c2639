import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Each test starts the built server (the embedded database migrates at boot): seconds, not ms.
  test: {
    // Tests a failed beforeAll kept from running are named as such (@merma/testing), not only "skipped".
    reporters: ['default', '@merma/testing/setup-failures'],
    include: ['test/**/*.test.ts'],
    testTimeout: deadline(120_000),
    hookTimeout: deadline(120_000),
  },
});
