import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOfPool, statementName } from '../src/db/sql.js';
import { api, createTenant, startTestApp, type TestContext, validRecord } from './helpers.js';

/**
 * The hottest read (the record list) is prepared once per connection on a real PostgreSQL
 * (db/sql.ts, QueryOptions.prepare), and never on the embedded one, whose connections share one
 * session: there a second connection preparing the same name would be refused.
 */
let t: TestContext;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  url = t.database.url;
});
afterAll(() => t?.close());

const TEXT = 'SELECT $1::int + 1 AS n';
const preparedOn = async (client: { query: pg.Pool['query'] }) =>
  (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements')).rows.map((r) => r.name);

const embedded = !process.env.DATABASE_URL;

describe('named statements', () => {
  // On the embedded database every connection shares one session, so what one connection
  // prepared is there for the next: the per-connection behaviour exists on PostgreSQL only.
  it.skipIf(embedded)(
    'a pool that may prepare runs a statement asked to be prepared under the name drawn from its text, once per connection',
    async () => {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        const sql = sqlOfPool(pool, { namedStatements: true });
        expect((await sql.query<{ n: number }>(TEXT, [1], { prepare: true })).rows).toEqual([{ n: 2 }]);
        expect((await sql.query<{ n: number }>(TEXT, [41], { prepare: true })).rows).toEqual([{ n: 42 }]);
        await sql.query('SELECT 1', [], {});
        expect(await preparedOn(pool)).toEqual([statementName(TEXT)]);
        // Inside a transaction on the pool (a batch's statement) too.
        const inside = 'SELECT $1::int * 2 AS n';
        expect((await sql.transaction((tx) => tx.query<{ n: number }>(inside, [21], { prepare: true }))).rows).toEqual([{ n: 42 }]);
        expect((await preparedOn(pool)).sort()).toEqual([statementName(TEXT), statementName(inside)].sort());
        expect(statementName(TEXT)).not.toBe(statementName(`${TEXT} `));
      } finally {
        await pool.end();
      }
    },
  );

  it.skipIf(embedded)('a pool that may not prepare (the embedded database) runs the same statement unnamed', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const sql = sqlOfPool(pool);
      expect((await sql.query<{ n: number }>(TEXT, [1], { prepare: true })).rows).toEqual([{ n: 2 }]);
      expect(await preparedOn(pool)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('the record list answers alike from every connection of the pool, however often it is asked', async () => {
    const tenant = await createTenant(t.db);
    const client = api(t.app, tenant.key);
    const created = await client.post('/api/v1/records/batch', { records: [validRecord({ weight_kg: 2 }), validRecord({ weight_kg: 3 })] });
    expect(created.json().data.inserted).toBe(2);
    // More requests at once than the pool has connections, twice: each connection prepares the
    // statement on its first list and reuses it after; filters change the text, hence the name.
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          client.get('/api/v1/records', { query: i % 2 ? { food_category: 'meat' } : { food_category: 'fish' } }),
        ),
      );
      for (const [i, res] of answers.entries()) {
        expect(res.statusCode).toBe(200);
        expect(res.json().meta.pagination.total).toBe(i % 2 ? 2 : 0);
        expect(
          res
            .json()
            .data.map((r: { weight_kg: number }) => r.weight_kg)
            .sort(),
        ).toEqual(i % 2 ? [2, 3] : []);
      }
    }
  });
});
