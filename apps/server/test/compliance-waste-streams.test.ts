import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyProblems } from './contract.js';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { addKey, api, createTenant, DESTINO_DONATION, DESTINO_LANDFILL, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Destinations with their waste codes (modules/compliance/waste-streams.ts): each destination that
 * is waste is a stream with its LER code and authorised manager (NIMA), per establishment; each
 * record says the transfer document it was handed over with (`transfer_document_ref`, hashed when
 * set), and the inspection dossier carries both.
 */
let t: TestContext;
let kitchen: Tenant;
let owner: DashboardBrowser;
let viewer: DashboardBrowser;
const COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';
const dirs: string[] = [];

const put = (key: string, destination: string, body: unknown) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/v1/compliance/waste-streams/${destination}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
const streamRows = async () => (await t.db.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM waste_streams'))[0]?.n;

beforeAll(async () => {
  t = await startTestApp({ config: { REDIS_URL: '' }, clock: () => new Date('2026-11-29T10:00:00.000Z') });
  kitchen = await createTenant(t.db);
  const o = await createMember(t.db, kitchen.organizationId, 'owner');
  const v = await createMember(t.db, kitchen.organizationId, 'viewer');
  owner = new DashboardBrowser(t.app);
  viewer = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
  await viewer.signIn(v.email, PASSWORD);
});

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

describe('waste streams', () => {
  it('lists each destination that is waste, in the hierarchy’s order, and keeps the code and manager a key sets', async () => {
    const fresh = await createTenant(t.db);
    const listed = await api(t.app, fresh.key).get('/api/v1/compliance/waste-streams');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data).toEqual(
      ['composting', 'energy_recovery', 'landfill'].map((code) => ({
        destination_id: expect.any(String),
        destination_code: code,
        wfd_operation: { composting: 'R3', energy_recovery: 'R1', landfill: 'D1' }[code],
        ler_code: null,
        ler_label: null,
        manager_name: null,
        manager_nima: null,
        updated_at: null,
      })),
    );

    // Written as the list writes it, whatever the sender's spacing; the manager's name trimmed.
    const set = await put(fresh.key, DESTINO_LANDFILL, {
      ler_code: '200301',
      manager_name: ' Urbaser Madrid ',
      manager_nima: '2800012345',
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toEqual({
      destination_id: DESTINO_LANDFILL,
      destination_code: 'landfill',
      wfd_operation: 'D1',
      ler_code: '20 03 01',
      ler_label: {
        es: 'Mezclas de residuos municipales (otros residuos municipales)',
        en: 'Mixed municipal waste (other municipal wastes)',
      },
      manager_name: 'Urbaser Madrid',
      manager_nima: '2800012345',
      updated_at: '2026-11-29T10:00:00.000Z',
    });
    // Sent whole: a second PUT replaces the manager.
    const again = await put(fresh.key, DESTINO_LANDFILL, { ler_code: '20 03 01', manager_name: null, manager_nima: null });
    expect(again.json().data).toMatchObject({ ler_code: '20 03 01', manager_name: null, manager_nima: null });
    const after = (await api(t.app, fresh.key).get('/api/v1/compliance/waste-streams')).json().data;
    expect(after.map((s: { ler_code: string | null }) => s.ler_code)).toEqual([null, null, '20 03 01']);

    // Another establishment's streams are its own.
    expect((await api(t.app, kitchen.key).get('/api/v1/compliance/waste-streams')).json().data[2].ler_code).toBeNull();
  });

  it('refuses a destination that is not waste, an unknown code, a bad NIMA and a read-only key, writing nothing', async () => {
    const before = await streamRows();
    const cases: [string, unknown, number][] = [
      [DESTINO_DONATION, { ler_code: '20 01 08', manager_name: null, manager_nima: null }, 400],
      [COMPOSTING, { ler_code: '15 01 01', manager_name: null, manager_nima: null }, 400], // paper packaging: not food
      [COMPOSTING, { ler_code: '2001', manager_name: null, manager_nima: null }, 400],
      [COMPOSTING, { ler_code: '20 01 08', manager_name: null, manager_nima: '280001234' }, 400],
      [COMPOSTING, { ler_code: '20 01 08', manager_name: null, manager_nima: '28000123AB' }, 400],
      [COMPOSTING, { ler_code: '20 01 08', manager_name: 'x'.repeat(201), manager_nima: null }, 400],
      [COMPOSTING, { manager_name: 'Sin código', manager_nima: null }, 400],
      [COMPOSTING, { ler_code: '20 01 08', manager_name: null, manager_nima: null, extra: 1 }, 400],
      ['7b1e4c1a-0000-4000-8000-000000000000', { ler_code: '20 01 08', manager_name: null, manager_nima: null }, 404],
      ['not-a-uuid', { ler_code: '20 01 08', manager_name: null, manager_nima: null }, 400],
    ];
    for (const [destination, body, status] of cases) {
      const res = await put(kitchen.key, destination, body);
      expect(res.statusCode, `${destination} ${JSON.stringify(body)}: ${res.body}`).toBe(status);
      expect(errorBodyProblems(res)).toEqual([]);
    }
    const donation = await put(kitchen.key, DESTINO_DONATION, { ler_code: '20 01 08', manager_name: null, manager_nima: null });
    expect(donation.json().details).toEqual([
      expect.objectContaining({ path: 'destination_id', message: expect.stringMatching(/^donation is not waste/) }),
    ]);
    const readOnly = await addKey(t.db, kitchen.establishmentId, 'test', 'catalog:read');
    expect((await put(readOnly.key, COMPOSTING, { ler_code: '20 01 08', manager_name: null, manager_nima: null })).statusCode).toBe(403);
    expect(await streamRows()).toBe(before);
  });

  it('is set and removed by an owner in the dashboard, each change audited, and refused to a viewer', async () => {
    const scope = { establishment_id: kitchen.establishmentId };
    const audited = () =>
      t.db.auditEvent.count({
        where: { organization_id: kitchen.organizationId, action: { in: ['waste_stream.updated', 'waste_stream.removed'] } },
      });
    const auditBefore = await audited();
    const set = await owner.mutate('compliance.setWasteStream', {
      ...scope,
      destination_id: COMPOSTING,
      ler_code: '20 01 08',
      manager_name: 'Compostajes del Sur',
      manager_nima: '4100098765',
    });
    expect(set).toMatchObject({ destination_code: 'composting', ler_code: '20 01 08', manager_nima: '4100098765' });
    expect(set.ler_label.es).toBe('Residuos biodegradables de cocinas y restaurantes (fracciones recogidas selectivamente)');
    const listed = await viewer.query('compliance.wasteStreams', scope);
    expect(listed.find((s: { destination_code: string }) => s.destination_code === 'composting')).toMatchObject({
      manager_name: 'Compostajes del Sur',
    });
    expect(
      await failure(
        viewer.mutate('compliance.setWasteStream', {
          ...scope,
          destination_id: COMPOSTING,
          ler_code: '20 01 08',
          manager_name: null,
          manager_nima: null,
        }),
      ),
    ).toMatchObject({ status: 403 });
    expect(await failure(viewer.mutate('compliance.removeWasteStream', { ...scope, destination_id: COMPOSTING }))).toMatchObject({
      status: 403,
    });

    const removed = await owner.mutate('compliance.removeWasteStream', { ...scope, destination_id: COMPOSTING });
    expect(removed).toMatchObject({ destination_code: 'composting', ler_code: null, manager_name: null, updated_at: null });
    // Removing what is not there is a 404, and audits nothing.
    expect(await failure(owner.mutate('compliance.removeWasteStream', { ...scope, destination_id: COMPOSTING }))).toMatchObject({
      status: 404,
    });
    expect(await audited()).toBe(auditBefore + 2);
    const entries = await t.db.auditEvent.findMany({
      where: { organization_id: kitchen.organizationId, action: { in: ['waste_stream.updated', 'waste_stream.removed'] } },
    });
    expect(entries.map((e) => [e.action, e.target]).sort()).toEqual([
      ['waste_stream.removed', 'composting'],
      ['waste_stream.updated', 'composting'],
    ]);
  });
});

describe('the transfer document on a record', () => {
  it('is stored, answered, hashed when set (the chain verifies) and refused when blank or too long', async () => {
    const tenant = await createTenant(t.db);
    const created = await api(t.app, tenant.key).post('/api/v1/records', {
      food_category: 'bakery',
      weight_kg: 3,
      destino_id: DESTINO_LANDFILL,
      transfer_document_ref: 'DI-2026/000123',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.transfer_document_ref).toBe('DI-2026/000123');
    const plain = await api(t.app, tenant.key).post('/api/v1/records', {
      food_category: 'bakery',
      weight_kg: 1,
      destino_id: DESTINO_LANDFILL,
    });
    expect(plain.json().data.transfer_document_ref).toBeNull();
    const listed = (await api(t.app, tenant.key).get('/api/v1/records')).json().data;
    expect(listed.map((r: { transfer_document_ref: string | null }) => r.transfer_document_ref).sort()).toEqual(['DI-2026/000123', null]);
    const stored = await t.db.record.findUniqueOrThrow({ where: { id: created.json().data.id } });
    expect(stored.transfer_document_ref).toBe('DI-2026/000123');

    const verified = await api(t.app, tenant.key).get('/api/v1/records/verify?full=true');
    expect(verified.json().data).toMatchObject({ valid: true, checked: 2 });
    // Tampering with the stored reference breaks the chain: the field is in the hash.
    await t.db.$executeRawUnsafe(`UPDATE records SET transfer_document_ref = 'DI-2026/000999' WHERE id = $1::uuid`, created.json().data.id);
    expect((await api(t.app, tenant.key).get('/api/v1/records/verify?full=true')).json().data.valid).toBe(false);
    await t.db.$executeRawUnsafe(`UPDATE records SET transfer_document_ref = 'DI-2026/000123' WHERE id = $1::uuid`, created.json().data.id);

    const count = await t.db.record.count({ where: { establishment_id: tenant.establishmentId } });
    for (const ref of ['', '   ', 'x'.repeat(101), 'DI\u00001', 42]) {
      const res = await api(t.app, tenant.key).post('/api/v1/records', {
        food_category: 'bakery',
        weight_kg: 1,
        destino_id: DESTINO_LANDFILL,
        transfer_document_ref: ref,
      });
      expect(res.statusCode, JSON.stringify(ref)).toBe(400);
      expect(res.json().details[0].path).toBe('transfer_document_ref');
    }
    expect(await t.db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(count);
  });

  it('is in the register CSV and, with each stream’s code and manager, in the inspection dossier', async () => {
    const tenant = await createTenant(t.db);
    expect(
      (await put(tenant.key, DESTINO_LANDFILL, { ler_code: '20 01 08', manager_name: 'Gestora Norte', manager_nima: '4800011111' }))
        .statusCode,
    ).toBe(200);
    const created = await api(t.app, tenant.key).post('/api/v1/records', {
      food_category: 'fish',
      weight_kg: 2.5,
      destino_id: DESTINO_LANDFILL,
      transfer_document_ref: 'DI;"48"\n=1',
    });
    expect(created.statusCode, created.body).toBe(201);
    const zip = await api(t.app, tenant.key).get('/api/v1/compliance/dossier.zip?year=2026');
    expect(zip.statusCode, zip.body.slice(0, 200)).toBe(200);
    const dir = mkdtempSync(join(tmpdir(), 'merma-streams-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'dossier.zip'), zip.rawPayload);
    execFileSync('unzip', ['-q', 'dossier.zip', '-d', 'out'], { cwd: dir });
    const streams = JSON.parse(readFileSync(join(dir, 'out/compliance/waste-streams.json'), 'utf8'));
    expect(streams.find((s: { destination_code: string }) => s.destination_code === 'landfill')).toMatchObject({
      ler_code: '20 01 08',
      manager_name: 'Gestora Norte',
      manager_nima: '4800011111',
    });
    const csv = readFileSync(join(dir, 'out/register/records-2026-es.csv'), 'utf8');
    expect(csv.split('\r\n')[0]).toContain(';Documento de traslado;');
    // The CSV quotes the cell and defuses the formula its second line starts.
    expect(csv).toContain('"DI;""48""\n\'=1"');
    execFileSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: join(dir, 'out') });
  });
});
