import { randomBytes, randomUUID } from 'node:crypto';
import { deadline } from '@merma/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMember } from './dashboard-client.js';
import { createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';
import { waitFor } from './receiver.js';

/**
 * The retention purge as it runs in production: its settings read from the environment
 * (RETENTION_EVENT_DAYS, INBOUND_DEDUPE_DAYS), handed by the configuration to the worker, whose
 * recurring `retention.purge` job (every 10 minutes, graphile-worker's cron) deletes what is past
 * each cutoff. Each cutoff has its own length here — events and verification runs 9 days, inbound
 * event ids 17, idempotency keys 24 hours, account rows 7 days after they end — so a cutoff computed
 * from another one's setting deletes or keeps the wrong rows. Around each cutoff: a row 1 day and
 * 1 second older (deleted) and 1 second and 1 day younger (kept), timed by a fixed clock (Date
 * faked; timers stay real so the worker runs) that the cron job and the purge both read.
 */
const EVENT_DAYS = 9;
const INBOUND_DAYS = 17;
const SECOND = 1000;
const DAY = 86_400_000;

let t: TestContext;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ config: { RETENTION_EVENT_DAYS: String(EVENT_DAYS), INBOUND_DEDUPE_DAYS: String(INBOUND_DAYS) } });
  tenant = await createTenant(t.db);
}, deadline(60_000));
afterEach(() => vi.useRealTimers());
afterAll(async () => {
  await t?.close();
});

const token = () => randomBytes(32).toString('hex');

type Row = { table: string; id: string; offset: number; what: string };

