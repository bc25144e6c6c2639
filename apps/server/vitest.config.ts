import { defineConfig } from 'vitest/config';

/**
 * Files and the tests inside each file run in a random order, so a test that only passes after
 * another one (shared rows, a module-level variable, a leftover timer) fails here rather than on the
 * day someone reorders the file. The seed is chosen per run and printed; VITEST_SEED replays it:
 *   VITEST_SEED=123 npx vitest run test/plan.test.ts
 */
function seedFromEnvironment(): number {
  const given = process.env.VITEST_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`VITEST_SEED must be an integer, not "${given}"`);
  return seed;
}
const seed = seedFromEnvironment();
console.log(`Test order: shuffled with seed ${seed} (replay with VITEST_SEED=${seed})`);

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
    sequence: { shuffle: { files: true, tests: true }, seed },
  },
});
