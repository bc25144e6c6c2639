import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

// The tests start the real built server (@merma/test-server runs apps/server/dist/main.js as a
// child process on a fresh database; its boot migrates the embedded database, hence the hook
// timeout) and use @merma/sdk as built (dist), as an application installing it from npm would.
export default defineConfig({
  test: {
    // Tests a failed beforeAll kept from running are named as such (@merma/testing), not only "skipped".
    reporters: ['default', '@merma/testing/setup-failures'],
    include: ['test/**/*.test.ts'],
    testTimeout: deadline(60_000),
    hookTimeout: deadline(120_000),
  },
});
