import { deadline } from '@merma/testing';
import type { FastifyRequest } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, revokeKey, setOrganizationPlan } from '../src/admin/service.js';
import { CALLER_CHANGES_APPLICATION, type CallerChanges, listenForCallerChanges } from '../src/auth/caller-changes.js';
import { createAuthenticator, LONG_TTL_MS } from '../src/http/auth.js';
import { api, buildTestApp, createTenant, startTestApp, statusOnceNot200, type TestContext, testConfig } from './helpers.js';

/**
 * The API-key cache's promise (http/auth.ts): a revocation, a permission or a plan change takes
 * effect on every replica within API_KEY_CACHE_TTL_MS of its commit. Without the changes channel an
 * entry is read again once that old; with it (PostgreSQL) an entry lives longer only while the
 * channel proves it hears every change, and every change empties the cache of every replica.
 * The clock is moved by hand; the channel's pings are sent by the tests (`confirm`), never on a timer.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const embedded = !process.env.DATABASE_URL;
const TTL = 2_000;
const T0 = Date.parse('2026-12-01T10:00:00Z');

const requestWith = (key: string) => ({ headers: { authorization: `Bearer ${key}` } }) as unknown as FastifyRequest;

/** A statement run with the database's triggers off: a change nobody announces, to see what the cache still believes. */
async function silently(text: string, values: unknown[]) {
  const c = new pg.Client({ connectionString: t.database.url });
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query('SET LOCAL session_replication_role = replica');
    await c.query(text, values);
    await c.query('COMMIT');
  } finally {
    await c.end();
  }
}

async function announced(text: string, values: unknown[]) {
  const c = new pg.Client({ connectionString: t.database.url });
  await c.connect();
  try {
    await c.query(text, values);
  } finally {
    await c.end();
  }
}

