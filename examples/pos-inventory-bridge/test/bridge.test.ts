import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Merma } from '@merma/sdk';
import { CAUSA_CADUCIDAD, DESTINO_DONATION, DESTINO_LANDFILL, startTestServer, type Tenant, type TestServer } from '@merma/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The bridge run as a user runs it (a child process) against the real built server started here
 * (@merma/test-server); the products come from the fixture CSV through `merma-admin product import`.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, '../src/bridge.mjs');
const feedFile = path.join(here, '../fixtures/pos-losses.ndjson');
const salesFile = path.join(here, '../fixtures/pos-sales.ndjson');
const COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';

let t: TestServer;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  t = await startTestServer();
  baseUrl = t.url;
  dir = await mkdtemp(path.join(tmpdir(), 'merma-pos-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Run = { code: number | null; stdout: string; stderr: string };

function run(args: string[], key: string, input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { ...process.env, MERMA_API_KEY: key, MERMA_BASE_URL: baseUrl },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

async function tenantWithProducts(): Promise<Tenant> {
  const tenant = await t.createTenant();
  const csv = path.join(here, '../fixtures/products.csv');
  expect(await t.admin(['product', 'import', '--org', tenant.organizationId, '--file', csv])).toMatchObject({ created: 5 });
  return tenant;
}

type StoredRecord = {
  id: string;
  product_name: string | null;
  food_category: string;
  weight_kg: string;
  source: string;
  destino_id: string;
  causa_id: string | null;
  notes: string | null;
};

const recordsOf = async (tenant: Tenant) =>
  (await t.sql.query<StoredRecord>('SELECT * FROM records WHERE establishment_id = $1 ORDER BY chain_seq ASC', [tenant.establishmentId]))
    .rows;

const count = async (table: 'records' | 'inbound_events' | 'sales', tenant: Tenant) =>
  (await t.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE establishment_id = $1`, [tenant.establishmentId]))
    .rows[0]?.n;

/** The organisation's product named Merluza (from the fixture CSV); throws when there is none. */
async function merluzaId(tenant: Tenant): Promise<string> {
  const { rows } = await t.sql.query<{ id: string }>('SELECT id FROM products WHERE organization_id = $1 AND name = $2 LIMIT 1', [
    tenant.organizationId,
    'Merluza',
  ]);
  if (!rows[0]) throw new Error('no product named Merluza');
  return rows[0].id;
}

describe('pos-inventory-bridge against the server', () => {
  it('forwards each loss line as inventory.loss, and a rerun of the feed stores nothing twice', async () => {
    const tenant = await tenantWithProducts();
    const first = await run([feedFile, '--source', 'tpv-centro'], tenant.key);
    expect(first.stdout).toContain('8 lines from tpv-centro: 5 processed, 0 duplicate, 3 failed');
    expect(first.stdout).toMatch(/line 1 TPV1-20261122-0001: processed → record [0-9a-f-]{36}/);
    expect(first.stdout).toContain('line 6 TPV1-20261122-0004: failed: 400 Unknown product (payload.ean: no product of this organisation)');
    expect(first.stdout).toContain('line 7 TPV2-20261122-0003: failed: qty is missing');
    expect(first.stdout).toContain('line 8 TPV2-20261122-0004: failed: cause "Inventada" is unknown');
    expect(first.code).toBe(2);

    const stored = await recordsOf(tenant);
    expect(stored.map((r) => [r.product_name, r.food_category, Number(r.weight_kg), r.source])).toEqual([
      ['Barra de pan', 'bakery', 1.2, 'inbound:tpv-centro'],
      ['Leche entera 1 L', 'dairy', 0.5, 'inbound:tpv-centro'],
      ['Pechuga de pollo', 'meat', 0.75, 'inbound:tpv-centro'],
      ['Manzana golden', 'fruit_veg', 0.907, 'inbound:tpv-centro'],
      ['Merluza', 'fish', 1.5, 'inbound:tpv-centro'],
    ]);
    expect(stored.map((r) => r.destino_id)).toEqual([DESTINO_DONATION, DESTINO_LANDFILL, DESTINO_LANDFILL, COMPOSTING, DESTINO_LANDFILL]);
    expect(stored[1]?.causa_id).toBe(CAUSA_CADUCIDAD);
    expect(stored[4]?.causa_id).toBeNull();
    expect(stored[1]?.notes).toContain('Caducado en lineal');
    const events = (
      await t.sql.query<{ external_ref: string | null }>('SELECT external_ref FROM inbound_events WHERE establishment_id = $1', [
        tenant.establishmentId,
      ])
    ).rows;
    expect(events.map((e) => e.external_ref).sort()).toEqual([
      'TPV1-20261122-0001',
      'TPV1-20261122-0002',
      'TPV1-20261122-0003',
      'TPV2-20261122-0001',
      'TPV2-20261122-0002',
    ]);

    const again = await run([feedFile, '--source', 'tpv-centro', '--json'], tenant.key);
    const summary = JSON.parse(again.stdout);
    expect(summary).toMatchObject({ lines: 8, processed: 0, duplicate: 5, failed: 3 });
    const byLine = new Map(summary.results.map((r: { line: number; record_id?: string }) => [r.line, r.record_id]));
    expect(byLine.get(1)).toBe(stored[0]?.id);
    expect(await count('records', tenant)).toBe(5);
    expect(await count('inbound_events', tenant)).toBe(5);
  });

  it('reads a JSON array from standard input and forwards only the new line of an overlapping feed', async () => {
    const tenant = await tenantWithProducts();
    const lines = (await readFile(feedFile, 'utf8')).trim().split('\n').slice(0, 2);
    expect((await run([feedFile.replace('pos-losses', 'missing'), '--source', 'tpv'], tenant.key)).code).toBe(1);
    const firstTwo = path.join(dir, 'first-two.ndjson');
    await writeFile(firstTwo, `${lines.join('\n')}\n`);
    expect((await run([firstTwo, '--source', 'tpv'], tenant.key)).code).toBe(0);

    const next = {
      id: 'TPV1-20261123-0001',
      product_id: await merluzaId(tenant),
      qty: 250,
      unit: 'g',
    };
    const feed = JSON.stringify([...lines.map((l) => JSON.parse(l)), next]);
    const res = await run(['-', '--source', 'tpv', '--json'], tenant.key, feed);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ lines: 3, processed: 1, duplicate: 2, failed: 0 });
    const stored = await recordsOf(tenant);
    expect(stored).toHaveLength(3);
    expect(stored[2]).toMatchObject({ product_name: 'Merluza', source: 'inbound:tpv' });
    expect(Number(stored[2]?.weight_kg)).toBe(0.25);
  });
});

/**
 * The calendar day `days` before today in the establishment's zone (Europe/Madrid), as a POS there
 * dates its sales: the forecast counts its history in that zone's days, and in the hour after
 * Madrid's midnight the UTC date is still the day before.
 */
const daysAgo = (days: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid' }).format(Date.now() - days * 86_400_000);

/**
 * The sales fixture with its day (2026-11-23) moved to yesterday, so the test keeps working once
 * that day is more than 400 days back (the API refuses older sales).
 */
async function salesFeed(): Promise<string> {
  const shifted = path.join(dir, `pos-sales-${Math.random().toString(36).slice(2)}.ndjson`);
  await writeFile(shifted, (await readFile(salesFile, 'utf8')).replaceAll('2026-11-23', daysAgo(1)));
  return shifted;
}

type StoredSale = { external_ref: string | null; name: string; quantity: number; unit: string; source: string; day: string };

const salesOf = async (tenant: Tenant) =>
  (
    await t.sql.query<StoredSale>(
      `SELECT s.external_ref, p.name, s.quantity::float8 AS quantity, s.unit, s.source, to_char(s.day, 'YYYY-MM-DD') AS day
       FROM sales s JOIN products p ON p.id = s.product_id WHERE s.establishment_id = $1 ORDER BY s.sold_at, s.external_ref`,
      [tenant.establishmentId],
    )
  ).rows;

describe('sales and production advice', () => {
  it('sends the sale lines as one batch keyed <ticket>/<line>, reports the unusable ones by feed line, and a rerun stores nothing', async () => {
    const tenant = await tenantWithProducts();
    const feed = await salesFeed();
    const first = await run([feed, '--source', 'tpv-centro'], tenant.key);
    expect(first.stderr).toBe('');
    expect(first.stdout.trim().split('\n')).toEqual([
      'line 7 T-0414/3: failed: ean: no product of this organisation',
      'line 8 T-0415/1: failed: qty is missing',
      'sales batch 1 (lines 1–10): 9 sent, 8 stored, 0 duplicate, 1 failed',
      '10 sale lines from tpv-centro: 8 stored, 0 duplicate, 2 failed',
    ]);
    expect(first.code).toBe(2);

    const stored = await salesOf(tenant);
    expect(stored.map((s) => [s.external_ref, s.name, s.quantity, s.unit])).toEqual([
      ['T-0412/1', 'Barra de pan', 3, 'unit'],
      ['T-0412/2', 'Leche entera 1 L', 2, 'unit'],
      ['T-0413/1', 'Pechuga de pollo', 0.85, 'kg'],
      ['T-0413/2', 'Manzana golden', 1.25, 'kg'],
      ['T-0414/1', 'Barra de pan', 1, 'unit'],
      ['T-0414/2', 'Merluza', 0.6, 'kg'], // 600 g
      ['T-0415/2', 'Leche entera 1 L', 6, 'unit'],
      ['T-0416/1', 'Pechuga de pollo', 0.68, 'kg'], // 1.5 lb
    ]);
    expect(new Set(stored.map((s) => s.source))).toEqual(new Set(['tpv-centro']));
    expect(new Set(stored.map((s) => s.day))).toEqual(new Set([daysAgo(1)]));
    // Sales are not waste: no record was written.
    expect(await count('records', tenant)).toBe(0);

    const again = await run([feed, '--source', 'tpv-centro', '--json'], tenant.key);
    expect(again.code).toBe(2);
    const summary = JSON.parse(again.stdout);
    expect(summary).toMatchObject({ lines: 0, sales: { lines: 10, stored: 0, duplicate: 8, failed: 2 } });
    expect(summary.sales.batches).toEqual([
      { batch: 1, first_line: 1, last_line: 10, sent: 9, event_id: expect.any(String), stored: 0, duplicate: 8, failed: 1 },
    ]);
    expect(summary.sales.errors).toEqual([
      { line: 7, external_id: 'T-0414/3', status: 'failed', error: 'ean: no product of this organisation' },
      { line: 8, external_id: 'T-0415/1', status: 'failed', error: 'qty is missing' },
    ]);
    expect(await count('sales', tenant)).toBe(8);

    // Another source is another POS: the same ticket lines are new sales there.
    expect((await run([feed, '--source', 'tpv-terraza'], tenant.key)).stdout).toContain('8 stored, 0 duplicate, 2 failed');
    expect(await count('sales', tenant)).toBe(16);

    // A call in which no line is usable is refused as a whole (400): each line is still reported.
    const unusable = path.join(dir, 'unusable.ndjson');
    const old = new Date(Date.now() - 500 * 86_400_000).toISOString().slice(0, 10);
    await writeFile(
      unusable,
      [
        { type: 'sale', ticket: 'T-9', line: 1, ean: '8410000000993', qty: 1, at: daysAgo(1) },
        { type: 'sale', ticket: 'T-9', line: 2, sku: 'PAN-BARRA', qty: 1, at: old },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    const refused = await run([unusable, '--source', 'tpv-centro'], tenant.key);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain('line 1 T-9/1: failed: ean: no product of this organisation\n');
    expect(refused.stdout).toContain('line 2 T-9/2: failed: at: may be at most 400 days back\n');
    expect(refused.stdout).toContain('2 sale lines from tpv-centro: 0 stored, 0 duplicate, 2 failed');
    expect(await count('sales', tenant)).toBe(16);
  });

  it('splits more than 2000 sale lines into calls of 2000, each failure reported on its feed line', async () => {
    const tenant = await tenantWithProducts();
    const at = `${daysAgo(1)}T09:30:00Z`;
    const lines = Array.from({ length: 2003 }, (_, i) => ({
      type: 'sale',
      ticket: `T-${Math.floor(i / 4) + 1}`,
      line: (i % 4) + 1,
      sku: 'PAN-BARRA',
      qty: 1,
      at,
    }));
    lines[1500] = { ...lines[1500], sku: 'NO-EXISTE' } as (typeof lines)[number];
    lines[2001] = { ...lines[2001], sku: 'NO-EXISTE' } as (typeof lines)[number];
    const feed = path.join(dir, 'many.ndjson');
    await writeFile(feed, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

    const res = await run([feed, '--source', 'tpv'], tenant.key);
    expect(res.stdout.trim().split('\n')).toEqual([
      'line 1501 T-376/1: failed: sku: no product of this organisation',
      'sales batch 1 (lines 1–2000): 2000 sent, 1999 stored, 0 duplicate, 1 failed',
      'line 2002 T-501/2: failed: sku: no product of this organisation',
      'sales batch 2 (lines 2001–2003): 3 sent, 2 stored, 0 duplicate, 1 failed',
      '2003 sale lines from tpv: 2001 stored, 0 duplicate, 2 failed',
    ]);
    expect(await count('sales', tenant)).toBe(2001);
    const refs = (await salesOf(tenant)).map((s) => s.external_ref);
    expect(refs).toContain('T-1/1');
    expect(refs).toContain('T-501/3');
    expect(refs).not.toContain('T-376/1');
  });

  it('forwards a feed mixing losses and day totals, then prints tomorrow’s production advice', async () => {
    const tenant = await tenantWithProducts();
    // Three weeks of bread: a day's total sold each evening (busier at the weekend), 70 baked a
    // day and the rest recorded as a loss in kg (a loaf is 0.25 kg); three days of hake sold by weight.
    const WEEKDAY = [58, 34, 30, 33, 36, 47, 62];
    const feed: object[] = [];
    for (let d = 21; d >= 1; d--) {
      const day = daysAgo(d);
      const sold = (WEEKDAY[new Date(`${day}T12:00:00Z`).getUTCDay()] as number) + (d % 3) - 1;
      feed.push({ type: 'sale', ticket: `Z-${day}`, line: 'PAN-BARRA', sku: 'PAN-BARRA', qty: sold, at: day });
      feed.push({
        id: `MERMA-${day}-PAN`,
        ean: '8410000000016',
        qty: (70 - sold) * 0.25,
        cause: 'Sobreproducción',
        at: `${day}T20:30:00Z`,
      });
      if (d <= 3) feed.push({ type: 'sale', ticket: `Z-${day}`, line: 'MERLUZA', sku: 'MERLUZA', qty: 2 + d / 2, unit: 'kg', at: day });
    }
    const file = path.join(dir, 'three-weeks.ndjson');
    await writeFile(file, feed.map((l) => JSON.stringify(l)).join('\n'));

    const res = await run([file, '--source', 'obrador', '--advice'], tenant.key);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('21 loss lines from obrador: 21 processed, 0 duplicate, 0 failed');
    expect(res.stdout).toContain('24 sale lines from obrador: 24 stored, 0 duplicate, 0 failed');
    expect(await count('records', tenant)).toBe(21);
    expect(await count('sales', tenant)).toBe(24);

    // The table shows what the API advises.
    const merma = new Merma({ apiKey: tenant.key, baseUrl, maxRetries: 0 });
    const { products } = await merma.predict.demand({ horizon: 1 });
    expect(products.map((p) => [p.product_name, p.unit, p.history_days])).toEqual([
      ['Barra de pan', 'unit', 21],
      ['Merluza', 'kg', 3],
    ]);
    const [bread, hake] = products;
    if (!bread || !hake) throw new Error('no advice');
    const tomorrow = bread.points[0];
    const avoided = bread.advice.last_4_weeks;
    expect(tomorrow && avoided.avoided_kg !== null && avoided.avoided_pct !== null).toBe(true);
    if (!tomorrow || avoided.avoided_kg === null) throw new Error('no advice for bread');
    const advice = res.stdout.slice(res.stdout.indexOf('Production advice'));
    const rows = advice.trim().split('\n');
    expect(rows[0]).toBe(`Production advice for ${tomorrow.date}:`);
    expect(rows[1]).toMatch(/^product\s+expected\s+advised\s+unit\s+waste avoided, last 4 weeks$/);
    expect(rows[2]?.split(/\s{2,}/)).toEqual([
      'Barra de pan',
      String(Math.round(tomorrow.expected * 10) / 10),
      String(tomorrow.advised),
      'unit',
      `${avoided.avoided_kg} kg (${avoided.avoided_pct} %)`,
    ]);
    expect(rows[3]?.split(/\s{2,}/)).toEqual([
      'Merluza',
      String(Math.round((hake.points[0]?.expected ?? 0) * 10) / 10),
      String(hake.points[0]?.advised),
      'kg',
      hake.advice.last_4_weeks.avoided_kg === null ? '—' : expect.stringContaining(' kg'),
    ]);
    // The forecast's notes on each product follow the table: whether today's sales are in (for
    // both), and the hake's short history.
    expect(hake.notes.map((n) => n.code)).toContain('short_history');
    expect(bread.notes.map((n) => n.code)).toEqual(['today_excluded']);
    expect(rows.slice(4)).toEqual([
      ...bread.notes.map((n) => `  Barra de pan: ${n.message}`),
      ...hake.notes.map((n) => `  Merluza: ${n.message}`),
    ]);
    expect(rows[4]).toMatch(/^ {2}Barra de pan: today's sales are not included/);
    expect(rows[5]).toMatch(/^ {2}Merluza: 3 days of sales history/);

    // The advice alone, as JSON; a rerun of the feed stores nothing new.
    const json = await run(['--advice', '--json'], tenant.key);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).advice[0]).toEqual({
      product_id: bread.product_id,
      product_name: 'Barra de pan',
      unit: 'unit',
      date: tomorrow.date,
      expected: tomorrow.expected,
      advised: tomorrow.advised,
      avoided_kg: avoided.avoided_kg,
      avoided_pct: avoided.avoided_pct,
      short_days: avoided.short_days,
      notes: bread.notes,
    });
    const rerun = JSON.parse((await run([file, '--source', 'obrador', '--json'], tenant.key)).stdout);
    expect(rerun).toMatchObject({ lines: 21, processed: 0, duplicate: 21, sales: { lines: 24, stored: 0, duplicate: 24, failed: 0 } });
    expect(await count('sales', tenant)).toBe(24);
  });
});
