import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests a failed beforeAll kept from running are named as such (@merma/testing), not only "skipped".
    reporters: ['default', '@merma/testing/setup-failures'],
    include: ['test/**/*.test.ts'],
    // Each runtime starts a process, installs nothing, and talks to a real server: seconds, not ms.
    testTimeout: deadline(180_000),
    hookTimeout: deadline(180_000),
  },
});
