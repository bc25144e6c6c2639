// Mutation testing of the SDK's core: `pnpm test:mutation sdk` from the repository root.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [
    'src/core/http.ts',
    'src/core/errors.ts',
    'src/core/pagination.ts',
    'src/webhooks.ts',
    // records.batch: chunking, idempotency keys per chunk, merging the answers.
    'src/resources/records.ts:145-214',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 85, break: null },
};
