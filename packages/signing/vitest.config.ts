import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@merma/source'] },
  ssr: { resolve: { conditions: ['@merma/source'] } },
  test: {
    // Tests a failed beforeAll kept from running are named as such (@merma/testing), not only "skipped".
    reporters: ['default', '@merma/testing/setup-failures'],
    include: ['test/**/*.test.ts'],
    testTimeout: deadline(60_000),
    hookTimeout: deadline(60_000),
  },
});