/** Waits until the channel listens and hears itself (its first connection is made in the background). */
async function listening(changes: CallerChanges) {
  const giveUpAt = Date.now() + deadline(10_000);
  for (;;) {
    try {
      return await changes.confirm();
    } catch (err) {
      if (Date.now() > giveUpAt) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

describe('the API key cache without the changes channel', () => {
  it('reads an entry again once it is API_KEY_CACHE_TTL_MS old, not a millisecond before', async () => {
    let at = T0;
    const authenticator = createAuthenticator({ db: t.db, ttlMs: TTL, now: () => at });
    const tenant = await createTenant(t.db);
    expect((await authenticator.authenticate(requestWith(tenant.key))).permissions).toEqual(['*']);
    await silently(`UPDATE api_keys SET permissions = '{records:read}' WHERE id = $1`, [tenant.keyId]);
    at = T0 + TTL - 1;
    expect((await authenticator.authenticate(requestWith(tenant.key))).permissions).toEqual(['*']);
    at = T0 + TTL;
    expect((await authenticator.authenticate(requestWith(tenant.key))).permissions).toEqual(['records:read']);
    await silently('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [tenant.keyId]);
    at = T0 + 2 * TTL - 1;
    expect((await authenticator.authenticate(requestWith(tenant.key))).permissions).toEqual(['records:read']);
    at = T0 + 2 * TTL;
    await expect(authenticator.authenticate(requestWith(tenant.key))).rejects.toThrow(/revoked/);
  });
});

describe.skipIf(embedded)('the API key cache with the changes channel (PostgreSQL)', () => {
  let at = T0;
  const now = () => at;
  const channels: CallerChanges[] = [];
  /** A replica's authenticator and its channel; pings only when a test asks (`confirm`). */
  async function replica() {
    const changes = listenForCallerChanges({ connection: { connectionString: t.database.url }, now, pingMs: 3_600_000 });
    channels.push(changes);
    await listening(changes);
    return { changes, authenticator: createAuthenticator({ db: t.db, ttlMs: TTL, changes, now }) };
  }
  afterAll(async () => {
    await Promise.all(channels.map((c) => c.close()));
  });

  it('trusts an entry past API_KEY_CACHE_TTL_MS only while the channel heard itself within that time, and never past LONG_TTL_MS', async () => {
    at = T0;
    const { changes, authenticator } = await replica();
    const tenant = await createTenant(t.db);
    const permissions = async () => (await authenticator.authenticate(requestWith(tenant.key))).permissions;
    expect(await permissions()).toEqual(['*']);
    await silently(`UPDATE api_keys SET permissions = '{records:read}' WHERE id = $1`, [tenant.keyId]);

    at = T0 + 60_000;
    await changes.confirm();
    expect(await permissions()).toEqual(['*']); // a minute old, the channel heard itself now
    at = T0 + 60_000 + TTL - 1;
    expect(await permissions()).toEqual(['*']); // its last ping was sent TTL - 1 ago
    at = T0 + 60_000 + TTL;
    expect(await permissions()).toEqual(['records:read']); // the channel is quiet for TTL: read again

    const verifiedAt = at;
    await silently(`UPDATE api_keys SET permissions = '{*}' WHERE id = $1`, [tenant.keyId]);
    at = verifiedAt + LONG_TTL_MS - 1;
    await changes.confirm();
    expect(await permissions()).toEqual(['records:read']);
    at = verifiedAt + LONG_TTL_MS;
    await changes.confirm();
    expect(await permissions()).toEqual(['*']);
  });

  it('applies every change to what a key is made of on every replica once it commits, the clock standing still', async () => {
    at = T0 + 3_600_000;
    const replicas = [await replica(), await replica()];
    const other = await createOrganization(t.db, { name: 'Otra', plan: 'enterprise' });
    const cases: [
      string,
      (tenant: Awaited<ReturnType<typeof createTenant>>) => Promise<unknown>,
      RegExp | ((auth: Record<string, unknown>) => void),
    ][] = [
      ['the key revoked (merma-admin)', (x) => revokeKey(t.db, { id: x.keyId }), /revoked/],
      ['the key deleted', (x) => announced('DELETE FROM api_keys WHERE id = $1', [x.keyId]), /Invalid API key/],
      ['its hash replaced', (x) => announced(`UPDATE api_keys SET key_hash = repeat('0', 64) WHERE id = $1`, [x.keyId]), /Invalid API key/],
      [
        'its permissions',
        (x) => announced(`UPDATE api_keys SET permissions = '{records:read}' WHERE id = $1`, [x.keyId]),
        (a) => expect(a.permissions).toEqual(['records:read']),
      ],
      ['its mode', (x) => announced('UPDATE api_keys SET livemode = true WHERE id = $1', [x.keyId]), (a) => expect(a.livemode).toBe(true)],
      [
        "the establishment's time zone",
        (x) => announced(`UPDATE establishments SET timezone = 'Atlantic/Canary' WHERE id = $1`, [x.establishmentId]),
        (a) => expect(a.timezone).toBe('Atlantic/Canary'),
      ],
      [
        "the establishment's sector",
        (x) => announced(`UPDATE establishments SET sector = 'retail' WHERE id = $1`, [x.establishmentId]),
        (a) => expect(a.sector).toBe('retail'),
      ],
      [
        "the establishment's organisation",
        (x) => announced('UPDATE establishments SET organization_id = $2 WHERE id = $1', [x.establishmentId, other.id]),
        (a) => expect(a.organizationId).toBe(other.id),
      ],
      ['the plan (merma-admin)', (x) => setOrganizationPlan(t.db, { id: x.organizationId, plan: 'pro' }), /Enterprise/],
      [
        'the subscription canceled',
        (x) => announced('UPDATE organizations SET canceled_at = now() WHERE id = $1', [x.organizationId]),
        /cancel/i,
      ],
    ];
    for (const [what, change, expected] of cases) {
      const tenant = await createTenant(t.db);
      for (const { authenticator } of replicas) await authenticator.authenticate(requestWith(tenant.key));
      await change(tenant);
      for (const { changes, authenticator } of replicas) {
        // A ping sent after the commit comes back after the change's announcement.
        await changes.confirm();
        const outcome = authenticator.authenticate(requestWith(tenant.key));
        if (expected instanceof RegExp) await expect(outcome, what).rejects.toThrow(expected);
        else expected((await outcome) as unknown as Record<string, unknown>);
      }
    }
  });

  it("announces nothing on a key's use, nor on another replica's ping", async () => {
    at = T0 + 7_200_000;
    const [{ changes }, second] = [await replica(), await replica()];
    let heard = 0;
    changes.subscribe(() => {
      heard += 1;
    });
    const tenant = await createTenant(t.db);
    await announced('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [tenant.keyId]);
    await second.changes.confirm();
    await changes.confirm();
    expect(heard).toBe(0);
    await announced('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [tenant.keyId]);
    await changes.confirm();
    expect(heard).toBe(1);
  });

  it('drops every entry when its connection is lost, and listens again', async () => {
    at = T0 + 10_800_000;
    const { changes, authenticator } = await replica();
    const tenant = await createTenant(t.db);
    await authenticator.authenticate(requestWith(tenant.key));
    await silently('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [tenant.keyId]);
    await changes.confirm();
    await authenticator.authenticate(requestWith(tenant.key)); // still cached: nobody announced it
    await announced('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [
      CALLER_CHANGES_APPLICATION,
    ]);
    await listening(changes);
    await expect(authenticator.authenticate(requestWith(tenant.key))).rejects.toThrow(/revoked/);
  });

  it('a revoked key stops on another replica as soon as the change commits, however long the cache time', async () => {
    const config = testConfig({ API_KEY_CACHE_TTL_MS: '600000' });
    const apps = [
      await buildTestApp({ config, db: t.db, namedStatements: true }),
      await buildTestApp({ config, db: t.db, namedStatements: true }),
    ];
    try {
      const tenant = await createTenant(t.db);
      for (const app of apps) expect((await api(app, tenant.key).get('/api/v1/causas')).statusCode).toBe(200);
      await revokeKey(t.db, { id: tenant.keyId });
      for (const app of apps) expect(await statusOnceNot200(app, tenant.key, '/api/v1/causas')).toBe(401);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});

describe('merma_api_key_changes_heard', () => {
  it(`is 1 once the replica hears its own pings on PostgreSQL, 0 on the embedded database`, async () => {
    const heard = async () => (await t.metrics.registry.getSingleMetric('merma_api_key_changes_heard')?.get())?.values[0]?.value;
    if (embedded) {
      expect(await heard()).toBe(0);
      return;
    }
    const giveUpAt = Date.now() + deadline(10_000);
    while ((await heard()) !== 1 && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 20));
    expect(await heard()).toBe(1);
  });
});
