import { DONATION_TAX_NOTE_CODES, type DonationTaxPack } from '@merma/schema';
import { parse } from 'csv-parse/sync';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAX_NOTE_TEXT } from '../src/modules/donations/tax.js';
import { errorBodyProblems, fetchOpenApi, type OpenApiDocument } from './contract.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';
import { pdfText } from './pdf.js';

/** A PDF's text with the lines a table cell wrapped joined again. */
const flatText = (pdf: Buffer) => pdfText(pdf).replace(/\s*\n\s*/g, ' ');

/**
 * The donations' tax pack served (`GET /api/v1/donations/tax-pack`, its CSV and PDF, and an
 * entity's certificate), over donations made through the API on a clock moved across 2024–2026:
 *
 * - the worked example of decision 0011 — one food bank given 1 000 € in 2024 and 1 200 € in 2025
 *   (one gift collected at 00:30 on 1 January 2025 in Madrid, 23:30 UTC the day before), so 40 % in
 *   2025 and 50 % in 2026; in 2026 a line whose book value passes its market value (the cap bites),
 *   a line without market value, a refused line, and a second establishment of the same company;
 * - an art. 2 entity outside the regime (no deduction, VAT base 0), an entity that is not of art. 2
 *   (the VAT warning, its name a formula the CSV neutralises);
 * - what is never read: test-mode donations, offered or accepted but not collected ones, refused
 *   lines, another organisation's donations;
 * - two companies (CIFs) in one organisation, the 15 % limit on one of them;
 * - a single-establishment key: its share, with the rate read from its company's other establishment.
 */

let now = new Date('2026-11-20T10:00:00.000Z');
let t: TestContext;
let doc: OpenApiDocument;

let a1: Tenant; // org A (Enterprise Multi), company X
let a1Live: string;
let a2Live: string; // org A, company X too
let a3Live: string; // org A, company Y
let b: Tenant; // another organisation
let bLive: string;
let c1Live: string; // org C (Enterprise, one establishment per key), company Z
let c2Live: string;
const ids: Record<string, string> = {};
let cifX: string;
let cifY: string;
let cifZ: string;

const send = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, contentType = 'application/json') =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });

const ok = (res: LightMyRequestResponse, status = 200) => {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res;
};

async function entity(key: string, name: string, nif: string, art2_entity: boolean, regime_opted_in: boolean) {
  const res = ok(
    await send(key, 'POST', '/social-entities', {
      name,
      nif,
      address: 'Calle Mayor 1, 28013 Madrid',
      legal_form: 'banco_de_alimentos',
      registry_number: 'RNA 1234',
      ley_49_2002: { art2_entity, regime_opted_in },
      capacity: { cold_chain: true, vehicle: true },
    }),
    201,
  );
  return res.json().data.id as string;
}

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(64, 7), Buffer.from('\n%%EOF\n')]);

async function agreement(key: string, entityId: string, establishmentIds: string[]) {
  const res = ok(
    await send(key, 'POST', '/donation-agreements', {
      entity_id: entityId,
      establishment_ids: establishmentIds,
      valid_from: '2024-01-01',
      valid_until: '2026-12-31',
      renewal: 'none',
      accepted_food_categories: ['bakery', 'fruit_veg'],
      conditions: { chilled: true, frozen: true, cooked: true, near_best_before: true },
      collection: { schedule: 'Lunes', weekdays: ['monday'], transport: 'entity' },
      storage_conditions: 'Seco',
      safety_responsibility_clause: 'Cada parte la suya',
      refusal_procedure: 'Por escrito',
    }),
    201,
  );
  const id = res.json().data.id as string;
  ok(await send(key, 'PUT', `/donation-agreements/${id}/document`, PDF, 'application/pdf'));
  return id;
}

type Line = { description: string; book_value: number | null; market_value?: number | null; quantity?: number };

/**
 * A donation offered at `at`, answered (the lines in `refuse` refused), and collected at `collected`
 * (left accepted, or offered, when `until` says so); the clock is put back after.
 */
