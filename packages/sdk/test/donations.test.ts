import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  APIError,
  BadRequestError,
  ConflictError,
  type DecideDonationInput,
  type Donation,
  type DonationCertificateQuery,
  type DonationEventData,
  type DonationLine,
  type DonationLink,
  type DonationSignedCertificate,
  type DonationTaxPack,
  type DonationTaxPackQuery,
  Merma,
  NotFoundError,
  type Page,
  PermissionDeniedError,
  signWebhook,
  verifyWebhook,
  type WebhookEvent,
} from '../src/index.js';
import { API, BASE, envelope, errorBody, HttpResponse, http, KEY, server, uuid } from './setup.js';

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = (opts: Partial<ConstructorParameters<typeof Merma>[0]> = {}) => new Merma({ apiKey: KEY, baseUrl: BASE, ...opts });

const DONATION = uuid(31);
const LINE = uuid(32);
const AGREEMENT = uuid(33);
const DESTINO_FEED = uuid(34);

const line: DonationLine = {
  id: LINE,
  position: 1,
  product_id: null,
  food_category: 'bakery',
  description: 'Pan del día',
  lot: null,
  best_before: '2026-11-30',
  use_by: null,
  quantity: 4.5,
  unit: 'kg',
  net_kg: 4.5,
  storage: 'ambient',
  cooked: false,
  book_value: 9,
  market_value: 18,
  allergens: ['gluten'],
  temperature_c: null,
  status: 'offered',
  refusal_reason: null,
  record_id: uuid(35),
  rerouted: null,
};

const donation = (n = 31, extra: Partial<Donation> = {}): Donation => ({
  id: uuid(n),
  establishment_id: uuid(9999),
  livemode: false,
  agreement_id: AGREEMENT,
  entity_id: uuid(21),
  entity_name: 'Banco de Alimentos',
  status: 'offered',
  notes: null,
  offered_at: '2026-11-23T10:00:00.000Z',
  decided_at: null,
  collected_at: null,
  received_at: null,
  lines: [line],
  totals: { net_kg: 4.5, accepted_kg: 0, book_value: 9, market_value: 18 },
  awaiting_reroute: 0,
  ...extra,
});

type Seen = { method: string; path: string; query: Record<string, string>; body: unknown; key: string | null };

/** Answers every call under /donations with `answer`, and keeps what each request carried. */
function donationsServer(seen: Seen[], answer: (req: Seen) => Response = () => HttpResponse.json(envelope(donation()))) {
  const handler = async ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    const text = await request.text();
    const req: Seen = {
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: text ? JSON.parse(text) : undefined,
      key: request.headers.get('idempotency-key'),
    };
    seen.push(req);
    return answer(req);
  };
  server.use(http.get(`${API}/donations*`, handler), http.post(`${API}/donations*`, handler));
}

const offer = {
  agreement_id: AGREEMENT,
  notes: 'Recogida a las 18:00',
  lines: [
    { description: 'Pan del día', food_category: 'bakery' as const, quantity: 4.5, unit: 'kg' as const, allergens: ['gluten' as const] },
  ],
};

