// Mutation testing of the shared calendar: `pnpm test:mutation schema` from the repository root.
// The rest of the package is zod shapes, checked through the server's contract tests.
import base from '../../stryker.base.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { related: false },
  mutate: ['src/calendar.ts'],
};
