// Mutation testing of the server's pure modules: `pnpm test:mutation server` from the repository root.
// Only code that needs no database or HTTP server, tested by the unit tests that vitest.mutation.config.ts lists.
import base from '../../stryker.base.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [
    // The record chain: canonical JSON and the chain hash (not the SQL twin, which hash-sql.test.ts checks on a database).
    'src/modules/records/hash.ts:1-147',
    'src/modules/records/hash.ts:189-194',
    // The day a record counts on in record_day_totals, and its cache per zone and quarter-hour.
    // (The calendar it reads is @merma/schema's: `pnpm test:mutation schema`.)
    'src/modules/records/rollup.ts:96-139',
    // Rate limits: the counters and the API's and dashboard's policy on them.
    'src/limits.ts',
    'src/http/rate-limit.ts',
    // The CSV export's writer and its formula guard (not the query that feeds it).
    'src/modules/records/export.ts:75-116',
    // The forecasting model and the production advice's quantile, margin and quantity.
    'src/modules/predict/model.ts',
    'src/modules/predict/choice.ts',
    'src/modules/predict/demand.ts:72-181',
    // The integrations: Square's signature and its replaced key's grace period, Retry-After, what
    // a stored notification asks to fetch, the ids a refused line is kept (and deduplicated) by,
    // and the vendors' units (weights, counts, volumes) turned into Merma's.
    'src/modules/integrations/vendors/square/signature.ts',
    'src/modules/integrations/service.ts:378-386',
    'src/modules/integrations/vendors/square/api.ts:63-77',
    'src/modules/integrations/vendors/square/fetch.ts:56-85',
    'src/modules/integrations/vendors/square/refused.ts',
    'src/modules/integrations/vendors/odoo/refused.ts',
    'src/modules/inbound/connectors/units.ts',
    // CORS: which paths are opened to other origins, and which requests are preflights of an
    // allowed origin (not the constants of the policy, which the tests read back from the answers).
    'src/http/cors.ts:42-69',
    // The SQL runner (prepared statements' names, pg's query arguments, the pool's transaction and
    // its lost connection, the Prisma twin), positional parameters, and the JSON walk that finds
    // text PostgreSQL cannot store: on fake pools and clients, no database.
    'src/db/sql.ts',
    'src/db/text.ts',
    // Products: a row as the API answers it, and the product CSV's reading (delimiter, header,
    // each line's checks, decimal commas, repeated EANs and POS references) — not the import's writes.
    'src/modules/catalog/products.ts:39-53',
    'src/modules/catalog/products.ts:130-269',
    // The catalogue's names in each plan language, an unknown code read as itself, a cause's or a
    // destination's name from the database's Spanish one (not the tables of names themselves).
    'src/modules/catalog/labels.ts:68-111',
    // The opening calendar as the forecast reads it: closed days (weekly and closures) and the
    // reopening days after each closure (not the calendar's storage).
    'src/modules/opening/service.ts:36-38',
    'src/modules/opening/service.ts:118-154',
  ],
};
