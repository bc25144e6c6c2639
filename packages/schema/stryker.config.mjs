// Mutation testing of the package's logic: `pnpm test:mutation schema` from the repository root.
// The rest of the package is zod shapes, checked through the server's contract tests.
import base from '../../stryker.base.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { related: false },
  mutate: [
    // The shared calendar: local dates and whole-day arithmetic.
    'src/calendar.ts',
    // The keyset cursors of the audit log, records table and plan history: what is written, and
    // every spelling refused on the way in (the schema's `cursor` field).
    'src/cursor.ts',
    // The catalogue's checks: a GTIN's check digit, and prices that contradict each other (with the
    // product input's refinement that reports them). Not the zod shapes around them.
    'src/catalog.ts:50-56',
    'src/catalog.ts:110-125',
  ],
};
