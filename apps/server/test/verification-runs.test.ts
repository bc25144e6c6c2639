import pg_ from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sql, sqlOfTransaction } from '../src/db/sql.js';
import { runVerification } from '../src/modules/records/verification-runs.js';
import { purgeExpired } from '../src/modules/retention/purge.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';
import { waitFor } from './receiver.js';

/**
 * Full verifications in the background (POST /api/v1/records/verifications): queued with their
 * job, run by the worker with progress, their result what GET /records/verify?full=true answers,
 * one active run per chain, and walls between establishments.
 */
const { Pool } = pg_;
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

async function chainOf(n: number): Promise<Tenant> {
  const tenant = await createTenant(t.db);
  const records = Array.from({ length: n }, (_, i) => validRecord({ weight_kg: 1 + i / 100 }));
  for (let i = 0; i < n; i += 500) {
    const res = await api(t.app, tenant.key).post('/api/v1/records/batch', { records: records.slice(i, i + 500) });
    expect(res.json().data.inserted).toBe(Math.min(500, n - i));
  }
  return tenant;
}

const run = async (tenant: Tenant, id: string) => (await api(t.app, tenant.key).get(`/api/v1/records/verifications/${id}`)).json().data;

describe('POST /api/v1/records/verifications', () => {
  it('queues one run per chain, which the worker completes with the full verification', async () => {
    const tenant = await chainOf(1200);
    const client = api(t.app, tenant.key);
    // No body at all (no content-type either), as `curl -X POST` sends it.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/records/verifications',
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(created.statusCode, created.body).toBe(202);
    const queued = created.json().data;
    expect(queued).toMatchObject({ status: 'queued', progress: { checked: 0, total: 1200 }, result: null, error: null, started_at: null });
    // Asking again while it waits returns the same run.
    const again = await client.post('/api/v1/records/verifications', {});
    expect(again.statusCode).toBe(202);
    expect(again.json().data.id).toBe(queued.id);
    const [jobs] = await t.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'records.verify' AND key = ${`verify:${queued.id}`}`;
    expect(jobs?.n).toBe(1);

    const worker = await t.startWorker();
    try {
      const done = await waitFor(
        async () => {
          const r = await run(tenant, queued.id);
          return r.status === 'completed' ? r : null;
        },
        10_000,
        'the run to complete',
      );
      expect(done).toMatchObject({ status: 'completed', progress: { checked: 1200, total: 1200 }, error: null });
      expect(done.started_at).not.toBeNull();
      expect(done.finished_at).not.toBeNull();
      const direct = (await client.get('/api/v1/records/verify', { query: { full: 'true' } })).json().data;
      const { checkpoint: _a, ...result } = done.result;
      const { checkpoint: _b, ...expected } = direct;
      expect(result).toEqual(expected);
      expect(result).toMatchObject({ valid: true, checked: 1200, rehashed: 1200, mode: 'full', first_invalid: null });
      // The run signed the head it verified.
      expect(done.result.checkpoint).toMatchObject({ seq: 1200 });
      // Once finished, a new request is a new run.
      const next = (await client.post('/api/v1/records/verifications', {})).json().data;
      expect(next.id).not.toBe(queued.id);
    } finally {
      await worker.stop();
    }
  });

  it('reports progress after each segment, and a broken chain as a completed run that is not valid', async () => {
    const tenant = await chainOf(250);
    await t.db.$executeRaw`UPDATE records SET weight_kg = 77 WHERE establishment_id = ${tenant.establishmentId}::uuid AND chain_seq = 180`;
    const queued = (await api(t.app, tenant.key).post('/api/v1/records/verifications', {})).json().data;
    // Run by hand with segments of 100, watching what the run says after each one.
    const sql = sqlOfTransaction(t.db);
    const seen: string[] = [];
    const watching: Sql = {
      query: async (text, values) => {
        const out = await sql.query(text, values);
        if (text.startsWith('UPDATE chain_verification_runs SET checked')) {
          const { progress } = await run(tenant, queued.id);
          seen.push(`${progress.checked}/${progress.total}`);
        }
        return out as never;
      },
    };
    await runVerification({ sql: watching, clock: () => new Date(), segment: 100 }, { run_id: queued.id });
    expect(seen).toEqual(['100/250']);
    const done = await run(tenant, queued.id);
    expect(done).toMatchObject({
      status: 'completed',
      progress: { checked: 179, total: 250 },
      result: { valid: false, checked: 179, first_invalid: { chain_seq: 180, reason: 'hash_mismatch' } },
    });
    // A second run of the finished job does nothing.
    await runVerification({ sql: sql, clock: () => new Date(), segment: 100 }, { run_id: queued.id });
    expect((await run(tenant, queued.id)).finished_at).toBe(done.finished_at);
  });

  it('keeps runs within their establishment and mode, and refuses what is not a run id', async () => {
    const owner = await chainOf(3);
    const stranger = await createTenant(t.db);
    const queued = (await api(t.app, owner.key).post('/api/v1/records/verifications', {})).json().data;
    expect((await api(t.app, stranger.key).get(`/api/v1/records/verifications/${queued.id}`)).statusCode).toBe(404);
    expect((await api(t.app, owner.key).get('/api/v1/records/verifications/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    const bad = await api(t.app, owner.key).get('/api/v1/records/verifications/not-a-uuid');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'validation_error' });
    expect((await api(t.app, owner.key).post('/api/v1/records/verifications', { full: true })).statusCode).toBe(400);
  });

  it('is purged by the retention job once finished for longer than the event retention', async () => {
    const tenant = await chainOf(2);
    const queued = (await api(t.app, tenant.key).post('/api/v1/records/verifications', {})).json().data;
    const sql = sqlOfTransaction(t.db);
    await runVerification({ sql: sql, clock: () => new Date() }, { run_id: queued.id });
    const pg = new Pool({ connectionString: t.database.url, max: 1 });
    try {
      await purgeExpired({ pool: pg, clock: () => new Date() }, { eventDays: 30, inboundDedupeDays: 30, salesDays: 400 });
      expect((await api(t.app, tenant.key).get(`/api/v1/records/verifications/${queued.id}`)).statusCode).toBe(200);
      const later = new Date(Date.now() + 31 * 86_400_000);
      const report = await purgeExpired({ pool: pg, clock: () => later }, { eventDays: 30, inboundDedupeDays: 30, salesDays: 400 });
      expect(report.verification_runs).toBeGreaterThanOrEqual(1);
      expect((await api(t.app, tenant.key).get(`/api/v1/records/verifications/${queued.id}`)).statusCode).toBe(404);
    } finally {
      await pg.end();
    }
  });
});
