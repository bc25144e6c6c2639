import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { addKey, api, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';
import { rng } from './series.js';

/**
 * The opening calendar: `/api/v1/opening-calendar` (closed weekdays, closures), its refusals, and
 * what the demand forecast does with it — closed days left out of the fit (a three-week closure
 * does not pull the forecast down), no advice on a closed day, the first days after a closure
 * flagged.
 */

const NOW = new Date('2026-11-24T10:00:00.000Z'); // a Tuesday in Madrid
// Croissants by weekday (Sunday first); the bakery is closed on Mondays.
const WEEKDAY = [90, 0, 30, 35, 40, 60, 85];
const HISTORY = 112;
const day = (i: number) => new Date(Date.UTC(2026, 10, 24 - HISTORY + i)).toISOString().slice(0, 10);
// Closed for three weeks, ending a week before today.
const CLOSURE = { starts_on: '2026-10-26', ends_on: '2026-11-15', reason: 'Vacaciones' };
const closedOn = (d: string) => (d >= CLOSURE.starts_on && d <= CLOSURE.ends_on) || new Date(`${d}T12:00:00Z`).getUTCDay() === 1;

let t: TestContext;

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
});
afterAll(() => t?.close());

const send = (key: string, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const stored = async (tenant: Tenant) => ({
  weekdays: await t.db.$queryRawUnsafe<unknown[]>(
    'SELECT weekday FROM weekly_closed_days WHERE establishment_id = $1::uuid',
    tenant.establishmentId,
  ),
  closures: await t.db.$queryRawUnsafe<unknown[]>('SELECT id FROM closures WHERE establishment_id = $1::uuid', tenant.establishmentId),
});

describe('/api/v1/opening-calendar', () => {
  it('sets the closed weekdays, adds and deletes closures, and answers the whole calendar', async () => {
    const tenant = await createTenant(t.db);
    const empty = await send(tenant.key, 'GET', '/opening-calendar');
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data).toEqual({ closed_weekdays: [], closures: [] });

    const set = await send(tenant.key, 'PUT', '/opening-calendar/weekdays', { closed_weekdays: ['sunday', 'monday'] });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toEqual({ closed_weekdays: ['monday', 'sunday'], closures: [] });
    // Replaced, not added to.
    const reset = await send(tenant.key, 'PUT', '/opening-calendar/weekdays', { closed_weekdays: ['wednesday'] });
    expect(reset.json().data.closed_weekdays).toEqual(['wednesday']);

    const created = await send(tenant.key, 'POST', '/opening-calendar/closures', {
      starts_on: '2026-12-24',
      ends_on: '2026-12-26',
      reason: ' Navidad ',
    });
    expect(created.statusCode, created.body).toBe(201);
    const closure = created.json().data;
    expect(closure).toMatchObject({ starts_on: '2026-12-24', ends_on: '2026-12-26', reason: 'Navidad' });
    expect(closure.created_at).toBe(NOW.toISOString());
    const single = await send(tenant.key, 'POST', '/opening-calendar/closures', { starts_on: '2026-12-08', ends_on: '2026-12-08' });
    expect(single.statusCode).toBe(201);
    expect(single.json().data.reason).toBeNull();

    const calendar = (await send(tenant.key, 'GET', '/opening-calendar')).json().data;
    expect(calendar.closures.map((c: { starts_on: string }) => c.starts_on)).toEqual(['2026-12-08', '2026-12-24']);

    const deleted = await send(tenant.key, 'DELETE', `/opening-calendar/closures/${closure.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().data).toEqual({ id: closure.id, deleted: true });
    const again = await send(tenant.key, 'DELETE', `/opening-calendar/closures/${closure.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await stored(tenant)).closures).toHaveLength(1);
  });

  it.each([
    [
      'a closure that ends before it starts',
      'POST',
      '/opening-calendar/closures',
      { starts_on: '2026-12-26', ends_on: '2026-12-24' },
      'ends_on',
    ],
    ['a closure over a year long', 'POST', '/opening-calendar/closures', { starts_on: '2026-01-01', ends_on: '2027-01-02' }, 'ends_on'],
    ['a date that is not one', 'POST', '/opening-calendar/closures', { starts_on: '2026-02-30', ends_on: '2026-03-01' }, 'starts_on'],
    ['an unknown field', 'POST', '/opening-calendar/closures', { starts_on: '2026-12-24', ends_on: '2026-12-24', note: 'x' }, ''],
    [
      'a reason over 200 characters',
      'POST',
      '/opening-calendar/closures',
      { starts_on: '2026-12-24', ends_on: '2026-12-24', reason: 'x'.repeat(201) },
      'reason',
    ],
    ['a weekday twice', 'PUT', '/opening-calendar/weekdays', { closed_weekdays: ['monday', 'monday'] }, 'closed_weekdays'],
    [
      'every weekday',
      'PUT',
      '/opening-calendar/weekdays',
      { closed_weekdays: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] },
      'closed_weekdays',
    ],
    ['a weekday by number', 'PUT', '/opening-calendar/weekdays', { closed_weekdays: [1] }, 'closed_weekdays.0'],
  ] as const)('refuses %s with a 400 and stores nothing', async (_, method, url, body, path) => {
    const tenant = await createTenant(t.db);
    const res = await send(tenant.key, method, url, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_error' });
    if (path) expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    const after = await stored(tenant);
    expect(after.weekdays).toHaveLength(0);
    expect(after.closures).toHaveLength(0);
  });

  it('needs opening:read and opening:write, and keeps each mode and establishment apart', async () => {
    const reader = await createTenant(t.db, { permissions: 'opening:read' });
    expect((await send(reader.key, 'GET', '/opening-calendar')).statusCode).toBe(200);
    const refused = await send(reader.key, 'PUT', '/opening-calendar/weekdays', { closed_weekdays: ['monday'] });
    expect(refused.statusCode).toBe(403);
    expect((await stored(reader)).weekdays).toHaveLength(0);

    const test = await createTenant(t.db);
    // The same establishment's live key.
    const live = await addKey(t.db, test.establishmentId, 'live');
    const other = await createTenant(t.db);
    const closure = (await send(test.key, 'POST', '/opening-calendar/closures', { starts_on: '2026-12-24', ends_on: '2026-12-24' })).json()
      .data;
    expect((await send(other.key, 'DELETE', `/opening-calendar/closures/${closure.id}`)).statusCode).toBe(404);
    expect((await send(other.key, 'GET', '/opening-calendar')).json().data.closures).toEqual([]);
    expect((await send(live.key, 'GET', '/opening-calendar')).json().data.closures).toEqual([]);
    expect((await send(test.key, 'GET', '/opening-calendar')).json().data.closures).toHaveLength(1);
  });
});

