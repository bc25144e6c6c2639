// Mutation testing of the signing package: `pnpm test:mutation signing` from the repository root.
import base from '../../stryker.base.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.config.ts', related: false },
  mutate: ['src/index.ts'],
};
