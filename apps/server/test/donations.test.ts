import { WebhookEvent } from '@merma/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyProblems } from './contract.js';
import { signedAgreement, socialEntity } from './donation-fixtures.js';
import { addKey, createTenant, DESTINO_DONATION, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Donations (`/api/v1/donations`): a donation offered under an agreement writes one record per line
 * (destination donation) with it; the entity's answer; the steps to received; a refused line sent
 * down the hierarchy by a correction of its record, after which the chain still verifies; and the
 * refusals (400 naming the problem, nothing stored) on both sides of each date's edge, on a moved
 * clock read in Madrid.
 */

let now = new Date('2026-12-01T10:00:00.000Z');
let t: TestContext;
let a: Tenant;
let aLive: string;
let aOther: Tenant;
let b: Tenant;
let bLive: string;
let agreementId: string;
let narrowAgreementId: string;
let croissantId: string;

const DESTINO_HUMAN = '6e0879b0-91e3-4004-bef6-79b5dd18049b';
const DESTINO_FEED = 'c780cb3f-4952-4d92-8452-ab822aef0640';

const send = async (key: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, contentType = 'application/json') =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });

const signedAgreementFor = (key: string, entityId: string, establishmentIds: string[], overrides: Record<string, unknown> = {}) =>
  signedAgreement(t, key, entityId, establishmentIds, overrides);
const entity = (key: string, nif: string) => socialEntity(t, key, { name: `Banco ${nif}`, nif });

beforeAll(async () => {
  t = await startTestApp({ clock: () => now });
  a = await createTenant(t.db);
  aLive = (await addKey(t.db, a.establishmentId, 'live')).key;
  aOther = await createTenant(t.db, { organizationId: a.organizationId });
  b = await createTenant(t.db);
  bLive = (await addKey(t.db, b.establishmentId, 'live')).key;
  const entityId = await entity(aLive, 'G28029643');
  agreementId = await signedAgreementFor(aLive, entityId, [a.establishmentId]);
  narrowAgreementId = await signedAgreementFor(aLive, entityId, [a.establishmentId], {
    accepted_food_categories: ['bakery'],
    conditions: { chilled: false, frozen: false, cooked: false, near_best_before: false },
  });
  const product = await send(aLive, 'POST', '/products', {
    name: 'Croissant',
    food_category: 'bakery',
    ean: '8410000000023',
    unit_weight_kg: 0.06,
    price: 1.2,
    unit_cost: 0.4,
  });
  expect(product.statusCode, product.body).toBe(201);
  croissantId = product.json().data.id;
});
afterAll(() => t?.close());

const LINE = { description: 'Pan de barra', food_category: 'bakery', quantity: 4.5, unit: 'kg' };