describe('the demand forecast reads the opening calendar', () => {
  type Point = { date: string; expected: number; advised: number; closed: boolean; after_closure: boolean };
  type Product = { points: Point[]; notes: { code: string; message: string }[]; backtest: { days: number } };
  let withCalendar: Tenant;
  let without: Tenant;

  /** The same sales for both bakeries: every open day's croissants; nothing on Mondays nor during the closure. */
  async function bakery(): Promise<Tenant> {
    const tenant = await createTenant(t.db);
    await importProducts(t.db, { org: tenant.organizationId, csv: 'name;food_category;ean\nCroissant;bakery;8410000000023\n' });
    const [product] = await t.db.product.findMany({ where: { organization_id: tenant.organizationId } });
    const r = rng(11);
    const sales: object[] = [];
    for (let i = 0; i < HISTORY; i++) {
      const noise = (r() - 0.5) * 10;
      if (closedOn(day(i))) continue;
      const weekday = new Date(`${day(i)}T12:00:00Z`).getUTCDay();
      sales.push({ product_id: product?.id, quantity: Math.round((WEEKDAY[weekday] as number) + noise), sold_at: day(i) });
    }
    const res = await api(t.app, tenant.key).post('/api/v1/webhooks/inbound', {
      event: 'sales.recorded',
      payload: { source: 'tpv', sales },
    });
    expect(res.statusCode, res.body).toBe(200);
    return tenant;
  }

  beforeAll(async () => {
    withCalendar = await bakery();
    without = await bakery();
    expect((await send(withCalendar.key, 'PUT', '/opening-calendar/weekdays', { closed_weekdays: ['monday'] })).statusCode).toBe(200);
    expect((await send(withCalendar.key, 'POST', '/opening-calendar/closures', CLOSURE)).statusCode).toBe(201);
  });

  const croissant = async (tenant: Tenant, horizon = 7): Promise<Product> => {
    const res = await api(t.app, tenant.key).get(`/api/v1/predict?type=demand&horizon=${horizon}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.products[0];
  };
  const error = (p: Product) => {
    const open = p.points.filter((x) => !closedOn(x.date));
    return (
      open.reduce((a, x) => a + Math.abs(x.expected - (WEEKDAY[new Date(`${x.date}T12:00:00Z`).getUTCDay()] as number)), 0) / open.length
    );
  };

  it('leaves the closure out of the fit, declared or only seen in the sales: the forecast after it stays at the open weeks’ level', async () => {
    const known = await croissant(withCalendar);
    const unknown = await croissant(without);
    // Each open day within 8 croissants of its weekday's level. The other bakery declared nothing,
    // but sold nothing at all on those days: they are closed days too, not days of no demand (taken
    // as zeros, they pulled its forecast to less than half of the weekdays' level).
    expect(error(known)).toBeLessThan(8);
    expect(error(unknown)).toBeLessThan(8);
    // Closed days are not scored either: only open days of the last 8 weeks count.
    const openDays = Array.from({ length: 56 }, (_, i) => day(HISTORY - 56 + i)).filter((d) => !closedOn(d)).length;
    expect(known.backtest.days).toBeLessThanOrEqual(openDays);
  });

  it('advises nothing for a closed day', async () => {
    const p = await croissant(withCalendar);
    const monday = p.points.find((x) => x.date === '2026-11-30');
    expect(monday).toEqual({ date: '2026-11-30', expected: 0, lower: 0, upper: 0, advised: 0, closed: true, after_closure: false });
    expect(p.points.filter((x) => x.closed).map((x) => x.date)).toEqual(['2026-11-30']);
    // Without the calendar the Monday is a day like the others in the answer (its forecast near 0).
    expect((await croissant(without)).points.every((x) => !x.closed && !x.after_closure)).toBe(true);
  });

  it('flags the first three open days after a closure and says so', async () => {
    const tenant = await bakery();
    await send(tenant.key, 'PUT', '/opening-calendar/weekdays', { closed_weekdays: ['monday'] });
    await send(tenant.key, 'POST', '/opening-calendar/closures', CLOSURE);
    // Closed from tomorrow (Wednesday) to Saturday: Sunday, then Tuesday and Wednesday (Monday is closed).
    const res = await send(tenant.key, 'POST', '/opening-calendar/closures', { starts_on: '2026-11-25', ends_on: '2026-11-28' });
    expect(res.statusCode).toBe(201);
    const p = await croissant(tenant, 10);
    expect(p.points.filter((x) => x.closed).map((x) => x.date)).toEqual([
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-30',
    ]);
    expect(p.points.filter((x) => x.after_closure).map((x) => x.date)).toEqual(['2026-11-29', '2026-12-01', '2026-12-02']);
    expect(p.notes).toContainEqual({
      code: 'after_closure',
      message: '2026-11-29, 2026-12-01, 2026-12-02 follow a closure: demand often differs from before it, prepare with care',
    });
  });
});
