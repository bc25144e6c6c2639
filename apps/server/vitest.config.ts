import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@merma/source'] },
  ssr: { resolve: { conditions: ['@merma/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