async function give(
  key: string,
  agreementId: string,
  lines: Line[],
  at: string,
  options: { collected?: string; refuse?: number[]; until?: 'offered' | 'accepted' | 'collected' | 'received' } = {},
) {
  const saved = now;
  try {
    now = new Date(at);
    const offered = ok(
      await send(key, 'POST', '/donations', {
        agreement_id: agreementId,
        lines: lines.map((l) => ({
          description: l.description,
          food_category: 'bakery',
          quantity: l.quantity ?? 10,
          unit: 'kg',
          book_value: l.book_value,
          market_value: l.market_value === undefined ? l.book_value : l.market_value,
        })),
      }),
      201,
    ).json().data;
    const until = options.until ?? 'collected';
    if (until === 'offered') return offered.id as string;
    ok(
      await send(key, 'POST', `/donations/${offered.id}/decision`, {
        lines: offered.lines.map((l: { id: string }, i: number) =>
          options.refuse?.includes(i)
            ? { line_id: l.id, decision: 'refused', reason: 'Sin espacio' }
            : { line_id: l.id, decision: 'accepted' },
        ),
      }),
    );
    if (until === 'accepted') return offered.id as string;
    now = new Date(options.collected ?? at);
    ok(await send(key, 'POST', `/donations/${offered.id}/collect`));
    if (until === 'received') ok(await send(key, 'POST', `/donations/${offered.id}/receive`));
    return offered.id as string;
  } finally {
    now = saved;
  }
}

const cifOf = async (establishmentId: string) =>
  (await t.db.$queryRawUnsafe<{ cif: string }[]>('SELECT cif FROM establishments WHERE id = $1::uuid', establishmentId))[0]?.cif as string;

