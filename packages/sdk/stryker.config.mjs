// Mutation testing of the SDK's core: `pnpm test:mutation sdk` from the repository root.
import base from '../../stryker.base.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [
    'src/core/http.ts',
    'src/core/errors.ts',
    'src/core/pagination.ts',
    'src/webhooks.ts',
    // records.batch: chunking, idempotency keys per chunk, merging the answers.
    'src/resources/records.ts:145-214',
  ],
};
