import { expect } from 'vitest';
import type { TestContext } from './helpers.js';

/**
 * What the donation tests set up again and again: a social entity, an agreement with its signed
 * document (so that it is in force), sent through the API with a live key as a customer would.
 */

/** A tiny but well-formed PDF: the signed agreement the tests store. */
/**
 * Dates of an agreement in force on the machine's clock, whatever the year: from the start of last
 * year to the end of the year after next. For tests whose app runs on that clock (a test with a
 * fixed clock writes dates around it instead).
 */
export function inForceOnTheMachineClock(): { valid_from: string; valid_until: string } {
  const year = new Date().getUTCFullYear();
  return { valid_from: `${year - 1}-01-01`, valid_until: `${year + 2}-12-31` };
}

export const AGREEMENT_PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(256, 7), Buffer.from('\n%%EOF\n')]);

/** The NIF of a legal person (G: an association) from 7 digits, with its control digit. */
export function entityNif(digits: string): string {
  const sum = [...digits].reduce((acc, c, i) => {
    const d = Number(c);
    return acc + (i % 2 === 1 ? d : Math.floor((d * 2) / 10) + ((d * 2) % 10));
  }, 0);
  return `G${digits}${(10 - (sum % 10)) % 10}`;
}

const send = (t: TestContext, key: string, method: 'POST' | 'PUT', url: string, body: unknown, contentType = 'application/json') =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    payload: Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });

/** A social entity of the key's organisation (a live key); its id. */
export async function socialEntity(t: TestContext, liveKey: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await send(t, liveKey, 'POST', '/social-entities', {
    name: 'Banco de Alimentos del Barrio',
    nif: entityNif('2802964'),
    address: 'Calle Mayor 1, 28013 Madrid',
    legal_form: 'banco_de_alimentos',
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    capacity: { cold_chain: true, vehicle: true },
    ...overrides,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

/** An agreement with `entityId` for `establishmentIds`, its signed document stored; its id. */
export async function signedAgreement(
  t: TestContext,
  liveKey: string,
  entityId: string,
  establishmentIds: string[],
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await send(t, liveKey, 'POST', '/donation-agreements', {
    entity_id: entityId,
    establishment_ids: establishmentIds,
    valid_from: '2026-01-01',
    valid_until: '2027-06-30',
    renewal: 'none',
    accepted_food_categories: ['bakery', 'fruit_veg'],
    conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
    collection: { schedule: 'Martes a las 18:00', weekdays: ['tuesday'], transport: 'entity' },
    storage_conditions: 'Refrigerado entre 0 y 4 ºC',
    safety_responsibility_clause: 'El donante responde hasta la entrega.',
    refusal_procedure: 'Por escrito y con motivo.',
    ...overrides,
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.id as string;
  const stored = await send(t, liveKey, 'PUT', `/donation-agreements/${id}/document`, AGREEMENT_PDF, 'application/pdf');
  expect(stored.statusCode, stored.body).toBe(200);
  return id;
}
