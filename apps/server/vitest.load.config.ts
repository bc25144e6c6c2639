import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

/** `pnpm test:load`: the durability and fault suite (a built server as a child process, real PostgreSQL). */
export default defineConfig({
  resolve: { conditions: ['@merma/source'] },
  ssr: { resolve: { conditions: ['@merma/source'] } },
  test: {
    include: ['load/**/*.test.ts'],
    testTimeout: deadline(15 * 60_000),
    hookTimeout: deadline(120_000),
    pool: 'forks',
    fileParallelism: false,
  },
});
