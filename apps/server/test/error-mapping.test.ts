import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * One mapping from what failed to what the caller is told (`toAppError`, src/errors.ts), on both
 * surfaces: the same database failure, met by the REST API and by the dashboard, is answered with
 * the same status, code, message and retry headers. A trigger makes the insert of a record fail
 * with the SQLSTATE PostgreSQL would raise (a deadlock, a server out of connections), whichever
 * path inserts it.
 */
let t: TestContext;
let tenant: Tenant;
let owner: DashboardBrowser;
const marker = randomUUID().slice(0, 8);
const FAILURES = [
  { name: 'a deadlock (40P01)', sqlstate: '40P01', status: 409, code: 'conflict', headers: { 'x-should-retry': 'true' } },
  { name: 'a serialisation failure (40001)', sqlstate: '40001', status: 409, code: 'conflict', headers: { 'x-should-retry': 'true' } },
  {
    name: 'a database out of connections (53300)',
    sqlstate: '53300',
    status: 503,
    code: 'service_unavailable',
    headers: { 'x-should-retry': 'true', 'retry-after': '1' },
  },
  { name: 'an unknown failure (XX000)', sqlstate: 'XX000', status: 500, code: 'internal', headers: {} },
] as const;
const productOf = (sqlstate: string) => `fail-${sqlstate}-${marker}`;

beforeAll(async () => {
  t = await startTestApp({ config: { REDIS_URL: '' } });
  tenant = await createTenant(t.db);
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  owner = new DashboardBrowser(t.app);
  await owner.signIn(member.email, PASSWORD);
  // A function of this file's own name: other files' tests never insert these product names.
  await t.db.$executeRawUnsafe(`CREATE FUNCTION fail_like_${marker}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.product_name LIKE 'fail-%-${marker}' THEN
        RAISE EXCEPTION 'planted failure' USING ERRCODE = split_part(NEW.product_name, '-', 2);
      END IF;
      RETURN NEW;
    END $$`);
  await t.db.$executeRawUnsafe(
    `CREATE TRIGGER fail_like_${marker} BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION fail_like_${marker}()`,
  );
});

afterAll(async () => {
  await t.db.$executeRawUnsafe(`DROP TRIGGER IF EXISTS fail_like_${marker} ON records`);
  await t.db.$executeRawUnsafe(`DROP FUNCTION IF EXISTS fail_like_${marker}()`);
  await t.close();
});

const RETRY_HEADERS = ['retry-after', 'x-should-retry'];
const retryHeadersOf = (headers: Record<string, unknown>) =>
  Object.fromEntries(RETRY_HEADERS.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]));

describe('a database failure answers the same on the REST API and the dashboard', () => {
  it.each(FAILURES)('$name: $status $code on both, with the same message and retry headers, nothing stored', async (failure) => {
    const record = validRecord({ product_name: productOf(failure.sqlstate) });
    const rest = await api(t.app, tenant.key).post('/api/v1/records', record);
    const dashboard = await owner.raw('mutation', 'records.create', {
      establishment_id: tenant.establishmentId,
      livemode: false,
      ...record,
    });

    expect(rest.statusCode).toBe(failure.status);
    expect(rest.json()).toMatchObject({ status: failure.status, code: failure.code });
    expect(retryHeadersOf(rest.headers)).toEqual(failure.headers);

    expect(dashboard.statusCode).toBe(failure.status);
    const error = dashboard.json().error;
    expect(error.data).toMatchObject({ httpStatus: failure.status, app_code: failure.code });
    expect(retryHeadersOf(dashboard.headers)).toEqual(failure.headers);
    expect(error.message).toBe(rest.json().error);
    // What the database said never reaches the caller.
    expect(JSON.stringify([rest.json(), dashboard.json()])).not.toContain('planted');

    expect(await t.db.record.count({ where: { product_name: productOf(failure.sqlstate) } })).toBe(0);
  });
});