beforeAll(async () => {
  t = await startTestApp({ clock: () => now });
  doc = await fetchOpenApi(t.app);
  a1 = await createTenant(t.db, { plan: 'enterprise_multi' });
  a1Live = (await addKey(t.db, a1.establishmentId, 'live')).key;
  const a2 = await createTenant(t.db, { organizationId: a1.organizationId });
  const a3 = await createTenant(t.db, { organizationId: a1.organizationId });
  a2Live = (await addKey(t.db, a2.establishmentId, 'live')).key;
  a3Live = (await addKey(t.db, a3.establishmentId, 'live')).key;
  cifX = await cifOf(a1.establishmentId);
  cifY = await cifOf(a3.establishmentId);
  // A2 is another establishment of A1's company.
  await t.db.$executeRawUnsafe('UPDATE establishments SET cif = $1 WHERE id = $2::uuid', cifX, a2.establishmentId);
  Object.assign(ids, { a1: a1.establishmentId, a2: a2.establishmentId, a3: a3.establishmentId });

  ids.bank = await entity(a1Live, 'Banco de Alimentos de Madrid', 'G28029643', true, true);
  ids.parish = await entity(a1Live, 'Parroquia San José', 'R2800001F', true, false);
  ids.club = await entity(a1Live, '=Club Deportivo', 'G46036018', false, false);
  const bank = await agreement(a1Live, ids.bank, [a1.establishmentId, a2.establishmentId, a3.establishmentId]);
  const parish = await agreement(a1Live, ids.parish, [a1.establishmentId]);
  const club = await agreement(a1Live, ids.club, [a1.establishmentId]);

  // The worked example: 1 000 € in 2024, 1 200 € in 2025 (500 of them collected at 00:30 on New Year's Day in Madrid).
  ids.d2024 = await give(a1Live, bank, [{ description: 'Pan 2024', book_value: 1000, market_value: 1500 }], '2024-03-10T10:00:00Z');
  ids.dNewYear = await give(a1Live, bank, [{ description: 'Roscón', book_value: 500, market_value: 600 }], '2024-12-31T20:00:00Z', {
    collected: '2024-12-31T23:30:00Z',
    until: 'received',
  });
  ids.d2025 = await give(a1Live, bank, [{ description: 'Fruta 2025', book_value: 700, market_value: 800 }], '2025-06-02T10:00:00Z');
  // 2026: the cap bites (300 → 200), a line without market value (100), a refused line (999, not read).
  ids.d2026 = await give(
    a1Live,
    bank,
    [
      { description: 'Tartas', book_value: 300, market_value: 200 },
      { description: 'Galletas', book_value: 100, market_value: null },
      { description: 'Bollería rechazada', book_value: 999, market_value: 999 },
    ],
    '2026-02-03T10:00:00Z',
    { refuse: [2] },
  );
  ids.d2026a2 = await give(
    a2Live,
    bank,
    [{ description: 'Pan de A2', book_value: 400, market_value: 500, quantity: 12.5 }],
    '2026-04-05T10:00:00Z',
  );
  ids.dParish = await give(a1Live, parish, [{ description: 'Verdura', book_value: 250, market_value: 300 }], '2026-05-06T10:00:00Z');
  ids.dClub = await give(a1Live, club, [{ description: 'Bocadillos', book_value: 80, market_value: 90 }], '2026-07-08T10:00:00Z');
  // Company Y gives to the same bank for the first time.
  ids.dY = await give(a3Live, bank, [{ description: 'Pan de Y', book_value: 60, market_value: 60 }], '2026-03-03T10:00:00Z');
  // Never read: test mode, not collected.
  ids.dTest = await give(a1.key, bank, [{ description: 'Prueba', book_value: 5000 }], '2026-03-04T10:00:00Z');
  ids.dOffered = await give(a1Live, bank, [{ description: 'Solo ofrecida', book_value: 7000 }], '2026-03-05T10:00:00Z', {
    until: 'offered',
  });
  ids.dAccepted = await give(a1Live, bank, [{ description: 'Sin recoger', book_value: 8000 }], '2026-03-06T10:00:00Z', {
    until: 'accepted',
  });

  // Another organisation, its own bank (same NIF) and gifts.
  b = await createTenant(t.db, { plan: 'enterprise_multi' });
  bLive = (await addKey(t.db, b.establishmentId, 'live')).key;
  ids.bBank = await entity(bLive, 'Banco de B', 'G28029643', true, true);
  ids.dB = await give(
    bLive,
    await agreement(bLive, ids.bBank, [b.establishmentId]),
    [{ description: 'De B', book_value: 12345.67 }],
    '2026-02-03T10:00:00Z',
  );

  // Organisation C on the Enterprise plan: C2 gave in 2024 and 2025, C1 (same company) in 2026.
  const c1 = await createTenant(t.db);
  const c2 = await createTenant(t.db, { organizationId: c1.organizationId });
  c1Live = (await addKey(t.db, c1.establishmentId, 'live')).key;
  c2Live = (await addKey(t.db, c2.establishmentId, 'live')).key;
  cifZ = await cifOf(c1.establishmentId);
  await t.db.$executeRawUnsafe('UPDATE establishments SET cif = $1 WHERE id = $2::uuid', cifZ, c2.establishmentId);
  Object.assign(ids, { c1: c1.establishmentId, c2: c2.establishmentId });
  ids.cBank = await entity(c1Live, 'Banco de C', 'G28029643', true, true);
  const cBank = await agreement(c1Live, ids.cBank, [c1.establishmentId, c2.establishmentId]);
  ids.dC2024 = await give(c2Live, cBank, [{ description: 'C2 2024', book_value: 100 }], '2024-05-05T10:00:00Z');
  ids.dC2025 = await give(c2Live, cBank, [{ description: 'C2 2025', book_value: 100 }], '2025-05-05T10:00:00Z');
  ids.dC2026 = await give(c1Live, cBank, [{ description: 'C1 2026', book_value: 200 }], '2026-05-05T10:00:00Z');
  ids.dC2026c2 = await give(c2Live, cBank, [{ description: 'C2 2026', book_value: 40 }], '2026-06-06T10:00:00Z');
});
afterAll(() => t?.close());

const pack = async (key: string, query: string) =>
  ok(await send(key, 'GET', `/donations/tax-pack?${query}`)).json().data as DonationTaxPack;
const taxpayer = (p: DonationTaxPack, cif: string) => {
  const found = p.taxpayers.find((x) => x.cif === cif);
  if (!found) throw new Error(`no taxpayer ${cif} in ${JSON.stringify(p.taxpayers.map((x) => x.cif))}`);
  return found;
};
const entityOf = (p: DonationTaxPack, cif: string, id: string) => {
  const found = taxpayer(p, cif).entities.find((e) => e.entity_id === id);
  if (!found) throw new Error(`no entity ${id} for ${cif}`);
  return found;
};
const codes = (notes: { code: string }[]) => notes.map((n) => n.code);

/** Holds a file route's answer to the OpenAPI document: a documented status, and its content type. */
function documented(path: string, res: LightMyRequestResponse) {
  const responses = (doc.paths[path]?.get as { responses: Record<string, { content?: Record<string, unknown> }> } | undefined)?.responses;
  const response = responses?.[String(res.statusCode)];
  expect(response, `${path} → ${res.statusCode} is not documented`).toBeDefined();
  const type = String(res.headers['content-type']).split(';')[0] as string;
  expect(Object.keys(response?.content ?? {}), `${path} → ${res.statusCode}`).toContain(type);
  if (type === 'application/json') expect(errorBodyProblems(res)).toEqual([]);
}

