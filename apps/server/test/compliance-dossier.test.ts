import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyProblems } from './contract.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import {
  addKey,
  api,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  recordAt,
  startTestApp,
  type Tenant,
  type TestContext,
} from './helpers.js';

/**
 * The inspection dossier (`GET /api/v1/compliance/dossier.zip`, modules/compliance/dossier.ts),
 * checked from outside Merma: unzipped by the system's `unzip`, its files by `sha256sum -c`, a
 * checkpoint's signature by `openssl pkeyutl`, and everything by the `verify.mjs` it ships, run by
 * Node as a customer would.
 *
 * The kitchen (test mode, clock 29 November 2026): three records of 2026 (4 kg donated in March,
 * 2 kg landfilled in May, 1 kg landfilled in June with a reason), one of 2025 (7 kg); a plan
 * generated, then a verification that signs a checkpoint. Its 2026 CSV has three rows; its live
 * record and another kitchen's are in no dossier of it.
 */
let t: TestContext;
let kitchen: Tenant;
let other: Tenant;
const dirs: string[] = [];

const download = (key: string | undefined, query = '') => api(t.app, key).get(`/api/v1/compliance/dossier.zip${query}`);

function unzipped(bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'merma-dossier-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'dossier.zip'), bytes);
  execFileSync('unzip', ['-q', 'dossier.zip', '-d', 'out'], { cwd: dir });
  return join(dir, 'out');
}

