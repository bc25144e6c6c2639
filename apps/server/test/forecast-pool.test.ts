import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../src/db/client.js';
import { sqlOfPool } from '../src/db/sql.js';
import { predictDemand } from '../src/modules/predict/demand.js';
import { atOfTask, BATCH_PRODUCTS, createForecastPool, type DemandAt, demandTask, type ForecastPool } from '../src/modules/predict/pool.js';
import { seedKitchen } from './forecast-fixture.js';
import { authOf, createTenant, recordAt, startTestApp, type Tenant, type TestContext } from './helpers.js';

const TODAY = '2026-11-24';
// 19:00 in Madrid: before the last shift ends (22:00), so today's sales are not counted.
const NOW = new Date(`${TODAY}T18:00:00.000Z`);

describe('demand forecast on worker threads', () => {
  let t: TestContext;
  let kitchen: Tenant;
  let pool: ForecastPool;

  beforeAll(async () => {
    t = await startTestApp({ clock: () => NOW });
    kitchen = await createTenant(t.db);
    const ids = await seedKitchen(t.db, kitchen, { products: 40, days: 200, today: TODAY, livemode: false });
    // The last weeks' waste of a few products, by name.
    for (let i = 0; i < 20; i++) {
      await recordAt(t.db, kitchen, `2026-11-${String(1 + i).padStart(2, '0')}T20:00:00.000Z`, {
        food_category: 'prepared_meals',
        product_name: `Plato ${String((i % 4) + 1).padStart(3, '0')}`,
        weight_kg: 0.5 + i / 10,
      });
    }
    expect(ids).toHaveLength(40);
    pool = createForecastPool({ threads: 2 }) as ForecastPool;
  });
  afterAll(async () => {
    await pool?.close();
    await t?.close();
  });

  it('answers exactly what the fits on the event loop answer, batched over real threads', async () => {
    const sql = sqlOfPool(poolOf(t.db));
    const auth = authOf(kitchen);
    const inline = await predictDemand({ sql, clock: () => NOW }, auth, { horizon: 14 });
    const threaded = await predictDemand({ sql, clock: () => NOW, forecasts: pool }, auth, { horizon: 14 });
    // Enough products for several tasks, and the calendar in play: closed Mondays, a closure ahead.
    expect(inline.products.length).toBe(40);
    expect(inline.products.some((p) => p.points.some((x) => x.closed))).toBe(true);
    expect(inline.products.some((p) => p.points.some((x) => x.after_closure))).toBe(true);
    expect(inline.products.some((p) => p.advice.last_4_weeks.waste_kg > 0)).toBe(true);
    expect(threaded).toEqual(inline);
  });

  it('sends the closed days a product can be asked about, and refuses to guess outside them', () => {
    const closedOn = (day: string) => day.endsWith('-07') || day === '2026-11-27';
    const at: DemandAt = { today: TODAY, horizon: 7, closedOn, reopening: new Set(['2026-11-28']), serviceLevel: 0.9 };
    const task = demandTask([{ product: {} as never, days: '2026-10-01,1,0,f;2026-10-02,2,0,f', wasteKg: new Map() }], at);
    expect(task.closed).toEqual({ from: '2026-10-01', to: '2026-12-02', days: ['2026-10-07', '2026-11-07', '2026-11-27'] });
    // What crosses the thread is plain data: structured clone accepts it.
    const rebuilt = atOfTask(structuredClone(task));
    expect(rebuilt).toMatchObject({ today: TODAY, horizon: 7, reopening: new Set(['2026-11-28']), serviceLevel: 0.9 });
    for (const day of ['2026-10-01', '2026-10-07', '2026-11-27', '2026-11-28', '2026-12-02']) {
      expect(rebuilt.closedOn?.(day), day).toBe(closedOn(day));
    }
    expect(() => rebuilt.closedOn?.('2026-09-30')).toThrow(/outside the days sent/);
    expect(() => rebuilt.closedOn?.('2026-12-03')).toThrow(/outside the days sent/);
  });

  it('refuses what cannot cross a thread instead of dropping it', async () => {
    const at = { today: TODAY, horizon: 7, later: () => 1 } as unknown as DemandAt;
    // Several tasks, sent one per turn of the loop: the first one's failure waits for the others
    // without being an unhandled rejection meanwhile.
    const inputs = Array.from({ length: BATCH_PRODUCTS * 2 + 1 }, () => ({ product: {} as never, days: '', wasteKg: new Map() }));
    await expect(pool.demand(inputs, at)).rejects.toThrow(/could not be cloned/);
  });
});
