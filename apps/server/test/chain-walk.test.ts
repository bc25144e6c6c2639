import { deadline } from '@merma/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../src/db/client.js';
import { sqlOfPool } from '../src/db/sql.js';
import { CANONICAL_RECORD_JSON_SQL, GENESIS_HASH, HASH_ALGORITHM } from '../src/modules/records/hash.js';
import { verifyRecordChain } from '../src/modules/records/verify.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * The full verification walks a long chain a segment at a time, each segment in a few statements
 * that return only what they find (verify.ts), and carries the last hash and the count from one
 * segment to the next. Whatever the segment's size, its answer must be the one a plain walk in
 * order gives: here a walk written in the test, over the rows read back, is the reference, and
 * random chains with random damage — content changed, a link broken, a record deleted or moved
 * past the head, a record re-hashed after an edit — placed anywhere, segment seams included, go
 * through both.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

type Damage = { kind: 'content' | 'link' | 'delete' | 'move' | 'forge'; at: number };

async function chainOf(n: number): Promise<Tenant> {
  const tenant = await createTenant(t.db);
  const res = await api(t.app, tenant.key).post('/api/v1/records/batch', {
    records: Array.from({ length: n }, (_, i) => validRecord({ weight_kg: i + 1, notes: i % 3 ? null : `nota "${i}"` })),
  });
  expect(res.json().data.inserted).toBe(n);
  return tenant;
}

async function damage(tenant: Tenant, { kind, at }: Damage) {
  const where = `r.establishment_id = '${tenant.establishmentId}'::uuid AND r.livemode = false AND r.chain_seq = ${at}`;
  const statements = {
    content: [`UPDATE records r SET weight_kg = weight_kg + 1 WHERE ${where}`],
    link: [`UPDATE records r SET prev_hash = '${'f'.repeat(64)}' WHERE ${where}`],
    delete: [`DELETE FROM records r WHERE ${where}`],
    move: [`UPDATE records r SET chain_seq = chain_seq + 1000 WHERE ${where}`],
    // Edited and re-hashed to match: only the next record's link shows it.
    forge: [
      `UPDATE records r SET notes = 'edited' WHERE ${where}`,
      `UPDATE records r SET record_hash = encode(sha256(convert_to(r.prev_hash || ${CANONICAL_RECORD_JSON_SQL}, 'UTF8')), 'hex') WHERE ${where}`,
    ],
  }[kind];
  for (const statement of statements) await t.db.$executeRawUnsafe(statement);
}

/** The reference: every record read back in order, walked one by one. */
async function walkInOrder(tenant: Tenant) {
  const [head] = await t.db.$queryRawUnsafe<{ seq: number; last_hash: string }[]>(
    `SELECT seq::int, last_hash FROM record_chain_heads WHERE establishment_id = $1::uuid AND livemode = false`,
    tenant.establishmentId,
  );
  const rows = await t.db.$queryRawUnsafe<{ seq: number; id: string; prev_hash: string; record_hash: string; content_ok: boolean }[]>(
    `SELECT r.chain_seq::int AS seq, r.id::text, r.prev_hash, r.record_hash,
       r.record_hash = encode(sha256(convert_to(r.prev_hash || ${CANONICAL_RECORD_JSON_SQL}, 'UTF8')), 'hex') AS content_ok
     FROM records r WHERE r.establishment_id = $1::uuid AND r.livemode = false AND r.chain_seq <= $2 ORDER BY r.chain_seq`,
    tenant.establishmentId,
    head?.seq ?? 0,
  );
  // No donation note here: the documents chain is empty, and intact.
  const documents = { valid: true, checked: 0, head_hash: null, first_invalid: null };
  const base = { head_hash: head?.last_hash ?? null, algorithm: HASH_ALGORITHM, mode: 'full', from_seq: 1, checkpoint: null, documents };
  let expected = 1;
  let prev = GENESIS_HASH;
  const fail = (id: string | null, seq: number, reason: string) => ({
    ...base,
    valid: false,
    checked: expected - 1,
    rehashed: expected - 1,
    first_invalid: { id, chain_seq: seq, reason },
  });
  for (const row of rows) {
    if (row.seq !== expected) return fail(row.id, expected, 'sequence_gap');
    if (row.prev_hash !== prev) return fail(row.id, row.seq, 'broken_link');
    if (!row.content_ok) return fail(row.id, row.seq, 'hash_mismatch');
    prev = row.record_hash;
    expected += 1;
  }
  if (head && (head.seq !== expected - 1 || head.last_hash !== prev)) return fail(null, expected, 'truncated');
  return { ...base, valid: true, checked: expected - 1, rehashed: expected - 1, first_invalid: null };
}

describe('a full verification split into segments', () => {
  it(
    'answers as a walk in order does, for any damage and any segment size',
    async () => {
      const sql = sqlOfPool(poolOf(t.db));
      const scope = (tenant: Tenant) => ({ establishmentId: tenant.establishmentId, livemode: false });
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 24 }).chain((n) =>
            fc.record({
              n: fc.constant(n),
              damages: fc.array(
                fc.record({
                  kind: fc.constantFrom<Damage['kind']>('content', 'link', 'delete', 'move', 'forge'),
                  at: fc.integer({ min: 1, max: n }),
                }),
                { maxLength: 2 },
              ),
            }),
          ),
          async ({ n, damages }) => {
            const tenant = await chainOf(n);
            for (const d of damages) await damage(tenant, d);
            const expected = await walkInOrder(tenant);
            for (const segment of [1_000_000, 7, 5, 4, 2, 1]) {
              const got = await verifyRecordChain(sql, scope(tenant), { full: true, segment });
              expect({ segment, ...got }).toEqual({ segment, ...expected });
            }
          },
        ),
        { numRuns: 40 },
      );
    },
    deadline(120_000),
  );
});
