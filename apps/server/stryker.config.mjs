// Mutation testing of the server's pure modules: `pnpm test:mutation server` from the repository root.
// Only code that needs no database or HTTP server, tested by the unit tests that vitest.mutation.config.ts lists.
import base from '../../stryker.base.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [
    // The record chain: canonical JSON and the chain hash (not the SQL twin, which hash-sql.test.ts checks on a database).
    'src/modules/records/hash.ts:1-85',
    'src/modules/records/hash.ts:120-122',
    // The day a record counts on in record_day_totals (the rollup that a correction's supersede updates).
    // (The calendar it reads is @merma/schema's: `pnpm test:mutation schema`.)
    'src/modules/records/rollup.ts:27',
    // Rate limits: the counters and the API's and dashboard's policy on them.
    'src/limits.ts',
    'src/http/rate-limit.ts',
    // The CSV export's writer and its formula guard (not the query that feeds it).
    'src/modules/records/export.ts:79-121',
    // The forecasting model and the production advice built on it.
    'src/modules/predict/model.ts',
    'src/modules/predict/choice.ts',
    'src/modules/predict/demand.ts:38-76',
  ],
};