describe('donations', () => {
  it('create: POST /donations with the body, an Idempotency-Key, and the donation typed', async () => {
    const seen: Seen[] = [];
    donationsServer(seen, () => HttpResponse.json(envelope(donation()), { status: 201 }));
    const created = await client().donations.create(offer);
    expectTypeOf(created).toExtend<Donation>();
    expect(created).toEqual(donation());
    expect(seen).toEqual([
      { method: 'POST', path: '/api/v1/donations', query: {}, body: offer, key: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    ]);
  });

  it('create: a retry after a 503 carries the same Idempotency-Key, so the API stores the donation once', async () => {
    const seen: Seen[] = [];
    donationsServer(seen, () =>
      seen.length === 1
        ? HttpResponse.json(errorBody(503, 'service_unavailable'), { status: 503, headers: { 'retry-after': '0' } })
        : HttpResponse.json(envelope(donation()), { status: 201 }),
    );
    await client().donations.create(offer);
    expect(seen).toHaveLength(2);
    expect(seen[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]?.key).toBe(seen[0]?.key);
    await client().donations.create(offer, { idempotencyKey: 'albaran-2026-0042' });
    expect(seen[2]?.key).toBe('albaran-2026-0042');
  });

  it("create: the API's 400 comes back as a BadRequestError naming each line's problem", async () => {
    const details = [
      { path: 'lines.0.use_by', message: 'past its use-by date' },
      { path: 'agreement_id', message: 'the agreement is a draft' },
    ];
    const seen: Seen[] = [];
    donationsServer(seen, () =>
      HttpResponse.json(errorBody(400, 'validation_error', details.map((d) => `${d.path}: ${d.message}`).join('; '), { details }), {
        status: 400,
        headers: { 'x-request-id': 'req_400' },
      }),
    );
    const err = await client()
      .donations.create(offer)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, code: 'validation_error', details, requestId: 'req_400' });
    expect(seen).toHaveLength(1);
  });

  it('get: GET /donations/{id}, the id percent-encoded', async () => {
    const seen: Seen[] = [];
    donationsServer(seen);
    const got = await client().donations.get(DONATION);
    expectTypeOf(got.lines).toEqualTypeOf<DonationLine[]>();
    expect(got.lines[0]?.id).toBe(LINE);
    await client().donations.get('../records?x#y');
    expect(seen.map((s) => [s.method, s.path, s.key])).toEqual([
      ['GET', `/api/v1/donations/${DONATION}`, null],
      ['GET', '/api/v1/donations/%2E%2E%2Frecords%3Fx%23y', null],
    ]);
  });

  it('list: GET /donations with its filters (a flag as true/false), one page when awaited', async () => {
    const seen: Seen[] = [];
    donationsServer(seen, () =>
      HttpResponse.json(envelope([donation()], { meta: { pagination: { limit: 20, offset: 0, total: 1, has_more: false } } })),
    );
    const page = await client().donations.list({ status: 'accepted', entity_id: uuid(21), awaiting_reroute: true, limit: 20 });
    expectTypeOf(page).toEqualTypeOf<Page<Donation>>();
    expect(page.data).toEqual([donation()]);
    expect(page.hasNextPage()).toBe(false);
    expect(seen).toEqual([
      {
        method: 'GET',
        path: '/api/v1/donations',
        query: { status: 'accepted', entity_id: uuid(21), awaiting_reroute: 'true', limit: '20', offset: '0' },
        body: undefined,
        key: null,
      },
    ]);
  });

  it('list: `for await` walks every page', async () => {
    const all = [donation(41), donation(42), donation(43)];
    const seen: Seen[] = [];
    donationsServer(seen, (req) => {
      const offset = Number(req.query.offset);
      const data = all.slice(offset, offset + 2);
      return HttpResponse.json(envelope(data, { meta: { pagination: { limit: 2, offset, total: all.length } } }));
    });
    const ids: string[] = [];
    for await (const d of client().donations.list({ limit: 2 })) ids.push(d.id);
    expect(ids).toEqual(all.map((d) => d.id));
    expect(seen.map((s) => s.query.offset)).toEqual(['0', '2']);
  });

  it('decide: POST /donations/{id}/decision with every line once, and an Idempotency-Key', async () => {
    const seen: Seen[] = [];
    const decided = donation(31, {
      status: 'refused',
      awaiting_reroute: 1,
      lines: [{ ...line, status: 'refused', refusal_reason: 'Sin cámara libre hoy' }],
    });
    donationsServer(seen, () => HttpResponse.json(envelope(decided)));
    const decision = { lines: [{ line_id: LINE, decision: 'refused' as const, reason: 'Sin cámara libre hoy' }] };
    const result = await client().donations.decide('a/b', decision);
    expect(result.lines[0]?.refusal_reason).toBe('Sin cámara libre hoy');
    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/api/v1/donations/a%2Fb/decision',
        query: {},
        body: decision,
        key: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
    // A refused line needs its reason; an accepted one has none.
    expectTypeOf<{ line_id: string; decision: 'refused' }>().not.toExtend<DecideDonationInput['lines'][number]>();
    expectTypeOf<{ line_id: string; decision: 'accepted' }>().toExtend<DecideDonationInput['lines'][number]>();
  });

  it.each([
    ['collect', 'collected'],
    ['receive', 'received'],
  ] as const)('POST /donations/{id}/%s without a body, with an Idempotency-Key: %s', async (step, status) => {
    const seen: Seen[] = [];
    donationsServer(seen, () => HttpResponse.json(envelope(donation(31, { status }))));
    const result = await client().donations[step](DONATION);
    expect(result.status).toBe(status);
    await client().donations[step]('x.y');
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
      ['POST', `/api/v1/donations/${DONATION}/${step}`, undefined],
      ['POST', `/api/v1/donations/x%2Ey/${step}`, undefined],
    ]);
    expect(seen.every((s) => /^[0-9a-f-]{36}$/.test(s.key ?? ''))).toBe(true);
  });

  it('collect: a step from another state is a ConflictError', async () => {
    donationsServer([], () => HttpResponse.json(errorBody(409, 'conflict', 'the donation is offered'), { status: 409 }));
    await expect(client({ maxRetries: 0 }).donations.collect(DONATION)).rejects.toBeInstanceOf(ConflictError);
  });

  it('rerouteLine: POST /donations/{id}/lines/{line_id}/reroute, both ids percent-encoded, the body without them', async () => {
    const seen: Seen[] = [];
    const rerouted = {
      ...line,
      status: 'refused' as const,
      rerouted: { record_id: uuid(36), destino_id: DESTINO_FEED, at: '2026-11-23T11:00:00.000Z' },
    };
    donationsServer(seen, () => HttpResponse.json(envelope(donation(31, { lines: [rerouted] }))));
    const input = { destino_id: DESTINO_FEED, note: 'Para pienso' };
    const result = await client().donations.rerouteLine(DONATION, LINE, input);
    expect(result.lines[0]?.rerouted?.destino_id).toBe(DESTINO_FEED);
    await client().donations.rerouteLine('a?b', '../1', input, { idempotencyKey: 'reroute-1' });
    expect(seen).toEqual([
      {
        method: 'POST',
        path: `/api/v1/donations/${DONATION}/lines/${LINE}/reroute`,
        query: {},
        body: input,
        key: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
      { method: 'POST', path: '/api/v1/donations/a%3Fb/lines/%2E%2E%2F1/reroute', query: {}, body: input, key: 'reroute-1' },
    ]);
  });
});

