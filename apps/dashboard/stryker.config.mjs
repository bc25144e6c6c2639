// Mutation testing of the dashboard's logic that runs without a page: `pnpm test:mutation dashboard`
// from the repository root. The kitchen station's outbox (queued records and photos sent in tap
// order, what a refusal holds back), its scale readers (a settled weight; the serial protocol) and
// the decimal reader every amount typed or pasted goes through, against their unit tests
// (vitest.mutation.config.ts); the pages themselves are the component and browser tests' subject.
import base from '../../stryker.base.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: ['src/station/outbox.ts', 'src/station/scale.ts', 'src/station/serial.ts', 'src/lib/decimal.ts'],
};
