import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  type DecideDonationInput,
  type Donation,
  type DonationEventData,
  type DonationLine,
  Merma,
  type Page,
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
