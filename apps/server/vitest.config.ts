import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

/**
 * Files and the tests inside each file run in a random order, so a test that only passes after
 * another one (shared rows, a queued job, a module-level variable) fails here rather than on the
 * day the order changes. The seed is chosen per run and printed; VITEST_SEED replays it:
 *   VITEST_SEED=123 npx vitest run test/plan.test.ts
 * VITEST_SHUFFLE_TESTS=false keeps each file's tests in their written order (files stay shuffled),
 * to tell an order dependence from another failure. A file whose tests are steps of one scenario
 * says so itself (`describe(..., { shuffle: false })`).
 */
function seedFromEnvironment(): number {
  const given = process.env.VITEST_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`VITEST_SEED must be an integer, not "${given}"`);
  return seed;
}
const seed = seedFromEnvironment();
const shuffleTests = process.env.VITEST_SHUFFLE_TESTS !== 'false';
console.log(
  shuffleTests
    ? `Test order: files and tests shuffled with seed ${seed} (replay with VITEST_SEED=${seed})`
    : `Test order: files shuffled with seed ${seed}, tests in file order (replay with VITEST_SEED=${seed} VITEST_SHUFFLE_TESTS=false)`,
);

export default defineConfig({
  resolve: { conditions: ['@merma/source'] },
  ssr: { resolve: { conditions: ['@merma/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    // Guards against hangs, stretched by the run's scale (TEST_TIME_SCALE; 3 in CI): @merma/testing.
    testTimeout: deadline(30_000),
    hookTimeout: deadline(60_000),
    // What `expect.poll` waits for (a page that reloads its table, a job that runs) arrives in a
    // few hundred milliseconds on an idle machine, but CI runs two test files and their browsers at
    // once: vitest's default of 1 s failed a browser test there. The assertions are unchanged; only
    // how long they may take to become true.
    expect: { poll: { timeout: deadline(10_000) } },
    // Tests a failed beforeAll kept from running are named as such, not left as "skipped".
    reporters: ['default', '@merma/testing/setup-failures'],
    // One migrated embedded database per run, that each test app copies (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { shuffle: { files: true, tests: shuffleTests }, seed },
  },
});
