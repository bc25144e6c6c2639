// The options every package's Stryker run shares (`pnpm test:mutation`, scripts/mutation.mjs): the
// vitest runner, per-test coverage, two workers for two cores, the reports in
// <package>/reports/mutation/, and the README's thresholds (85 % is the aim where the code is pure).
// Runs are incremental: <package>/reports/stryker-incremental.json (committed) keeps every mutant's
// result with the code and tests it was found with, and the next run tests again only the mutants
// whose code or covering tests changed since (MUTATION_FORCE=1 tests them all).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 85, break: null },
  incremental: true,
  // A static mutant (a module-level constant) is covered by every test, so testing it costs a whole
  // run of the unit tests: 13 % of the server's mutants, more than half of its time. They are left
  // out (reported as ignored); what such constants hold is asserted by the tests that read them.
  ignoreStatic: true,
  incrementalFile: 'reports/stryker-incremental.json',
};