describe('the worked example through the API', () => {
  it('2026: the bank at 50 % after 1 000 € in 2024 and 1 200 € in 2025, the cap, a line without market value, the refused line left out', async () => {
    const p = await pack(a1Live, 'year=2026');
    expect(p).toMatchObject({ year: 2026, livemode: true, scope: 'organisation', generated_at: now.toISOString() });
    expect(p.rules).toEqual({ rate_pct: 40, recurrent_rate_pct: 50, taxable_base_limit_pct: 15, carry_forward_years: 10, computed: true });
    expect(p.taxpayers.map((x) => x.cif)).toEqual([cifX, cifY].sort());

    const bank = entityOf(p, cifX, ids.bank as string);
    expect(bank).toMatchObject({
      name: 'Banco de Alimentos de Madrid',
      nif: 'G28029643',
      ley_49_2002: { art2_entity: true, regime_opted_in: true },
      rate_pct: 50,
      recurrence: {
        years: [
          { year: 2024, base: 1000 },
          { year: 2025, base: 1200 },
        ],
        met: true,
      },
    });
    // 200 (capped from 300) + 100 (no market value) from A1, 400 from A2; the refused 999 is not read.
    expect(bank.totals).toEqual({
      net_kg: 32.5,
      book_value: 800,
      market_value_cap: 100,
      base: 700,
      deductible_base: 700,
      base_within_limit: 700,
      base_over_limit: 0,
      deduction: 350,
    });
    expect(bank.establishments).toEqual(
      [
        { establishment_id: ids.a1, base: 300, deduction: 150 },
        { establishment_id: ids.a2, base: 400, deduction: 200 },
      ].sort((x, y) => ((x.establishment_id as string) < (y.establishment_id as string) ? -1 : 1)),
    );
    expect(codes(bank.notes)).toEqual(['rate_recurrence', 'market_value_unknown', 'market_value_cap_applied']);

    const x = taxpayer(p, cifX);
    expect(x.totals).toMatchObject({
      book_value: 1130,
      market_value_cap: 100,
      base: 1030,
      deductible_base: 700,
      deduction: 350,
      taxable_base: null,
      limit: null,
      carry_forward_until_year: null,
    });
    expect(codes(x.totals?.notes ?? [])).toContain('taxable_base_limit_not_checked');
    expect(x.establishments.map((e) => [e.establishment_id, e.base, e.deduction]).sort()).toEqual(
      [
        [ids.a1, 630, 150],
        [ids.a2, 400, 200],
      ].sort(),
    );
    // Only collected donations of live mode, this organisation: not the test, offered, accepted nor B's.
    expect(x.donations.map((d) => d.donation_id).sort()).toEqual([ids.d2026, ids.d2026a2, ids.dParish, ids.dClub].sort());
    expect(x.donations.find((d) => d.donation_id === ids.d2026)).toMatchObject({
      handed_over_on: '2026-02-03',
      lines: 2,
      book_value: 400,
      market_value_cap: 100,
      base: 300,
      vat: { taxable_base: 0, rate_pct: 0 },
    });
    const body = JSON.stringify(p);
    for (const hidden of [ids.dTest, ids.dOffered, ids.dAccepted, ids.dB, ids.bBank, ids.d2024, ids.d2025]) {
      expect(body.includes(hidden as string), hidden).toBe(false);
    }
  });

  it('2025: 40 %, the 500 € collected at 00:30 on New Year’s Day in Madrid counted in 2025, the history before 2024 flagged', async () => {
    const p = await pack(a1Live, 'year=2025');
    const bank = entityOf(p, cifX, ids.bank as string);
    expect(bank).toMatchObject({
      rate_pct: 40,
      recurrence: {
        years: [
          { year: 2023, base: 0 },
          { year: 2024, base: 1000 },
        ],
        met: false,
      },
      totals: { base: 1200, deduction: 480 },
    });
    expect(codes(bank.notes)).toEqual(['rate_general', 'recurrence_history_incomplete']);
    expect(taxpayer(p, cifX).donations.find((d) => d.donation_id === ids.dNewYear)?.handed_over_on).toBe('2025-01-01');
    expect(p.taxpayers.map((t) => t.cif)).toEqual([cifX]);
  });

  it('an entity outside the regime gives no deduction (VAT base 0); one not of art. 2 gets the VAT warning', async () => {
    const p = await pack(a1Live, 'year=2026');
    const parish = entityOf(p, cifX, ids.parish as string);
    expect(parish).toMatchObject({ rate_pct: 0, totals: { base: 250, deductible_base: 0, deduction: 0 } });
    expect(codes(parish.notes)).toEqual(['entity_not_in_regime']);
    const donations = taxpayer(p, cifX).donations;
    expect(donations.find((d) => d.donation_id === ids.dParish)?.vat).toEqual({ taxable_base: 0, rate_pct: 0 });
    const club = donations.find((d) => d.donation_id === ids.dClub);
    expect(club?.vat).toEqual({ taxable_base: null, rate_pct: null });
    expect(codes(club?.notes ?? [])).toEqual(['vat_self_supply_adviser']);
    expect(codes(entityOf(p, cifX, ids.club as string).notes)).toEqual(['entity_not_in_regime']);
  });

  it('each company on its own: Y’s first gift to the same bank is 40 % whatever X gave', async () => {
    const y = taxpayer(await pack(a1Live, 'year=2026'), cifY);
    const bank = y.entities[0];
    expect(y.entities).toHaveLength(1);
    expect(bank).toMatchObject({ entity_id: ids.bank, rate_pct: 40, totals: { base: 60, deduction: 24 }, recurrence: { met: false } });
    expect(codes(bank?.notes ?? [])).toContain('recurrence_history_incomplete');
  });

  it('applies the 15 % limit to one company’s taxable base, and asks which company when the key sees several', async () => {
    const p = await pack(a1Live, `year=2026&taxable_base=2000.00&cif=${cifX.toLowerCase()}`);
    expect(p.taxpayers.map((x) => x.cif)).toEqual([cifX]);
    const x = taxpayer(p, cifX);
    expect(x.totals).toMatchObject({
      taxable_base: 2000,
      limit: 300,
      deductible_base: 700,
      base_within_limit: 300,
      base_over_limit: 400,
      deduction: 150,
      carry_forward_until_year: 2036,
    });
    expect(codes(x.totals?.notes ?? [])).toContain('taxable_base_limit_applied');
    const both = await send(a1Live, 'GET', '/donations/tax-pack?year=2026&taxable_base=2000');
    expect(both.statusCode, both.body).toBe(400);
    expect(both.json().details).toEqual([{ path: 'taxable_base', message: expect.stringContaining('give cif') }]);
  });
});