const count = async (table: string) => Number((await t.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${table}`))[0]?.n);
const counts = async () => ({ donations: await count('donations'), lines: await count('donation_lines'), records: await count('records') });

const events = async (donationId: string) =>
  (
    await t.db.$queryRawUnsafe<{ type: string; livemode: boolean; payload: unknown }[]>(
      `SELECT type, livemode, payload FROM events WHERE payload->'data'->>'donation_id' = $1 ORDER BY created_at, type`,
      donationId,
    )
  ).map((e) => ({ ...e, parsed: WebhookEvent.safeParse(e.payload).success }));

async function offer(key: string, lines: unknown[], agreement = agreementId) {
  const res = await send(key, 'POST', '/donations', { agreement_id: agreement, lines });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as {
    id: string;
    status: string;
    lines: { id: string; record_id: string; status: string; book_value: number | null; market_value: number | null; net_kg: number }[];
    totals: Record<string, number>;
    awaiting_reroute: number;
  };
}

describe('offering a donation', () => {
  it('stores the donation, one record per line in the register (destination donation) and donation.offered', async () => {
    const donation = await offer(a.key, [
      { ...LINE, lot: 'L-77', best_before: '2026-12-10', allergens: ['gluten'], temperature_c: 4.5 },
      { product_id: croissantId, description: 'Croissants del día', quantity: 30, unit: 'unit' },
    ]);
    expect(donation).toMatchObject({ status: 'offered', awaiting_reroute: 0, entity_name: 'Banco G28029643', livemode: false });
    const [bread, croissants] = donation.lines;
    expect(bread).toMatchObject({
      position: 1,
      net_kg: 4.5,
      book_value: null,
      market_value: null,
      allergens: ['gluten'],
      status: 'offered',
    });
    // The product fills the category, the weight (30 × 0.06 kg) and the values (30 × 0.40 €, 30 × 1.20 €).
    expect(croissants).toMatchObject({ food_category: 'bakery', net_kg: 1.8, book_value: 12, market_value: 36 });
    expect(donation.totals).toEqual({ net_kg: 6.3, accepted_kg: 0, book_value: 12, market_value: 36 });

    const records = await t.db.$queryRawUnsafe<
      { id: string; destino_id: string; weight_kg: string; source: string; product_name: string; livemode: boolean }[]
    >(
      'SELECT id::text, destino_id::text, weight_kg::text, source, product_name, livemode FROM records WHERE id = ANY($1::uuid[]) ORDER BY weight_kg DESC',
      donation.lines.map((l) => l.record_id),
    );
    expect(records.map(({ id: _, ...r }) => r)).toEqual([
      { destino_id: DESTINO_DONATION, weight_kg: '4.500', source: 'donation', product_name: 'Pan de barra', livemode: false },
      { destino_id: DESTINO_DONATION, weight_kg: '1.800', source: 'donation', product_name: 'Croissants del día', livemode: false },
    ]);
    const sent = await events(donation.id);
    expect(sent.map((e) => [e.type, e.livemode, e.parsed])).toEqual([['donation.offered', false, true]]);

    // Read back, and listed; another mode and another establishment do not see it.
    expect((await send(a.key, 'GET', `/donations/${donation.id}`)).json().data).toEqual(donation);
    expect((await send(a.key, 'GET', '/donations')).json().data.map((d: { id: string }) => d.id)).toContain(donation.id);
    expect((await send(aLive, 'GET', `/donations/${donation.id}`)).statusCode).toBe(404);
    expect((await send(aOther.key, 'GET', `/donations/${donation.id}`)).statusCode).toBe(404);
    expect((await send(b.key, 'GET', `/donations/${donation.id}`)).statusCode).toBe(404);
  });

  const refusals: [string, () => Promise<unknown>, string][] = [
    ['an unknown agreement', async () => ({ agreement_id: '00000000-0000-4000-8000-000000000000', lines: [LINE] }), 'agreement_id'],
    [
      'a category the agreement does not accept',
      async () => ({ agreement_id: agreementId, lines: [{ ...LINE, food_category: 'dairy' }] }),
      'lines.0.food_category',
    ],
    [
      'cooked food the agreement does not accept',
      async () => ({ agreement_id: agreementId, lines: [{ ...LINE, cooked: true }] }),
      'lines.0.cooked',
    ],
    [
      'chilled food under an agreement without it',
      async () => ({ agreement_id: narrowAgreementId, lines: [{ ...LINE, storage: 'chilled' }] }),
      'lines.0.storage',
    ],
    ['a negative book value', async () => ({ agreement_id: agreementId, lines: [{ ...LINE, book_value: -1 }] }), 'lines.0.book_value'],
    ['a negative quantity', async () => ({ agreement_id: agreementId, lines: [{ ...LINE, quantity: -2 }] }), 'lines.0.quantity'],
    [
      'units without a net weight nor a product',
      async () => ({ agreement_id: agreementId, lines: [{ ...LINE, unit: 'unit' }] }),
      'lines.0.net_kg',
    ],
    [
      'a product of another organisation',
      async () => ({ agreement_id: agreementId, lines: [{ ...LINE, product_id: '00000000-0000-4000-8000-000000000001' }] }),
      'lines.0.product_id',
    ],
    [
      'an unknown cause',
      async () => ({ agreement_id: agreementId, lines: [{ ...LINE, causa_id: '00000000-0000-4000-8000-000000000002' }] }),
      'lines.0.causa_id',
    ],
    ['no lines', async () => ({ agreement_id: agreementId, lines: [] }), 'lines'],
  ];
  it.each(refusals)('refuses %s with a 400 naming it, and stores nothing', async (_name, body, path) => {
    const before = await counts();
    const res = await send(a.key, 'POST', '/donations', await body());
    expect(res.statusCode, res.body).toBe(400);
    expect(errorBodyProblems(res)).toEqual([]);
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await counts()).toEqual(before);
  });

  it('refuses an agreement of another establishment, another organisation, a draft or an expired one', async () => {
    const before = await counts();
    const otherEntity = await entity(aLive, 'G46036018');
    const elsewhere = await signedAgreementFor(aLive, otherEntity, [aOther.establishmentId]);
    const bAgreement = await signedAgreementFor(bLive, await entity(bLive, 'G28029643'), [b.establishmentId]);
    const draft = (
      await send(aLive, 'POST', '/donation-agreements', {
        ...(await send(aLive, 'GET', `/donation-agreements/${agreementId}`)).json().data,
        id: undefined,
        entity_name: undefined,
        status: undefined,
        document: undefined,
        created_at: undefined,
        updated_at: undefined,
      })
    ).json().data.id as string;
    const expired = await signedAgreementFor(aLive, otherEntity, [a.establishmentId], {
      valid_from: '2025-01-01',
      valid_until: '2026-11-30',
    });
    const afterSetup = await counts();
    for (const [id, message] of [
      [elsewhere, 'does not cover this establishment'],
      [bAgreement, 'no donation agreement with this id'],
      [draft, 'draft'],
      [expired, 'ended on 2026-11-30'],
    ] as const) {
      const res = await send(a.key, 'POST', '/donations', { agreement_id: id, lines: [LINE] });
      expect(res.statusCode, `${message}: ${res.body}`).toBe(400);
      expect(res.json().error).toContain(message);
    }
    expect(await counts()).toEqual(afterSetup);
    expect(afterSetup.donations).toBe(before.donations);
  });

  it('refuses a line past its use-by date, read in Madrid, and accepts one on its last day', async () => {
    // 23:30 UTC on 1 December is 00:30 on 2 December in Madrid: "today" is the 2nd.
    now = new Date('2026-12-01T23:30:00.000Z');
    try {
      const before = await counts();
      const past = await send(a.key, 'POST', '/donations', { agreement_id: agreementId, lines: [{ ...LINE, use_by: '2026-12-01' }] });
      expect(past.statusCode, past.body).toBe(400);
      expect(past.json().details).toEqual([{ path: 'lines.0.use_by', message: expect.stringContaining('past') }]);
      expect(await counts()).toEqual(before);
      await offer(a.key, [{ ...LINE, use_by: '2026-12-02' }]);
    } finally {
      now = new Date('2026-12-01T10:00:00.000Z');
    }
  });

  it('refuses food near its best-before date under an agreement without it, on both sides of the 3 days', async () => {
    // Today is 1 December: the 4th is 3 days ahead (near), the 5th is not.
    const near = await send(a.key, 'POST', '/donations', {
      agreement_id: narrowAgreementId,
      lines: [{ ...LINE, best_before: '2026-12-04' }],
    });
    expect(near.statusCode, near.body).toBe(400);
    expect(near.json().details[0].path).toBe('lines.0.best_before');
    await offer(a.key, [{ ...LINE, best_before: '2026-12-05' }], narrowAgreementId);
    // The wide agreement takes it, even past its best-before date.
    await offer(a.key, [{ ...LINE, best_before: '2026-11-20' }]);
  });
});

describe('the entity’s answer and the steps to received', () => {
  it('accepts some lines and refuses others, then collected and received, with their webhooks', async () => {
    const donation = await offer(a.key, [LINE, { ...LINE, description: 'Manzanas', food_category: 'fruit_veg', quantity: 2 }]);
    const [bread, apples] = donation.lines as unknown as [{ id: string }, { id: string }];

    // Every line must be answered, lines of this donation only.
    const partial = await send(a.key, 'POST', `/donations/${donation.id}/decision`, {
      lines: [{ line_id: bread.id, decision: 'accepted' }],
    });
    expect(partial.statusCode, partial.body).toBe(400);
    expect(partial.json().error).toContain('missing: line 2');
    const noReason = await send(a.key, 'POST', `/donations/${donation.id}/decision`, {
      lines: [
        { line_id: bread.id, decision: 'accepted' },
        { line_id: apples.id, decision: 'refused' },
      ],
    });
    expect(noReason.statusCode).toBe(400);
    // Collecting before the answer is a 409 naming the state.
    const early = await send(a.key, 'POST', `/donations/${donation.id}/collect`);
    expect(early.statusCode).toBe(409);
    expect(early.json().error).toContain('is offered');

    const decided = await send(a.key, 'POST', `/donations/${donation.id}/decision`, {
      lines: [
        { line_id: bread.id, decision: 'accepted' },
        { line_id: apples.id, decision: 'refused', reason: 'Sin cámara libre hoy' },
      ],
    });
    expect(decided.statusCode, decided.body).toBe(200);
    expect(decided.json().data).toMatchObject({ status: 'accepted', awaiting_reroute: 1, totals: { net_kg: 6.5, accepted_kg: 4.5 } });
    expect(decided.json().data.lines[1]).toMatchObject({ status: 'refused', refusal_reason: 'Sin cámara libre hoy', rerouted: null });
    expect(
      (await send(a.key, 'POST', `/donations/${donation.id}/decision`, { lines: [{ line_id: bread.id, decision: 'accepted' }] }))
        .statusCode,
    ).toBe(409);
    expect((await send(a.key, 'GET', '/donations?awaiting_reroute=true')).json().data.map((d: { id: string }) => d.id)).toContain(
      donation.id,
    );

    expect((await send(a.key, 'POST', `/donations/${donation.id}/receive`)).statusCode).toBe(409);
    expect((await send(a.key, 'POST', `/donations/${donation.id}/collect`)).json().data.status).toBe('collected');
    const received = (await send(a.key, 'POST', `/donations/${donation.id}/receive`)).json().data;
    expect(received).toMatchObject({ status: 'received', collected_at: now.toISOString(), received_at: now.toISOString() });
    expect((await events(donation.id)).map((e) => [e.type, e.parsed])).toEqual([
      ['donation.accepted', true],
      ['donation.offered', true],
      ['donation.received', true],
    ]);
  });

  it('is refused when every line is refused, with donation.refused', async () => {
    const donation = await offer(a.key, [LINE]);
    const res = await send(a.key, 'POST', `/donations/${donation.id}/decision`, {
      lines: [{ line_id: donation.lines[0]?.id, decision: 'refused', reason: 'Fuera de horario' }],
    });
    expect(res.json().data).toMatchObject({ status: 'refused', awaiting_reroute: 1, totals: { accepted_kg: 0, book_value: 0 } });
    expect((await events(donation.id)).map((e) => e.type)).toEqual(['donation.offered', 'donation.refused']);
    expect((await send(a.key, 'POST', `/donations/${donation.id}/collect`)).statusCode).toBe(409);
  });
});

describe('a refused line sent down the hierarchy', () => {
  it('corrects its record to the destination the kitchen picks, with the reason; the chain still verifies', async () => {
    const donation = await offer(a.key, [LINE, { ...LINE, description: 'Bollería' }]);
    const [kept, refused] = donation.lines as unknown as [{ id: string; record_id: string }, { id: string; record_id: string }];
    await send(a.key, 'POST', `/donations/${donation.id}/decision`, {
      lines: [
        { line_id: kept.id, decision: 'accepted' },
        { line_id: refused.id, decision: 'refused', reason: 'Envase abierto' },
      ],
    });
    const url = `/donations/${donation.id}/lines/${refused.id}/reroute`;
    // Not below donation: refused, nothing written.
    const recordsBefore = await count('records');
    for (const destino_id of [DESTINO_HUMAN, DESTINO_DONATION]) {
      const res = await send(a.key, 'POST', url, { destino_id });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details[0].path).toBe('destino_id');
    }
    // An accepted line is not sent elsewhere.
    expect((await send(a.key, 'POST', `/donations/${donation.id}/lines/${kept.id}/reroute`, { destino_id: DESTINO_FEED })).statusCode).toBe(
      409,
    );
    expect(await count('records')).toBe(recordsBefore);

    const res = await send(a.key, 'POST', url, { destino_id: DESTINO_FEED, note: 'Para la granja de al lado' });
    expect(res.statusCode, res.body).toBe(200);
    const line = res.json().data.lines[1];
    expect(line.rerouted).toMatchObject({ destino_id: DESTINO_FEED });
    expect(res.json().data.awaiting_reroute).toBe(0);
    const [original, correction] = await t.db.$queryRawUnsafe<
      { id: string; destino_id: string; superseded_by: string | null; supersedes_id: string | null; notes: string; weight_kg: string }[]
    >(
      `SELECT id::text, destino_id::text, superseded_by::text, supersedes_id::text, notes, weight_kg::text FROM records
       WHERE id IN ($1::uuid, $2::uuid) ORDER BY chain_seq`,
      refused.record_id,
      line.rerouted.record_id,
    );
    expect(original).toMatchObject({ destino_id: DESTINO_DONATION, superseded_by: line.rerouted.record_id });
    expect(correction).toMatchObject({
      destino_id: DESTINO_FEED,
      supersedes_id: refused.record_id,
      weight_kg: '4.500',
      notes: 'Rechazada por Banco G28029643: Envase abierto — Para la granja de al lado',
    });
    expect(await count('records')).toBe(recordsBefore + 1);
    expect((await send(a.key, 'POST', url, { destino_id: DESTINO_FEED })).statusCode).toBe(409);

    const verify = (await send(a.key, 'GET', '/records/verify?full=true')).json().data;
    expect(verify).toMatchObject({ valid: true, first_invalid: null });
  });

  it('answers 404 for a line or donation of another establishment', async () => {
    const donation = await offer(a.key, [LINE]);
    const line = donation.lines[0]?.id;
    expect(
      (await send(aOther.key, 'POST', `/donations/${donation.id}/lines/${line}/reroute`, { destino_id: DESTINO_FEED })).statusCode,
    ).toBe(404);
    expect(
      (await send(aOther.key, 'POST', `/donations/${donation.id}/decision`, { lines: [{ line_id: line, decision: 'accepted' }] }))
        .statusCode,
    ).toBe(404);
    expect((await send(b.key, 'POST', `/donations/${donation.id}/collect`)).statusCode).toBe(404);
  });
});

describe('the prevention plan’s donation section', () => {
  it('lists the agreements, the kilos and every refusal with where it went, for its establishment and mode only', async () => {
    const donation = await offer(a.key, [
      { ...LINE, quantity: 7 },
      { ...LINE, description: 'Tarta | de queso', quantity: 1.25 },
    ]);
    const [kept, refused] = donation.lines as unknown as [{ id: string }, { id: string }];
    await send(a.key, 'POST', `/donations/${donation.id}/decision`, {
      lines: [
        { line_id: kept.id, decision: 'accepted' },
        { line_id: refused.id, decision: 'refused', reason: 'Sin frío\npara tartas' },
      ],
    });
    expect(
      (await send(a.key, 'POST', `/donations/${donation.id}/lines/${refused.id}/reroute`, { destino_id: DESTINO_FEED })).statusCode,
    ).toBe(200);

    // Offered at 00:30 on 2 December in Madrid: after the plan's last day.
    now = new Date('2026-12-01T23:30:00.000Z');
    try {
      await offer(a.key, [{ ...LINE, quantity: 9.75 }]);
    } finally {
      now = new Date('2026-12-01T10:00:00.000Z');
    }
    const plan = (await send(a.key, 'POST', '/prevention-plan', {})).json().data;
    const section = plan.donations;
    // The two agreements in force (another test of this file may add a draft and an expired one).
    const statuses = new Map(section.agreements.map((x: { id: string; status: string }) => [x.id, x.status]));
    expect([statuses.get(agreementId), statuses.get(narrowAgreementId)]).toEqual(['active', 'active']);
    expect(section.justification).toBeNull();
    // A's test donations of the plan's days (to 1 December in Madrid: the one offered at 00:30 on
    // the 2nd by another test is not in it), summed from the database.
    const [sums] = await t.db.$queryRawUnsafe<{ offered: string; accepted: string; refused: string }[]>(
      `SELECT sum(l.net_kg)::text AS offered, coalesce(sum(l.net_kg) FILTER (WHERE l.status = 'accepted'), 0)::text AS accepted,
         coalesce(sum(l.net_kg) FILTER (WHERE l.status = 'refused'), 0)::text AS refused
       FROM donations d JOIN donation_lines l ON l.donation_id = d.id WHERE d.establishment_id = $1::uuid AND d.livemode = false
         AND d.offered_at < '2026-12-01T23:00:00Z'`,
      a.establishmentId,
    );
    expect([section.offered_kg, section.accepted_kg, section.refused_kg]).toEqual([
      Number(sums?.offered),
      Number(sums?.accepted),
      Number(sums?.refused),
    ]);
    expect(section.refused_kg).toBeGreaterThanOrEqual(1.25);
    const mine = section.refusals.find((r: { donation_id: string }) => r.donation_id === donation.id);
    expect(mine).toMatchObject({ description: 'Tarta | de queso', kg: 1.25, reason: 'Sin frío\npara tartas', rerouted_to: 'animal_feed' });
    expect(mine.rerouted_to_label).toBe('Alimentación animal y fabricación de piensos');
    expect(section.donated_kg).toBe(plan.destinations.find((d: { key: string }) => d.key === 'donation').kg);

    const markdown = (await send(a.key, 'GET', '/prevention-plan?format=markdown')).json().data.markdown as string;
    expect(markdown).toContain('## Donación de alimentos (art. 6 y 7)');
    expect(markdown).toContain('| Tarta \\| de queso | 1,3 kg | Sin frío para tartas | Alimentación animal y fabricación de piensos |');

    // Live mode and another establishment of the organisation: none of A's test donations; the
    // other establishment has no agreement in force, so its plan asks for the written justification.
    const live = (await send(aLive, 'POST', '/prevention-plan', {})).json().data.donations;
    expect([live.offered_kg, live.refusals]).toEqual([0, []]);
    // An agreement not signed yet (a draft) is no agreement in force.
    const agreement = (await send(aLive, 'GET', `/donation-agreements/${agreementId}`)).json().data;
    const { id: _id, entity_name: _n, status: _s, document: _d, created_at: _c, updated_at: _u, ...fields } = agreement;
    const third = await createTenant(t.db, { organizationId: a.organizationId });
    const draft = await send(aLive, 'POST', '/donation-agreements', { ...fields, establishment_ids: [third.establishmentId] });
    expect(draft.statusCode, draft.body).toBe(201);
    const other = (await send(third.key, 'POST', '/prevention-plan?lang=en', {})).json().data.donations;
    expect(other).toMatchObject({ agreements: [{ id: draft.json().data.id, status: 'draft' }], offered_kg: 0, refusals: [] });
    expect(other.justification).toContain('art. 6.4.b');
  });
});
