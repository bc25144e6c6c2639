import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@merma/source'] },
  ssr: { resolve: { conditions: ['@merma/source'] } },
  test: { include: ['test/**/*.test.ts'], testTimeout: deadline(60_000), hookTimeout: deadline(60_000) },
});