describe('who sees what', () => {
  it('a single-establishment key sees its share, with the rate its company’s other establishment earned', async () => {
    const p = await pack(c1Live, 'year=2026');
    expect(p.scope).toBe('establishment');
    const z = taxpayer(p, cifZ);
    expect(z.totals).toBeNull();
    expect(z.establishments.map((e) => e.establishment_id)).toEqual([ids.c1]);
    expect(z.donations.map((d) => d.donation_id)).toEqual([ids.dC2026]);
    expect(z.entities).toEqual([
      expect.objectContaining({
        entity_id: ids.cBank,
        rate_pct: 50,
        totals: null,
        recurrence: {
          years: [
            { year: 2024, base: 100 },
            { year: 2025, base: 100 },
          ],
          met: true,
        },
        establishments: [{ establishment_id: ids.c1, base: 200, deduction: 100 }],
      }),
    ]);
    const body = JSON.stringify(p);
    for (const hidden of [ids.dC2024, ids.dC2025, ids.dC2026c2, ids.c2]) expect(body.includes(hidden as string), hidden).toBe(false);
  });

  it('keeps organisations apart: B sees only its own gifts, and nothing of A whatever it asks', async () => {
    const p = await pack(bLive, 'year=2026');
    expect(p.taxpayers).toHaveLength(1);
    expect(p.taxpayers[0]?.totals).toMatchObject({ base: 12345.67, deduction: 4938.27 });
    const mine = JSON.stringify(p);
    for (const id of [ids.bank, ids.d2026, ids.a1, cifX]) expect(mine.includes(id as string), id).toBe(false);
    expect((await pack(bLive, `year=2026&cif=${cifX}`)).taxpayers).toEqual([]);
    const certificate = await send(bLive, 'GET', `/donations/tax-pack/certificates/${ids.bank}.pdf?year=2026`);
    expect(certificate.statusCode).toBe(404);
    documented('/donations/tax-pack/certificates/{entity_id}.pdf', certificate);
    for (const file of ['csv', 'pdf']) {
      const res = ok(await send(bLive, 'GET', `/donations/tax-pack.${file}?year=2026`));
      const text = file === 'pdf' ? pdfText(res.rawPayload) : res.body;
      for (const word of ['Banco de Alimentos de Madrid', cifX, 'Tartas']) expect(text.includes(word), `${file}: ${word}`).toBe(false);
    }
  });

  it('a test key’s pack is of its test donations only, and says so', async () => {
    const p = await pack(a1.key, 'year=2026');
    expect(p.livemode).toBe(false);
    expect(p.taxpayers.flatMap((x) => x.donations.map((d) => d.donation_id))).toEqual([ids.dTest]);
    const res = ok(await send(a1.key, 'GET', '/donations/tax-pack.pdf?year=2026'));
    expect(res.headers['content-disposition']).toBe('attachment; filename="pack-fiscal-donaciones-2026-prueba.pdf"');
    expect(pdfText(res.rawPayload)).toContain('PRUEBA — datos de prueba, sin validez fiscal');
  });

  it('answers 403 without donations:read, on the JSON and the files', async () => {
    const limited = await addKey(t.db, a1.establishmentId, 'live', 'records:read');
    for (const url of [
      '/donations/tax-pack?year=2026',
      '/donations/tax-pack.csv?year=2026',
      `/donations/tax-pack/certificates/${ids.bank}.pdf?year=2026`,
    ]) {
      const res = await send(limited.key, 'GET', url);
      expect(res.statusCode, url).toBe(403);
    }
  });
});

