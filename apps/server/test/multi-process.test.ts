import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../src/db/client.js';
import { type BuiltServer, startBuiltServer } from './fixtures/built-server.js';
import {
  createTenant,
  createTestDatabase,
  drain,
  TEST_ENCRYPTION_KEY,
  type Tenant,
  type TestDatabase,
  validRecord,
  verifyAllChains,
} from './helpers.js';
import { startReceiver } from './receiver.js';

/**
 * Two built servers (two processes, as two replicas) on one PostgreSQL database, writing to one
 * establishment at the same time, Idempotency-Keys shared between them included. The embedded
 * PGlite belongs to the one process that opened it, so this needs a real PostgreSQL: without
 * DATABASE_URL the suite is skipped.
 */
describe.skipIf(!process.env.DATABASE_URL)('two servers on one PostgreSQL (needs DATABASE_URL)', () => {
  let database: TestDatabase;
  let servers: BuiltServer[] = [];
  let db: Db;
  let tenant: Tenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    // Both boot together: they migrate the empty database at once, and take turns. Replicas share
    // the key that encrypts webhook secrets, as a deployment configures them.
    const env = { WORKER_CONCURRENCY: '2', WEBHOOKS_ALLOW_PRIVATE: 'true', MERMA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
    servers = await Promise.all([0, 1].map(() => startBuiltServer({ databaseUrl: database.url, env })));
    db = createPrisma(database.url, 4);
    tenant = await createTenant(db);
  }, deadline(180_000));

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await receiver?.close();
    await db?.$disconnect();
    await database?.drop();
  });

  type Answer = { status: number; replayed: boolean; body: { data?: Record<string, unknown>; code?: string } };

  async function post(server: BuiltServer, path: string, body: unknown, key?: string): Promise<Answer> {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.key}`,
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', body: (await res.json()) as Answer['body'] };
  }

  const recordsNoted = async (notes: string) => db.record.count({ where: { establishment_id: tenant.establishmentId, notes } });

  it('stores every write once in one chain, and answers a key sent to both servers at once per the Idempotency-Key contract', async () => {
    const [one, two] = servers as [BuiltServer, BuiltServer];
    const subscribed = await post(one, '/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['record.created'] });
    expect(subscribed.status).toBe(201);
    const plain = Array.from({ length: 40 }, (_, i) =>
      post(i % 2 ? two : one, '/api/v1/records', validRecord({ weight_kg: 1 + i, notes: `plain-${i}` })),
    );
    const batches = Array.from({ length: 6 }, (_, i) =>
      post(i % 2 ? one : two, '/api/v1/records/batch', {
        records: Array.from({ length: 5 }, (_, j) => validRecord({ weight_kg: 0.5 + j, notes: `batch-${i}-${j}` })),
      }),
    );
    // The same key and body to both servers at the same moment.
    const shared = Array.from({ length: 15 }, (_, i) => {
      const body = validRecord({ weight_kg: 2.5, notes: `shared-${i}` });
      return Promise.all([post(one, '/api/v1/records', body, `shared-${i}`), post(two, '/api/v1/records', body, `shared-${i}`)]);
    });
    // The same key with different bodies to both servers at once.
    const clashing = Array.from({ length: 5 }, (_, i) =>
      Promise.all([
        post(one, '/api/v1/records', validRecord({ weight_kg: 1, notes: `clash-${i}-one` }), `clash-${i}`),
        post(two, '/api/v1/records', validRecord({ weight_kg: 2, notes: `clash-${i}-two` }), `clash-${i}`),
      ]),
    );
    const [plainAnswers, batchAnswers, sharedAnswers, clashAnswers] = await Promise.all([
      Promise.all(plain),
      Promise.all(batches),
      Promise.all(shared),
      Promise.all(clashing),
    ]);

    expect(plainAnswers.map((a) => a.status)).toEqual(plainAnswers.map(() => 201));
    expect(batchAnswers.map((a) => [a.status, a.body.data?.inserted])).toEqual(batchAnswers.map(() => [200, 5]));
    for (let i = 0; i < plain.length; i++) expect(await recordsNoted(`plain-${i}`), `plain-${i}`).toBe(1);

    // A key sent to both: one record; the first answer is 201, the other is its replay (the same
    // body, marked Idempotent-Replayed) or, while the first is still running, a 409 to retry.
    for (const [i, answers] of sharedAnswers.entries()) {
      const what = `shared-${i}: ${JSON.stringify(answers.map((a) => [a.status, a.replayed, a.body.code]))}`;
      expect(await recordsNoted(`shared-${i}`), what).toBe(1);
      const created = answers.filter((a) => a.status === 201);
      expect(created.length, what).toBeGreaterThanOrEqual(1);
      expect(
        created.filter((a) => !a.replayed),
        what,
      ).toHaveLength(1);
      for (const a of answers) {
        if (a.status === 201) expect(a.body, what).toEqual(created[0]?.body);
        else expect([a.status, a.body.code], what).toEqual([409, 'conflict']);
      }
    }
    // Same key, different bodies: one is stored and answered 201, the other refused with 409.
    for (const [i, answers] of clashAnswers.entries()) {
      const what = `clash-${i}: ${JSON.stringify(answers.map((a) => [a.status, a.replayed, a.body.code]))}`;
      expect(answers.map((a) => a.status).sort(), what).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)?.body.code, what).toBe('conflict');
      const stored = (await recordsNoted(`clash-${i}-one`)) + (await recordsNoted(`clash-${i}-two`));
      expect(stored, what).toBe(1);
    }

    // The counts add up, in one gap-free chain that verifies; both servers report the same head.
    const expected = plain.length + batches.length * 5 + shared.length + clashing.length;
    expect(await db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(expected);
    expect(await db.idempotencyKey.count({ where: { establishment_id: tenant.establishmentId } })).toBe(shared.length + clashing.length);
    const chains = await verifyAllChains(db);
    expect(chains.find((c) => !c.livemode)).toEqual({
      establishment_id: tenant.establishmentId,
      livemode: false,
      checked: expected,
      valid: true,
      first_invalid: null,
    });
    expect(chains.filter((c) => !c.valid)).toEqual([]);
    const heads = await Promise.all(
      servers.map(async (s) => {
        const res = await fetch(`${s.url}/api/v1/records/verify`, { headers: { authorization: `Bearer ${tenant.key}` } });
        return ((await res.json()) as { data: { valid: boolean; checked: number; head_hash: string } }).data;
      }),
    );
    expect(heads[0]).toMatchObject({ valid: true, checked: expected });
    // Both servers see the same chain. How much each re-hashed depends on which signed its checkpoint
    // first (the other may start from it), so only the chain's facts are compared.
    const facts = (h: (typeof heads)[number]) => {
      const {
        rehashed: _r,
        from_seq: _f,
        checkpoint,
        ...chain
      } = h as typeof h & {
        rehashed: number;
        from_seq: number;
        checkpoint: { seq: number; head_hash: string };
      };
      return { ...chain, checkpoint: { seq: checkpoint.seq, head_hash: checkpoint.head_hash } };
    };
    expect(facts(heads[1] as (typeof heads)[number])).toEqual(facts(heads[0] as (typeof heads)[number]));
    expect(facts(heads[0] as (typeof heads)[number]).checkpoint).toEqual({ seq: expected, head_hash: heads[0]?.head_hash });
    // One record.created per stored record, dispatched and delivered once by one of the two
    // workers (each signed with the secret the other server sealed).
    expect(await db.event.count({ where: { establishment_id: tenant.establishmentId, type: 'record.created' } })).toBe(expected);
    await drain(db, { timeoutMs: 60_000 });
    const stored = await db.record.findMany({ where: { establishment_id: tenant.establishmentId }, select: { id: true } });
    const delivered = receiver.received.map((r) => JSON.parse(r.body).data.id as string);
    expect(delivered.sort()).toEqual(stored.map((r) => r.id).sort());
    expect(await db.webhookDelivery.groupBy({ by: ['status'], _count: true })).toEqual([{ status: 'succeeded', _count: expected }]);
  });
});
