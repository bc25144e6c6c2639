import { defineConfig } from 'vitest/config';

/**
 * Files run in a random order, so a file that only passes after another one fails here rather than
 * on the day the order changes. With VITEST_SHUFFLE_TESTS=true the tests inside each file are
 * shuffled too: that finds tests that lean on what an earlier test of their file left (shared rows,
 * a queued job, a module-level variable). It is not yet the default in CI: each shuffled run of the
 * whole suite has still found such a test (each fixed), and it becomes the default once the suite
 * passes shuffled runs in a row. The seed is chosen per run and printed; VITEST_SEED replays it:
 *   VITEST_SEED=123 VITEST_SHUFFLE_TESTS=true npx vitest run test/plan.test.ts
 */
function seedFromEnvironment(): number {
  const given = process.env.VITEST_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`VITEST_SEED must be an integer, not "${given}"`);
  return seed;
}
const seed = seedFromEnvironment();
const shuffleTests = process.env.VITEST_SHUFFLE_TESTS === 'true';
console.log(
  shuffleTests
    ? `Test order: files and tests shuffled with seed ${seed} (replay with VITEST_SEED=${seed} VITEST_SHUFFLE_TESTS=true)`
    : `Test order: files shuffled with seed ${seed}, tests in file order (replay with VITEST_SEED=${seed})`,
);

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
    sequence: { shuffle: { files: true, tests: shuffleTests }, seed },
  },
});