describe('the files', () => {
  const readCsv = (body: string) =>
    parse(body, { bom: true, delimiter: ';', columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
  const euros = (cell: string | undefined) => Number((cell ?? '').replace(',', '.'));

  it('writes a CSV a Spanish spreadsheet opens, with the JSON’s figures', async () => {
    const res = ok(await send(a1Live, 'GET', '/donations/tax-pack.csv?year=2026'));
    documented('/donations/tax-pack.csv', res);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="pack-fiscal-donaciones-2026.csv"');
    expect([...res.rawPayload.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(res.body.split('\r\n').length).toBeGreaterThan(5);
    expect(res.body.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);

    const rows = readCsv(res.body);
    const p = await pack(a1Live, 'year=2026');
    const x = taxpayer(p, cifX);
    const company = rows.find((r) => r.Nivel === 'Empresa' && r.CIF === cifX);
    expect(company?.['Base art. 18 (€)']).toBe('1030,00');
    for (const [header, value] of [
      ['Valor contable (€)', x.totals?.book_value],
      ['Reducción a valor de mercado (€)', x.totals?.market_value_cap],
      ['Base con derecho a deducción (€)', x.totals?.deductible_base],
      ['Deducción (€)', x.totals?.deduction],
    ] as const) {
      expect(euros(company?.[header]), header).toBe(value);
    }
    for (const e of x.entities) {
      // A name that starts a formula is written as text (a ' before it).
      const cell = /^[=+\-@]/.test(e.name) ? `'${e.name}` : e.name;
      const row = rows.find((r) => r.Nivel === 'Entidad' && r.CIF === cifX && r['NIF entidad'] === e.nif && r.Entidad === cell);
      expect(euros(row?.['Base art. 18 (€)']), e.name).toBe(e.totals?.base);
      expect(euros(row?.['Deducción (€)']), e.name).toBe(e.totals?.deduction);
      expect(Number(row?.['Porcentaje de deducción (%)']), e.name).toBe(e.rate_pct);
    }
    for (const d of x.donations) {
      const row = rows.find((r) => r.Nivel === 'Donación' && r.Donación === d.donation_id);
      expect(row?.['Fecha de entrega']).toBe(d.handed_over_on.split('-').reverse().join('/'));
      expect(euros(row?.['Base art. 18 (€)'])).toBe(d.base);
      expect(euros(row?.Kg)).toBe(d.net_kg);
      expect(row?.['IVA: base imponible (€)']).toBe(d.vat.taxable_base === null ? '' : '0,00');
    }
    for (const e of x.establishments) {
      const row = rows.find((r) => r.Nivel === 'Establecimiento' && r.Establecimiento === e.name);
      expect(euros(row?.['Deducción (€)'])).toBe(e.deduction);
    }
    expect(rows.filter((r) => r.Entidad?.includes('Club Deportivo')).map((r) => r.Entidad)).toContain("'=Club Deportivo");
    expect(rows.find((r) => r.Nivel === 'Donación' && r.Donación === ids.d2026a2)?.Kg).toBe('12,5');
  });

  it('writes the PDF summary with the totals, the same bytes for the same clock', async () => {
    const res = ok(await send(a1Live, 'GET', '/donations/tax-pack.pdf?year=2026'));
    documented('/donations/tax-pack.pdf', res);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = flatText(res.rawPayload);
    for (const expected of [
      'Pack fiscal de donaciones — ejercicio 2026',
      `Empresa donante: CIF ${cifX}`,
      '1.030,00 €', // X's base
      '350,00 €', // X's deduction
      '700,00 €', // the bank's base
      'Banco de Alimentos de Madrid (G28029643)',
      '1.000,00 € / 1.200,00 € (recurrencia)',
      'Autoconsumo: asesor',
      'Página 1 de',
    ]) {
      expect(text, expected).toContain(expected);
    }
    const again = ok(await send(a1Live, 'GET', '/donations/tax-pack.pdf?year=2026'));
    expect(again.rawPayload.equals(res.rawPayload)).toBe(true);
  });

  it('pre-fills the art. 24 certificate of an entity, one per donor company', async () => {
    const res = ok(await send(a1Live, 'GET', `/donations/tax-pack/certificates/${ids.bank}.pdf?year=2026`));
    documented('/donations/tax-pack/certificates/{entity_id}.pdf', res);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="certificado-donativos-2026-${ids.bank}.pdf"`);
    const text = flatText(res.rawPayload);
    for (const expected of [
      'Certificado de donaciones recibidas',
      'Banco de Alimentos de Madrid',
      'G28029643',
      'Calle Mayor 1, 28013 Madrid',
      cifX,
      cifY,
      'Tartas',
      'Pan de A2',
      '700,00 €', // X's total to the bank
      '60,00 €', // Y's
      'irrevocable',
      'Firma del representante de la entidad y sello',
    ]) {
      expect(text, expected).toContain(expected);
    }
    expect(text).not.toContain('Bollería rechazada');
    expect(text).not.toContain('Prueba');
    const parish = flatText(ok(await send(a1Live, 'GET', `/donations/tax-pack/certificates/${ids.parish}.pdf?year=2026`)).rawPayload);
    expect(parish).toContain('no consta acogida al régimen fiscal especial');
    // An entity given nothing that year: 404.
    const none = await send(a1Live, 'GET', `/donations/tax-pack/certificates/${ids.parish}.pdf?year=2024`);
    expect(none.statusCode).toBe(404);
  });
});

describe('bad input', () => {
  it.each([
    ['no year', ''],
    ['a year that is not a number', 'year=dos-mil'],
    ['a year before 2000', 'year=1999'],
    ['a year after 2100', 'year=2101'],
    ['a taxable base with a comma', 'year=2026&taxable_base=12,5'],
    ['an unknown parameter', 'year=2026&entity=1'],
    ['a CIF holding a NUL, which PostgreSQL cannot compare', 'year=2026&cif=%00'],
  ])('answers 400 to %s, on the JSON and the files', async (_name, query) => {
    for (const path of ['/donations/tax-pack', '/donations/tax-pack.csv', '/donations/tax-pack.pdf']) {
      const res = await send(a1Live, 'GET', `${path}?${query}`);
      expect(res.statusCode, `${path}?${query}: ${res.body}`).toBe(400);
      expect(errorBodyProblems(res)).toEqual([]);
      if (path !== '/donations/tax-pack') documented(path, res);
    }
  });

  it('answers 400 to a certificate whose entity id is not a UUID', async () => {
    const res = await send(a1Live, 'GET', '/donations/tax-pack/certificates/banco.pdf?year=2026');
    expect(res.statusCode).toBe(400);
    documented('/donations/tax-pack/certificates/{entity_id}.pdf', res);
  });

  it('names every note the schema lists, and no other', () => {
    expect([...DONATION_TAX_NOTE_CODES].sort()).toEqual(Object.keys(TAX_NOTE_TEXT).sort());
  });
});