describe('signing links', () => {
  const link: DonationLink = {
    url: `https://app.merma.test/dashboard/sign/${DONATION}#dln_${'x'.repeat(43)}`,
    expires_at: '2026-11-25T10:00:00.000Z',
  };

  it('createLink: POST /donations/{id}/link with expires_in_hours, an Idempotency-Key, and the link typed', async () => {
    const seen: Seen[] = [];
    donationsServer(seen, () => HttpResponse.json(envelope(link), { status: 201 }));
    const made = await client().donations.createLink(DONATION, { expires_in_hours: 24 });
    expectTypeOf(made).toExtend<DonationLink>();
    expect(made).toEqual(link);
    expect(seen).toEqual([
      {
        method: 'POST',
        path: `/api/v1/donations/${DONATION}/link`,
        query: {},
        body: { expires_in_hours: 24 },
        key: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
  });

  it('createLink: without params an empty JSON body (the server’s 48 hours), the id percent-encoded', async () => {
    const seen: Seen[] = [];
    donationsServer(seen, () => HttpResponse.json(envelope(link), { status: 201 }));
    await client().donations.createLink('../records?x#y');
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([['POST', '/api/v1/donations/%2E%2E%2Frecords%3Fx%23y/link', {}]]);
    // `id` is the path's, not the body's.
    expectTypeOf<{ id: string }>().not.toExtend<Parameters<Merma['donations']['createLink']>[1]>();
  });

  it('createLink: a donation that is not offered is a ConflictError; too many hours a BadRequestError naming the field', async () => {
    const details = [{ path: 'expires_in_hours', message: 'Too big: expected number to be <=168' }];
    donationsServer([], (req) =>
      (req.body as { expires_in_hours?: number }).expires_in_hours === 169
        ? HttpResponse.json(errorBody(400, 'validation_error', 'expires_in_hours: too big', { details }), { status: 400 })
        : HttpResponse.json(errorBody(409, 'conflict', 'Donation is accepted'), { status: 409 }),
    );
    await expect(client({ maxRetries: 0 }).donations.createLink(DONATION)).rejects.toBeInstanceOf(ConflictError);
    const err = await client()
      .donations.createLink(DONATION, { expires_in_hours: 169 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, details });
  });

  it('createCertificateLink: POST /donations/tax-pack/certificates/{entity_id}/link with year and cif, the id percent-encoded', async () => {
    const seen: Seen[] = [];
    const certificateLink = { url: `https://api.merma.app/dashboard/sign/certificate/${DONATION}#dln_abc`, expires_at: link.expires_at };
    donationsServer(seen, () => HttpResponse.json(envelope(certificateLink), { status: 201 }));
    const made = await client().donations.createCertificateLink('a/b', { year: 2026, cif: 'B12345678' });
    expectTypeOf(made).toExtend<DonationLink>();
    expect(made).toEqual(certificateLink);
    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/api/v1/donations/tax-pack/certificates/a%2Fb/link',
        query: {},
        body: { year: 2026, cif: 'B12345678' },
        key: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
    // The entity is the path's; the year is required.
    expectTypeOf<{ entity_id: string }>().not.toExtend<Parameters<Merma['donations']['createCertificateLink']>[1]>();
    expectTypeOf<{ cif: string }>().not.toExtend<Parameters<Merma['donations']['createCertificateLink']>[1]>();
  });

  it('createCertificateLink: nothing given that year is a NotFoundError; several companies a BadRequestError asking for cif', async () => {
    const details = [{ path: 'cif', message: 'give the donor company' }];
    donationsServer([], (req) =>
      (req.body as { year: number }).year === 2025
        ? HttpResponse.json(errorBody(404, 'not_found', 'No donation'), { status: 404 })
        : HttpResponse.json(errorBody(400, 'validation_error', 'cif: give the donor company', { details }), { status: 400 }),
    );
    await expect(client().donations.createCertificateLink(uuid(21), { year: 2025 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client().donations.createCertificateLink(uuid(21), { year: 2026 })).rejects.toMatchObject({ status: 400, details });
  });

  it('a 410 (`gone`) is an APIError with status 410 and its details, of no subclass, and not retried', async () => {
    const details = [{ path: 'link.expires_at', message: 'has passed' }];
    const seen: Seen[] = [];
    donationsServer(seen, () =>
      HttpResponse.json(errorBody(410, 'gone', 'This link has expired: ask the kitchen for a new one', { details }), {
        status: 410,
        headers: { 'x-request-id': 'req_410' },
      }),
    );
    const err = await client()
      .donations.createLink(DONATION)
      .catch((e: unknown) => e);
    expect(APIError.is(err)).toBe(true);
    expect(Object.getPrototypeOf(err)).toBe(APIError.prototype);
    expect(err).toMatchObject({ name: 'APIError', status: 410, code: 'gone', details, requestId: 'req_410' });
    expect((err as APIError).message).toBe('This link has expired: ask the kitchen for a new one');
    expect(seen).toHaveLength(1);
  });
});

describe('the tax pack', () => {
  const YEAR = 2026;
  const ENTITY = uuid(21);
  const totals = {
    net_kg: 4.5,
    book_value: 9,
    market_value_cap: 0,
    base: 9,
    deductible_base: 9,
    base_within_limit: 9,
    base_over_limit: 0,
    deduction: 3.6,
  };
  const pack: DonationTaxPack = {
    year: YEAR,
    livemode: true,
    scope: 'organisation',
    generated_at: '2027-01-15T10:00:00.000Z',
    rules: { rate_pct: 40, recurrent_rate_pct: 50, taxable_base_limit_pct: 15, carry_forward_years: 10, computed: true },
    taxpayers: [
      {
        cif: 'B12345678',
        totals: { ...totals, taxable_base: 250000, limit: 37500, carry_forward_until_year: null, notes: [] },
        entities: [
          {
            entity_id: ENTITY,
            name: 'Banco de Alimentos',
            nif: 'G28029643',
            legal_form: 'banco_de_alimentos',
            ley_49_2002: { art2_entity: true, regime_opted_in: true },
            rate_pct: 40,
            recurrence: {
              years: [
                { year: 2024, base: 0 },
                { year: 2025, base: 0 },
              ],
              met: false,
            },
            totals,
            establishments: [{ establishment_id: uuid(9999), base: 9, deduction: 3.6 }],
            notes: [{ code: 'rate_general', text: 'Ley 49/2002 art. 20.1: 40 %' }],
            signed_certificate: { sha256: 'ab'.repeat(32), uploaded_at: '2027-01-20T09:00:00.000Z' },
          },
        ],
        establishments: [{ ...totals, establishment_id: uuid(9999), name: 'Cocina' }],
        donations: [
          {
            donation_id: DONATION,
            establishment_id: uuid(9999),
            entity_id: ENTITY,
            handed_over_on: '2026-11-24',
            lines: 1,
            net_kg: 4.5,
            book_value: 9,
            market_value_cap: 0,
            base: 9,
            vat: { taxable_base: 0, rate_pct: null },
            notes: [{ code: 'vat_zero_base', text: 'Ley 37/1992 art. 79.Tres' }],
          },
        ],
      },
    ],
  };
  // What the files start with: the CSV's UTF-8 BOM and a cell with a decimal comma; a PDF's header and a byte above 0x7f.
  const csv = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('Nivel;CIF;Base art. 18 (€)\r\nEmpresa;B12345678;9,00\r\n')]);
  const pdf = new Uint8Array([...new TextEncoder().encode('%PDF-1.3\n'), 0x25, 0xe2, 0xe3, 0xcf, 0xd3, 0x0a, 0x00, 0xff]);

  type FileSeen = { path: string; query: Record<string, string>; accept: string | null; method: string };
  /** Answers GET /donations/tax-pack* with `answer`, keeping what each request asked for. */
  function taxServer(seen: FileSeen[], answer: (req: FileSeen) => Response) {
    server.use(
      http.get(`${API}/donations/tax-pack*`, ({ request }) => {
        const url = new URL(request.url);
        const req = {
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          accept: request.headers.get('accept'),
          method: request.method,
        };
        seen.push(req);
        return answer(req);
      }),
    );
  }

  it('taxPack: GET /donations/tax-pack with year, taxable_base and cif in the query, the pack typed', async () => {
    const seen: FileSeen[] = [];
    taxServer(seen, () => HttpResponse.json(envelope(pack)));
    const got = await client().donations.taxPack({ year: YEAR, taxable_base: '250000.00', cif: 'B-12.345 678&x=1' });
    expectTypeOf(got).toExtend<DonationTaxPack>();
    expectTypeOf(got.taxpayers[0]?.entities[0]?.notes[0]?.code).toEqualTypeOf<
      DonationTaxPack['taxpayers'][number]['entities'][number]['notes'][number]['code'] | undefined
    >();
    expect(got).toEqual(pack);
    await client().donations.taxPack({ year: YEAR, taxable_base: undefined, cif: undefined });
    expect(seen).toEqual([
      {
        path: '/api/v1/donations/tax-pack',
        query: { year: '2026', taxable_base: '250000.00', cif: 'B-12.345 678&x=1' },
        accept: 'application/json',
        method: 'GET',
      },
      { path: '/api/v1/donations/tax-pack', query: { year: '2026' }, accept: 'application/json', method: 'GET' },
    ]);
  });

  it('the year is required, a taxable base is a string of euros, a certificate takes no taxable base', () => {
    expectTypeOf<{ taxable_base: string }>().not.toExtend<DonationTaxPackQuery>();
    expectTypeOf<{ year: number }>().toExtend<DonationTaxPackQuery>();
    expectTypeOf<{ year: number; taxable_base: number }>().not.toExtend<DonationTaxPackQuery>();
    expectTypeOf<{ year: number; cif: string }>().toExtend<DonationCertificateQuery>();
    expectTypeOf<DonationCertificateQuery>().not.toHaveProperty('taxable_base');
    expectTypeOf<Parameters<Merma['donations']['taxPack']>[0]>().toEqualTypeOf<DonationTaxPackQuery>();
    expectTypeOf<Parameters<Merma['donations']['taxCertificatePdf']>[1]>().toEqualTypeOf<DonationCertificateQuery>();
  });

  it("taxPack: the API's 400 for a bad year is a BadRequestError naming the field", async () => {
    const details = [{ path: 'year', message: 'Too small: expected number to be >=2000' }];
    taxServer([], () => HttpResponse.json(errorBody(400, 'validation_error', 'year: too small', { details }), { status: 400 }));
    const err = await client()
      .donations.taxPack({ year: 1999 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, code: 'validation_error', details });
  });

  it('taxPackCsv: GET /donations/tax-pack.csv asking for text/csv, the bytes as sent (the BOM kept)', async () => {
    const seen: FileSeen[] = [];
    taxServer(
      seen,
      () =>
        new HttpResponse(csv, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': 'attachment; filename="pack-fiscal-donaciones-2026.csv"',
          },
        }),
    );
    const bytes = await client().donations.taxPackCsv({ year: YEAR, taxable_base: '-1234.50', cif: 'B12345678' });
    expectTypeOf(bytes).toEqualTypeOf<Uint8Array>();
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(bytes).toEqual(csv);
    expect(seen).toEqual([
      {
        path: '/api/v1/donations/tax-pack.csv',
        query: { year: '2026', taxable_base: '-1234.50', cif: 'B12345678' },
        accept: 'text/csv',
        method: 'GET',
      },
    ]);
  });

  it('taxPackPdf: GET /donations/tax-pack.pdf asking for application/pdf, the bytes as sent', async () => {
    const seen: FileSeen[] = [];
    taxServer(seen, () => new HttpResponse(pdf, { headers: { 'content-type': 'application/pdf' } }));
    // A file is not a JSON answer without its envelope: nothing to warn about.
    const warnings: string[] = [];
    const logger = { error: vi.fn(), warn: (m: string) => warnings.push(m), info: vi.fn(), debug: vi.fn() };
    expect(await client({ logger, logLevel: 'warn' }).donations.taxPackPdf({ year: YEAR })).toEqual(pdf);
    expect(warnings).toEqual([]);
    expect(seen).toEqual([{ path: '/api/v1/donations/tax-pack.pdf', query: { year: '2026' }, accept: 'application/pdf', method: 'GET' }]);
  });

  it('taxCertificatePdf: GET /donations/tax-pack/certificates/{entity_id}.pdf, the id percent-encoded, year and cif in the query', async () => {
    const seen: FileSeen[] = [];
    taxServer(seen, () => new HttpResponse(pdf, { headers: { 'content-type': 'application/pdf' } }));
    expect(await client().donations.taxCertificatePdf(ENTITY, { year: YEAR, cif: 'B12345678' })).toEqual(pdf);
    await client().donations.taxCertificatePdf('../../tax-pack.csv?year=1#', { year: YEAR });
    expect(seen).toEqual([
      {
        path: `/api/v1/donations/tax-pack/certificates/${ENTITY}.pdf`,
        query: { year: '2026', cif: 'B12345678' },
        accept: 'application/pdf',
        method: 'GET',
      },
      {
        path: '/api/v1/donations/tax-pack/certificates/%2E%2E%2F%2E%2E%2Ftax-pack%2Ecsv%3Fyear%3D1%23.pdf',
        query: { year: '2026' },
        accept: 'application/pdf',
        method: 'GET',
      },
    ]);
  });

  it('the files: an error answer is the APIError of its status (JSON errors, not bytes), and a 503 is retried', async () => {
    const seen: FileSeen[] = [];
    const details = [{ path: 'year', message: 'Invalid input: expected number, received NaN' }];
    taxServer(seen, (req) => {
      if (req.path.endsWith('.csv')) return HttpResponse.json(errorBody(400, 'validation_error', 'year', { details }), { status: 400 });
      if (req.path.includes('/certificates/')) return HttpResponse.json(errorBody(404, 'not_found'), { status: 404 });
      if (req.query.cif === 'none') return HttpResponse.json(errorBody(403, 'forbidden'), { status: 403 });
      if (seen.filter((s) => s.path.endsWith('tax-pack.pdf')).length === 1)
        return HttpResponse.json(errorBody(503, 'service_unavailable'), { status: 503, headers: { 'retry-after': '0' } });
      return new HttpResponse(pdf, { headers: { 'content-type': 'application/pdf' } });
    });
    const bad = await client()
      .donations.taxPackCsv({ year: Number.NaN })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ status: 400, details });
    await expect(client().donations.taxCertificatePdf(ENTITY, { year: 2024 })).rejects.toBeInstanceOf(NotFoundError);
    expect(await client().donations.taxPackPdf({ year: YEAR })).toEqual(pdf);
    expect(seen.filter((s) => s.path.endsWith('tax-pack.pdf'))).toHaveLength(2);
    await expect(client().donations.taxPackPdf({ year: YEAR, cif: 'none' })).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('the signed certificate', () => {
  const ENTITY = uuid(21);
  const pdf = new Uint8Array([...new TextEncoder().encode('%PDF-1.7\n'), 0xe2, 0xe3, 0xcf, 0xd3, 0x0a, 0x00, 0xff]);
  const stored: DonationSignedCertificate = {
    entity_id: ENTITY,
    year: 2026,
    cif: 'B12345678',
    sha256: 'cd'.repeat(32),
    size_bytes: pdf.length,
    uploaded_at: '2027-01-20T09:00:00.000Z',
  };
  type Seen = {
    method: string;
    path: string;
    query: Record<string, string>;
    type: string | null;
    accept: string | null;
    bytes: Uint8Array;
  };
  /** Answers …/certificates/{id}/signed with `answer`, keeping what each request carried. */
  function signedServer(seen: Seen[], answer: (req: Seen) => Response) {
    const handler = async ({ request }: { request: Request }) => {
      const url = new URL(request.url);
      const req = {
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        type: request.headers.get('content-type'),
        accept: request.headers.get('accept'),
        bytes: new Uint8Array(await request.arrayBuffer()),
      };
      seen.push(req);
      return answer(req);
    };
    server.use(
      http.put(`${API}/donations/tax-pack/certificates/:id/signed`, handler),
      http.get(`${API}/donations/tax-pack/certificates/:id/signed`, handler),
    );
  }

  it('uploadSignedCertificate: PUT …/certificates/{entity_id}/signed with year and cif in the query and the PDF as the raw body', async () => {
    const seen: Seen[] = [];
    signedServer(seen, () => HttpResponse.json(envelope(stored)));
    const got = await client().donations.uploadSignedCertificate(ENTITY, { year: 2026, cif: 'B-12.345.678' }, pdf);
    expectTypeOf(got).toExtend<DonationSignedCertificate>();
    expect(got).toEqual(stored);
    // Without cif (the key sees one company), from a Blob; an id that is not a plain segment is encoded.
    await client().donations.uploadSignedCertificate('../x?y', { year: 2026 }, new Blob([pdf], { type: 'application/pdf' }));
    expect(seen.map(({ bytes: _b, ...rest }) => rest)).toEqual([
      {
        method: 'PUT',
        path: `/api/v1/donations/tax-pack/certificates/${ENTITY}/signed`,
        query: { year: '2026', cif: 'B-12.345.678' },
        type: 'application/pdf',
        accept: 'application/json',
      },
      {
        method: 'PUT',
        path: '/api/v1/donations/tax-pack/certificates/%2E%2E%2Fx%3Fy/signed',
        query: { year: '2026' },
        type: 'application/pdf',
        accept: 'application/json',
      },
    ]);
    expect(seen.map((s) => s.bytes)).toEqual([pdf, pdf]);
    expectTypeOf<Parameters<Merma['donations']['uploadSignedCertificate']>[1]>().toEqualTypeOf<DonationCertificateQuery>();
  });

  it('uploadSignedCertificate: a 503 is retried with the same bytes; a 400 is a BadRequestError naming the field, a 404 a NotFoundError', async () => {
    const seen: Seen[] = [];
    const details = [{ path: 'cif', message: 'give the donor company' }];
    signedServer(seen, (req) => {
      if (req.query.year === '2025') return HttpResponse.json(errorBody(404, 'not_found'), { status: 404 });
      if (!req.query.cif) return HttpResponse.json(errorBody(400, 'validation_error', 'cif', { details }), { status: 400 });
      if (seen.length === 1)
        return HttpResponse.json(errorBody(503, 'service_unavailable'), { status: 503, headers: { 'retry-after': '0' } });
      return HttpResponse.json(envelope(stored));
    });
    expect(
      await client().donations.uploadSignedCertificate(ENTITY, { year: 2026, cif: 'B12345678' }, pdf.buffer.slice(0) as ArrayBuffer),
    ).toEqual(stored);
    expect(seen.map((s) => s.bytes)).toEqual([pdf, pdf]);
    const bad = await client()
      .donations.uploadSignedCertificate(ENTITY, { year: 2026 }, pdf)
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ status: 400, details });
    await expect(client().donations.uploadSignedCertificate(ENTITY, { year: 2025, cif: 'B12345678' }, pdf)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('signedCertificatePdf: GET …/certificates/{entity_id}/signed asking for application/pdf, the bytes as stored; none yet is a NotFoundError', async () => {
    const seen: Seen[] = [];
    signedServer(seen, (req) =>
      req.query.cif === 'B00000000'
        ? HttpResponse.json(errorBody(404, 'not_found'), { status: 404 })
        : new HttpResponse(pdf, { headers: { 'content-type': 'application/pdf' } }),
    );
    const bytes = await client().donations.signedCertificatePdf(ENTITY, { year: 2026, cif: 'B12345678' });
    expectTypeOf(bytes).toEqualTypeOf<Uint8Array>();
    expect(bytes).toEqual(pdf);
    await expect(client().donations.signedCertificatePdf(ENTITY, { year: 2026, cif: 'B00000000' })).rejects.toBeInstanceOf(NotFoundError);
    expect(seen.map(({ bytes: _b, type: _t, ...rest }) => rest)).toEqual([
      {
        method: 'GET',
        path: `/api/v1/donations/tax-pack/certificates/${ENTITY}/signed`,
        query: { year: '2026', cif: 'B12345678' },
        accept: 'application/pdf',
      },
      {
        method: 'GET',
        path: `/api/v1/donations/tax-pack/certificates/${ENTITY}/signed`,
        query: { year: '2026', cif: 'B00000000' },
        accept: 'application/pdf',
      },
    ]);
  });

  it('the pack types each entity’s signed certificate, null until one is stored', () => {
    expectTypeOf<DonationTaxPack['taxpayers'][number]['entities'][number]['signed_certificate']>().toEqualTypeOf<{
      sha256: string;
      uploaded_at: string;
    } | null>();
  });
});

describe('donation webhooks', () => {
  const SECRET = `whsec_${Buffer.from('donation-secret-32-bytes-long!!!').toString('base64')}`;
  const data: DonationEventData = {
    establishment_id: uuid(9999),
    livemode: true,
    donation_id: DONATION,
    agreement_id: AGREEMENT,
    entity_id: uuid(21),
    entity_name: 'Banco de Alimentos',
    status: 'accepted',
    lines: { offered: 2, accepted: 1, refused: 1 },
    net_kg: 6.5,
  };

  it.each(['donation.offered', 'donation.accepted', 'donation.refused', 'donation.received'] as const)(
    'verifyWebhook types %s with its DonationEventData',
    async (name) => {
      const payload = JSON.stringify({ event: name, timestamp: '2026-11-23T10:00:00.000Z', data });
      const headers = await signWebhook({ payload, secret: SECRET });
      const verified = await verifyWebhook({ payload, headers, secret: SECRET });
      expectTypeOf<Extract<WebhookEvent, { event: typeof name }>['data']>().toEqualTypeOf<DonationEventData>();
      switch (verified.event) {
        case 'donation.offered':
        case 'donation.accepted':
        case 'donation.refused':
        case 'donation.received':
          expect(verified.event).toBe(name);
          expect(verified.data.lines.refused).toBe(1);
          expect(verified.data.donation_id).toBe(DONATION);
          break;
        default:
          throw new Error(`unexpected ${verified.event}`);
      }
    },
  );
});
