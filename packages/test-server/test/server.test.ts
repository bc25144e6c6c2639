import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAt, startTestServer, type TestServer } from '../src/index.js';

describe('startTestServer', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_GENERAL_PER_MINUTE: '3' } });
  });
  afterAll(() => server?.close());

  it('serves the built server on its own port and database', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.databaseKind).toBe(process.env.DATABASE_URL ? 'postgresql' : 'pglite');
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    const { rows } = await server.sql.query('SELECT count(*)::int AS n FROM organizations');
    expect(rows[0].n).toBe(0);
  });

  it('creates tenants with merma-admin that the API and SQL both see', async () => {
    const tenant = await server.createTenant({ plan: 'enterprise_multi', timezone: 'Atlantic/Canary', sector: 'retail' });
    const { rows } = await server.sql.query(
      'SELECT o.plan, e.timezone, e.sector FROM establishments e JOIN organizations o ON o.id = e.organization_id WHERE e.id = $1',
      [tenant.establishmentId],
    );
    expect(rows).toEqual([{ plan: 'enterprise_multi', timezone: 'Atlantic/Canary', sector: 'retail' }]);
    const res = await fetch(`${server.url}/api/v1/establishments`, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { id: string }[] }).data.map((e) => e.id)).toContain(tenant.establishmentId);
    const second = await server.createTenant({ organizationId: tenant.organizationId, mode: 'live', permissions: 'records:read' });
    expect(second.organizationId).toBe(tenant.organizationId);
    expect(second.key).toMatch(/^svc_live_/);
  });

  it('applies configuration overrides (here a general limit of 3 a minute)', async () => {
    const { key } = await server.createTenant();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await fetch(`${server.url}/api/v1/causas`, { headers: { authorization: `Bearer ${key}` } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('stores a record that happened at a given time, in an intact chain', async () => {
    const tenant = await server.createTenant();
    const at = new Date(Date.now() - 10 * 86_400_000 - 123).toISOString(); // ten days ago
    const stored = await recordAt(server, tenant, at, { weight_kg: 2.25 });
    expect(stored.occurred_at).toBe(at);
    const { rows } = await server.sql.query('SELECT occurred_at, weight_kg::float AS kg FROM records WHERE id = $1', [stored.id]);
    expect(rows).toEqual([{ occurred_at: new Date(at), kg: 2.25 }]);
    const verify = await fetch(`${server.url}/api/v1/records/verify`, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect(((await verify.json()) as { data: { valid: boolean } }).data.valid).toBe(true);
  });
});

it('close() stops the server, drops its database and removes its data directory', async () => {
  const server = await startTestServer();
  const { url, dataDir, databaseUrl } = server;
  expect(existsSync(dataDir)).toBe(true);
  await server.close();
  await expect(fetch(`${url}/readyz`)).rejects.toThrow();
  expect(existsSync(dataDir)).toBe(false);
  if (process.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_database WHERE datname = $1', [
      new URL(databaseUrl).pathname.slice(1),
    ]);
    await client.end();
    expect(rows[0].n).toBe(0);
  }
});