describe('the scheduled retention job', () => {
  it('runs at the ten-minute mark and deletes exactly what is past each cutoff, from the settings in the environment', async () => {
    // Ten past the next hour (a ten-minute mark that is not also the hour's); the clock stands 1.5 s before it.
    const T = Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 600_000;
    vi.useFakeTimers({ toFake: ['Date'], now: T - 1500 });
    const at = (ms: number) => new Date(T - ms);
    const user = await createMember(t.db, tenant.organizationId, 'viewer');
    const rows: Row[] = [];
    const OFFSETS = [-DAY, -SECOND, SECOND, DAY]; // older (negative: deleted) and younger than the cutoff

    /** A row of `table` whose `what` is `offset` away from the cutoff `cutoffMs` before T. */
    const cases: { table: string; what: string; cutoffMs: number; insert(id: string, time: Date): Promise<unknown> }[] = [
      {
        table: 'idempotency_keys',
        what: 'created_at',
        cutoffMs: DAY,
        insert: (id, time) =>
          t.db
            .$executeRaw`INSERT INTO idempotency_keys (id, establishment_id, livemode, api_key_id, key, fingerprint, status_code, response_body, created_at)
            VALUES (${id}::uuid, ${tenant.establishmentId}::uuid, false, ${tenant.keyId}::uuid, ${id}, ${'0'.repeat(64)}, 201, '{}', ${time})`,
      },
      {
        table: 'events',
        what: 'created_at',
        cutoffMs: EVENT_DAYS * DAY,
        insert: (id, time) =>
          t.db.$executeRaw`INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, dispatched_at)
            VALUES (${id}::uuid, ${tenant.establishmentId}::uuid, false, 'record.created', '{}'::jsonb, ${time}, ${time})`,
      },
      {
        table: 'chain_verification_runs',
        what: 'finished_at',
        cutoffMs: EVENT_DAYS * DAY,
        insert: (id, time) =>
          t.db.$executeRaw`INSERT INTO chain_verification_runs (id, establishment_id, livemode, status, created_at, started_at, finished_at)
            VALUES (${id}::uuid, ${tenant.establishmentId}::uuid, false, 'completed', ${time}, ${time}, ${time})`,
      },
      {
        table: 'inbound_events',
        what: 'created_at',
        cutoffMs: INBOUND_DAYS * DAY,
        insert: (id, time) =>
          t.db.$executeRaw`INSERT INTO inbound_events (id, establishment_id, livemode, event, source, external_ref, payload, created_at)
            VALUES (${id}::uuid, ${tenant.establishmentId}::uuid, false, 'waste.created', 'erp', ${id}, '{}'::jsonb, ${time})`,
      },
      {
        table: 'user_sessions',
        what: 'expires_at',
        cutoffMs: 7 * DAY,
        insert: (id, time) =>
          t.db.$executeRaw`INSERT INTO user_sessions (id, token_hash, user_id, organization_id, expires_at)
            VALUES (${id}::uuid, ${token()}, ${user.id}::uuid, ${tenant.organizationId}::uuid, ${time})`,
      },
      {
        table: 'user_tokens',
        what: 'expires_at',
        cutoffMs: 7 * DAY,
        insert: (id, time) =>
          t.db.$executeRaw`INSERT INTO user_tokens (id, user_id, purpose, token_hash, expires_at)
            VALUES (${id}::uuid, ${user.id}::uuid, 'sign_in', ${token()}, ${time})`,
      },
      {
        table: 'user_tokens',
        what: 'used_at',
        cutoffMs: 7 * DAY,
        insert: (id, time) =>
          t.db.$executeRaw`INSERT INTO user_tokens (id, user_id, purpose, token_hash, expires_at, used_at)
            VALUES (${id}::uuid, ${user.id}::uuid, 'password_reset', ${token()}, ${at(-DAY)}, ${time})`,
      },
      ...(['expires_at', 'accepted_at', 'revoked_at'] as const).map((what) => ({
        table: 'invitations',
        what,
        cutoffMs: 7 * DAY,
        insert: (id: string, time: Date) =>
          t.db.$executeRaw`INSERT INTO invitations (id, organization_id, email, role, token_hash, expires_at, accepted_at, revoked_at)
            VALUES (${id}::uuid, ${tenant.organizationId}::uuid, ${`${id}@example.com`}, 'viewer', ${token()},
              ${what === 'expires_at' ? time : at(-DAY)}, ${what === 'accepted_at' ? time : null}::timestamptz,
              ${what === 'revoked_at' ? time : null}::timestamptz)`,
      })),
    ];
    for (const c of cases) {
      for (const offset of OFFSETS) {
        const id = randomUUID();
        // offset < 0: older than the cutoff, so further back in time.
        await c.insert(id, at(c.cutoffMs - offset));
        rows.push({
          table: c.table,
          id,
          offset,
          what: `${c.table}.${c.what} ${offset < 0 ? 'older' : 'younger'} by ${Math.abs(offset) / SECOND} s`,
        });
      }
    }
    const present = async () => {
      const found: string[] = [];
      for (const table of new Set(rows.map((r) => r.table))) {
        const ids = rows.filter((r) => r.table === table).map((r) => r.id);
        const got = await t.db.$queryRawUnsafe<{ id: string }[]>(`SELECT id::text FROM ${table} WHERE id = ANY($1::uuid[])`, ids);
        found.push(...got.map((g) => g.id));
      }
      return rows.filter((r) => found.includes(r.id)).map((r) => r.what);
    };
    const everything = rows.map((r) => r.what);
    expect(await present()).toEqual(everything);

    // The worker as the server starts it, its configuration from the environment above.
    const purged: unknown[] = [];
    let early = 0;
    const log = {
      info: (obj: object, msg?: string) => msg === 'expired rows purged' && purged.push(obj),
      debug: (_obj: object, msg?: string) => msg?.includes('too early') && early++,
      warn() {},
      error() {},
    };
    await t.startWorker({ log });
    // Registered as a recurring job; its timer fires, finds the clock before the minute, and runs nothing.
    await waitFor(async () => {
      const known = await t.db.$queryRaw<{ identifier: string }[]>`SELECT identifier FROM graphile_worker._private_known_crontabs`;
      return known.some((k) => k.identifier === 'retention.purge');
    });
    await waitFor(() => early > 0, 10_000, 'the cron timer');
    expect(purged).toEqual([]);
    expect(await present()).toEqual(everything);

    vi.setSystemTime(T);
    await waitFor(() => purged.length > 0, 15_000, 'the retention job');
    // What is left names what went wrong: the rows younger than their cutoff, and only they.
    expect(await present()).toEqual(rows.filter((r) => r.offset > 0).map((r) => r.what));
    const older = (table: string) => rows.filter((r) => r.table === table && r.offset < 0).length;
    expect(purged).toEqual([
      {
        purged: {
          idempotency_keys: older('idempotency_keys'),
          events: older('events'),
          deliveries: 0,
          inbound_events: older('inbound_events'),
          verification_runs: older('chain_verification_runs'),
          account_rows: older('user_sessions') + older('user_tokens') + older('invitations'),
          sales: 0,
          sale_day_totals: 0,
        },
        ms: expect.any(Number),
      },
    ]);
    // The cron's run of T's minute did it.
    const [run] = await t.db.$queryRaw<{ last_execution: Date }[]>`
      SELECT last_execution FROM graphile_worker._private_known_crontabs WHERE identifier = 'retention.purge'`;
    expect(run?.last_execution.getTime()).toBe(T);
  });
});