const csvRows = (dir: string, name: string) =>
  readFileSync(join(dir, name), 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter(Boolean).length - 1;

beforeAll(async () => {
  t = await startTestApp({ clock: () => new Date('2026-11-29T10:00:00.000Z') });
  kitchen = await createTenant(t.db);
  other = await createTenant(t.db);
  await recordAt(t.db, kitchen, '2026-03-10T12:00:00.000Z', { food_category: 'bakery', weight_kg: 4, destino_id: DESTINO_DONATION });
  await recordAt(t.db, kitchen, '2026-05-01T12:00:00.000Z', { food_category: 'bakery', weight_kg: 2, destino_id: DESTINO_LANDFILL });
  await recordAt(t.db, kitchen, '2026-06-01T12:00:00.000Z', {
    food_category: 'bakery',
    weight_kg: 1,
    destino_id: DESTINO_LANDFILL,
    hierarchy_reason: 'no_taker',
  });
  await recordAt(t.db, kitchen, '2025-06-01T12:00:00.000Z', { food_category: 'bakery', weight_kg: 7, destino_id: DESTINO_LANDFILL });
  await recordAt(t.db, kitchen, '2026-04-01T12:00:00.000Z', { food_category: 'meat', weight_kg: 20 }, { livemode: true });
  await recordAt(t.db, other, '2026-04-01T12:00:00.000Z', { food_category: 'meat', weight_kg: 30 });
  expect((await api(t.app, kitchen.key).post('/api/v1/prevention-plan', {})).statusCode).toBe(201);
  const verified = await api(t.app, kitchen.key).get('/api/v1/records/verify');
  expect(verified.statusCode).toBe(200);
  expect(verified.json().data.checkpoint).not.toBeNull();
});

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

describe('GET /api/v1/compliance/dossier.zip', () => {
  it('is a ZIP that the system unzips, with the same bytes on every download', async () => {
    const first = await download(kitchen.key, '?year=2026');
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/zip');
    expect(first.headers['content-disposition']).toMatch(/^attachment; filename="merma-dossier-2026-[0-9a-f]{8}-test\.zip"$/);
    const digest = createHash('sha256').update(first.rawPayload).digest();
    expect(first.headers.etag).toBe(`"${digest.toString('hex')}"`);
    expect(first.headers['repr-digest']).toBe(`sha-256=:${digest.toString('base64')}:`);
    const second = await download(kitchen.key, '?year=2026');
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);

    const dir = unzipped(first.rawPayload);
    const listing = execFileSync('unzip', ['-Z1', join(dir, '..', 'dossier.zip')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    // Every entry dated 1 January of the year, whenever and wherever it was built (`zipinfo -T`: yyyymmdd.hhmmss).
    const dates = execFileSync('zipinfo', ['-T', join(dir, '..', 'dossier.zip')], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => /^[-d]r/.test(line))
      .map((line) => line.split(/\s+/)[6]);
    expect(dates.length).toBe(listing.length);
    expect(new Set(dates)).toEqual(new Set(['20260101.000000']));
    expect(listing).toEqual(
      expect.arrayContaining([
        'README.txt',
        'SHA256SUMS',
        'verify.mjs',
        'plan/versions.json',
        'plan/v0001-2026-11-29.md',
        'register/records-2026-es.csv',
        'register/verification.json',
        'register/checkpoints.json',
        'register/checkpoints/0001.msg',
        'register/checkpoints/0001.sig',
        'documents/entries.json',
        'documents/0001-prevention_plan.json',
        'keys/merma-checkpoint-keys.json',
        'compliance/obligations.json',
        'compliance/esrs-e5-2026.json',
        'compliance/esrs-e5-2026.csv',
        'compliance/reduction-2026.json',
        'plan/measures.json',
        'plan/training-sessions-2026.json',
        'compliance/hierarchy-2026.json',
        'donations/agreements.json',
      ]),
    );
    // The year's records of this kitchen and mode, and no other's.
    expect(csvRows(dir, 'register/records-2026-es.csv')).toBe(3);
    const hierarchy = JSON.parse(readFileSync(join(dir, 'compliance/hierarchy-2026.json'), 'utf8'));
    expect(hierarchy.below_best).toEqual({ records: 2, kg: 3 });
    expect(hierarchy.justified).toEqual({ records: 1, kg: 1 });
    const esrs = JSON.parse(readFileSync(join(dir, 'compliance/esrs-e5-2026.json'), 'utf8'));
    expect(esrs.year).toBe(2026);
    expect(JSON.parse(readFileSync(join(dir, 'register/verification.json'), 'utf8'))).toMatchObject({ valid: true, checked: 4 });
    expect(readFileSync(join(dir, 'README.txt'), 'utf8')).toContain('Año 2026: del 2026-01-01 al 2026-11-29');

    const lastYear = unzipped((await download(kitchen.key, '?year=2025&lang=en')).rawPayload);
    expect(csvRows(lastYear, 'register/records-2025.csv')).toBe(1);
    expect(readFileSync(join(lastYear, 'README.txt'), 'utf8')).toContain('Year 2025: 2025-01-01 to 2025-12-31');
  });

  it('checks out with tools outside Merma: sha256sum, openssl and its own verify.mjs under Node', async () => {
    const dir = unzipped((await download(kitchen.key)).rawPayload);
    expect(spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' }).status).toBe(0);

    const checkpoints = JSON.parse(readFileSync(join(dir, 'register/checkpoints.json'), 'utf8'));
    expect(checkpoints.length).toBeGreaterThanOrEqual(1);
    const c = checkpoints[0];
    const openssl = spawnSync(
      'openssl',
      ['pkeyutl', '-verify', '-pubin', '-inkey', `keys/${c.key_id}.pem`, '-rawin', '-in', c.message_file, '-sigfile', c.signature_file],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(openssl.stdout).toContain('Signature Verified Successfully');
    expect(openssl.status).toBe(0);

    const verify = spawnSync(process.execPath, ['verify.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(verify.stdout).toContain('All checks passed.');
    expect(verify.stdout).not.toContain('FAILED');
    expect(verify.status).toBe(0);

    // A checkpoint's message altered (and its sum mended, as a forger would): the signature fails,
    // and openssl says so too.
    writeFileSync(join(dir, c.message_file), readFileSync(join(dir, c.message_file), 'utf8').replace(/\|(\d+)\|/, '|9$1|'));
    const sums = readFileSync(join(dir, 'SHA256SUMS'), 'utf8').replace(
      new RegExp(`^[0-9a-f]{64}(  ${c.message_file})$`, 'm'),
      `${createHash('sha256')
        .update(readFileSync(join(dir, c.message_file)))
        .digest('hex')}$1`,
    );
    writeFileSync(join(dir, 'SHA256SUMS'), sums);
    const forged = spawnSync(process.execPath, ['verify.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(forged.status).toBe(1);
    expect(forged.stdout).toMatch(/^FAILED checkpoint of record \d+/m);
    const refused = spawnSync(
      'openssl',
      ['pkeyutl', '-verify', '-pubin', '-inkey', `keys/${c.key_id}.pem`, '-rawin', '-in', c.message_file, '-sigfile', c.signature_file],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(refused.status).not.toBe(0);

    // A stored plan version changed in the ZIP: its document no longer hashes to its entry.
    const plan = join(dir, 'documents/0001-prevention_plan.json');
    writeFileSync(plan, readFileSync(plan, 'utf8').replace('"total_kg"', '"total_kg "'));
    const changed = spawnSync(process.execPath, ['verify.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(changed.stdout).toContain('FAILED document 1: documents/0001-prevention_plan.json is the document entered');
  });

  it('answers bad input with a 400 in the contract shape, and a key lacking a permission with a 403', async () => {
    for (const query of ['?year=2027', '?year=abc', '?year=1999', '?lang=fr', '?format=pdf']) {
      const res = await download(kitchen.key, query);
      expect(res.statusCode, query).toBe(400);
      expect(errorBodyProblems(res), query).toEqual([]);
    }
    expect((await download(undefined)).statusCode).toBe(401);
    const reader = await addKey(t.db, kitchen.establishmentId, 'test', 'records:read');
    const forbidden = await download(reader.key);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ status: 403, code: 'forbidden' });
    expect(JSON.stringify(forbidden.json())).toContain('analytics:read');
  });

  it('is the same file from the dashboard, for a viewer of the organisation; refused without a session, cross-site, for bad input and for another organisation', async () => {
    const member = await createMember(t.db, kitchen.organizationId, 'viewer');
    const viewer = new DashboardBrowser(t.app);
    await viewer.signIn(member.email, PASSWORD);
    const cookie = `merma_session=${viewer.cookies.get('merma_session')}`;
    const get = (query: string, headers: Record<string, string> = { cookie, 'sec-fetch-site': 'same-origin' }) =>
      t.app.inject({ method: 'GET', url: `/export/dossier.zip?${query}`, headers });
    const mine = `establishment_id=${kitchen.establishmentId}&mode=test`;
    const page = await get(`${mine}&year=2026`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-type']).toBe('application/zip');
    expect(page.rawPayload.equals((await download(kitchen.key, '?year=2026')).rawPayload)).toBe(true);

    expect((await get(mine, { 'sec-fetch-site': 'same-origin' })).statusCode).toBe(401);
    expect((await get(mine, { cookie, 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    for (const query of [`${mine}&year=2027`, `${mine}&lang=fr`, `establishment_id=${kitchen.establishmentId}`, `${mine}&dialect=es`]) {
      const res = await get(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toMatchObject({ status: 400, code: 'validation_error' });
    }
    expect((await get(`establishment_id=${other.establishmentId}&mode=test`)).statusCode).toBe(404);
  });

  it("holds a kitchen's own register only: the other kitchen's dossier has its one record, and live mode its own", async () => {
    const theirs = unzipped((await download(other.key, '?year=2026')).rawPayload);
    expect(csvRows(theirs, 'register/records-2026-es.csv')).toBe(1);
    expect(readFileSync(join(theirs, 'register/records-2026-es.csv'), 'utf8')).toContain('30');
    const live = await addKey(t.db, kitchen.establishmentId, 'live');
    const liveDossier = unzipped((await download(live.key, '?year=2026')).rawPayload);
    expect(csvRows(liveDossier, 'register/records-2026-es.csv')).toBe(1);
    expect(readFileSync(join(liveDossier, 'plan/versions.json'), 'utf8')).toBe('[]\n');
  });
});
