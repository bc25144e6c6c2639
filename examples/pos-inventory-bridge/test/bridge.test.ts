import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CAUSA_CADUCIDAD, DESTINO_DONATION, DESTINO_LANDFILL, startTestServer, type Tenant, type TestServer } from '@merma/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The bridge run as a user runs it (a child process) against the real built server started here
 * (@merma/test-server); the products come from the fixture CSV through `merma-admin product import`.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, '../src/bridge.mjs');
const feedFile = path.join(here, '../fixtures/pos-losses.ndjson');
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

const count = async (table: 'records' | 'inbound_events', tenant: Tenant) =>
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
