import { randomUUID } from 'node:crypto';
import {
  addDays,
  type CreateDonationParsed,
  type DecideDonationInput,
  type Donation,
  type DonationEventData,
  type DonationLine,
  type DonationLineParsed,
  type DonationStatus,
  type ErrorDetail,
  localDate,
  MAX_NOTES_LENGTH,
  NEAR_BEST_BEFORE_DAYS,
  type RerouteDonationLineInput,
} from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { type Sql, sqlOfTransaction } from '../../db/sql.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, validationError } from '../../errors.js';
import { emitEvent } from '../../events/outbox.js';
import type { CatalogCache } from '../catalog/service.js';
import { correctRecord } from '../records/correct.js';
import { createRecord } from '../records/service.js';
import { getAgreement } from './agreements.js';

/**
 * Donations: food an establishment offers to a social entity under an agreement (agreements.ts),
 * line by line, and what becomes of it.
 *
 * - **Each line is a record of the register** from the moment it is offered: destination
 *   `donation`, the line's category and net kg, its product and description, `source` `donation`,
 *   the donation's time as `occurred_at`. Analytics, the forecast, the plan and the chain read the
 *   register only, never this table.
 * - **States**: `offered` → the entity's answer, every line at once (`decideDonation`): `accepted`
 *   when it takes at least one line, `refused` when it takes none → `collected` → `received`. A
 *   transition from any other state is a 409 naming the current one.
 * - **A refused line** keeps its reason and stays "awaiting re-route" (listed, counted in
 *   `awaiting_reroute`) until the kitchen sends it to a destination below donation in the hierarchy
 *   (`rerouteLine`): a correction of its record (records/correct.ts) with the entity's reason and the
 *   kitchen's note, never an edit. `GET /records/verify` walks both.
 * - **Checked when offered** (400, nothing stored): the agreement is the organisation's, covers
 *   the establishment and is in force today (active or expiring); its entity is not archived; each
 *   line's category is one the agreement accepts, and so are its storage (chilled, frozen), cooked
 *   food and a best-before date near or past (`NEAR_BEST_BEFORE_DAYS`); no line is past its use-by
 *   date (days in the establishment's time zone).
 * - **Values**: a line without `book_value` takes its product's `unit_cost` × the units, and without
 *   `market_value` its `price` × the units (rounded to cents); the units are the quantity counted in
 *   `unit`, or the net kg ÷ the unit weight for a product sold by the piece, or the net kg for one
 *   sold by weight. Left empty when the product lacks the price: the tax pack says so.
 * - **Mode**: a donation carries `livemode` like a record. A test key offers test donations under
 *   the organisation's (live) agreements, so an integration can be built without live data; the
 *   tax pack reads live donations only.
 * - **Webhooks**: `donation.offered`, `donation.accepted`, `donation.refused`, `donation.received`,
 *   in the donation's mode, written in the same transaction as the change.
 */

export type DonationDeps = { db: DbTx; clock: Clock; catalog: CatalogCache };

const DONATION_CODE = 'donation';

type LineRow = {
  id: string;
  donation_id: string;
  position: number;
  product_id: string | null;
  food_category: DonationLine['food_category'];
  description: string;
  lot: string | null;
  best_before: string | null;
  use_by: string | null;
  quantity: string;
  unit: DonationLine['unit'];
  net_kg: string;
  storage: DonationLine['storage'];
  cooked: boolean;
  book_value: string | null;
  market_value: string | null;
  allergens: DonationLine['allergens'];
  temperature_c: string | null;
  status: DonationLine['status'];
  refusal_reason: string | null;
  record_id: string;
  rerouted_record_id: string | null;
  rerouted_destino_id: string | null;
  rerouted_at: string | null;
};

type DonationRow = {
  id: string;
  establishment_id: string;
  livemode: boolean;
  agreement_id: string;
  entity_id: string;
  entity_name: string;
  status: DonationStatus;
  notes: string | null;
  offered_at: string;
  decided_at: string | null;
  collected_at: string | null;
  received_at: string | null;
};

const DONATION_SELECT = `SELECT d.id::text, d.establishment_id::text, d.livemode, d.agreement_id::text, a.entity_id::text,
    e.name AS entity_name, d.status, d.notes, ${isoSql('d.offered_at')} AS offered_at, ${isoSql('d.decided_at')} AS decided_at,
    ${isoSql('d.collected_at')} AS collected_at, ${isoSql('d.received_at')} AS received_at
  FROM donations d JOIN donation_agreements a ON a.id = d.agreement_id JOIN social_entities e ON e.id = a.entity_id`;

const LINE_SELECT = `SELECT l.id::text, l.donation_id::text, l.position, l.product_id::text, l.food_category, l.description, l.lot,
    to_char(l.best_before, 'YYYY-MM-DD') AS best_before, to_char(l.use_by, 'YYYY-MM-DD') AS use_by, l.quantity::text,
    l.unit, l.net_kg::text, l.storage, l.cooked, l.book_value::text, l.market_value::text, l.allergens, l.temperature_c::text,
    l.status, l.refusal_reason, l.record_id::text, l.rerouted_record_id::text, r.destino_id::text AS rerouted_destino_id,
    ${isoSql('l.rerouted_at')} AS rerouted_at
  FROM donation_lines l LEFT JOIN records r ON r.id = l.rerouted_record_id`;

const num = (v: string | null): number | null => (v === null ? null : Number(v));
const cents = (euros: number) => Math.round(euros * 100);

function toLine(r: LineRow): DonationLine {
  return {
    id: r.id,
    position: r.position,
    product_id: r.product_id,
    food_category: r.food_category,
    description: r.description,
    lot: r.lot,
    best_before: r.best_before,
    use_by: r.use_by,
    quantity: Number(r.quantity),
    unit: r.unit,
    net_kg: Number(r.net_kg),
    storage: r.storage,
    cooked: r.cooked,
    book_value: num(r.book_value),
    market_value: num(r.market_value),
    allergens: r.allergens,
    temperature_c: num(r.temperature_c),
    status: r.status,
    refusal_reason: r.refusal_reason,
    record_id: r.record_id,
    rerouted:
      r.rerouted_record_id === null
        ? null
        : { record_id: r.rerouted_record_id, destino_id: r.rerouted_destino_id as string, at: r.rerouted_at as string },
  };
}

function toDonation(d: DonationRow, lines: DonationLine[]): Donation {
  // Once the entity has answered, the totals are of what it took.
  const counted = d.status === 'offered' ? lines : lines.filter((l) => l.status === 'accepted');
  const sum = (pick: (l: DonationLine) => number | null) => counted.reduce((acc, l) => acc + cents(pick(l) ?? 0), 0) / 100;
  return {
    ...d,
    lines,
    totals: {
      net_kg: Math.round(lines.reduce((acc, l) => acc + l.net_kg * 1000, 0)) / 1000,
      accepted_kg: Math.round(lines.filter((l) => l.status === 'accepted').reduce((acc, l) => acc + l.net_kg * 1000, 0)) / 1000,
      book_value: sum((l) => l.book_value),
      market_value: sum((l) => l.market_value),
    },
    awaiting_reroute: lines.filter((l) => l.status === 'refused' && l.rerouted === null).length,
  };
}

async function linesOf(sql: Sql, donationIds: string[]): Promise<Map<string, DonationLine[]>> {
  const byDonation = new Map<string, DonationLine[]>(donationIds.map((id) => [id, []]));
  if (donationIds.length === 0) return byDonation;
  const { rows } = await sql.query<LineRow>(`${LINE_SELECT} WHERE l.donation_id = ANY($1::uuid[]) ORDER BY l.donation_id, l.position`, [
    donationIds,
  ]);
  for (const r of rows) byDonation.get(r.donation_id)?.push(toLine(r));
  return byDonation;
}

/** The establishment's donation `id` in the tenant's mode; a 404 for any other. */
export async function getDonation(sql: Sql, tenant: Tenant, id: string): Promise<Donation> {
  const { rows } = await sql.query<DonationRow>(
    `${DONATION_SELECT} WHERE d.id = $1::uuid AND d.establishment_id = $2::uuid AND d.livemode = $3`,
    [id, tenant.establishmentId, tenant.livemode],
  );
  if (!rows[0]) throw new AppError('not_found', `No donation ${id} in this establishment`);
  const lines = await linesOf(sql, [id]);
  return toDonation(rows[0], lines.get(id) ?? []);
}

export type DonationFilter = {
  status?: DonationStatus | undefined;
  entity_id?: string | undefined;
  awaiting_reroute?: boolean | undefined;
  limit: number;
  offset: number;
};

/** The establishment's donations of the tenant's mode, the latest offered first, filtered as asked. */
export async function listDonations(sql: Sql, tenant: Tenant, filter: DonationFilter): Promise<{ items: Donation[]; total: number }> {
  const where = `d.establishment_id = $1::uuid AND d.livemode = $2 AND ($3::text IS NULL OR d.status = $3)
    AND ($4::uuid IS NULL OR a.entity_id = $4::uuid)
    AND (NOT $5::boolean OR EXISTS (SELECT 1 FROM donation_lines l WHERE l.donation_id = d.id AND l.status = 'refused' AND l.rerouted_record_id IS NULL))`;
  const params = [
    tenant.establishmentId,
    tenant.livemode,
    filter.status ?? null,
    filter.entity_id ?? null,
    filter.awaiting_reroute === true,
  ];
  const [{ rows }, { rows: counted }] = await Promise.all([
    sql.query<DonationRow>(`${DONATION_SELECT} WHERE ${where} ORDER BY d.offered_at DESC, d.id DESC LIMIT $6 OFFSET $7`, [
      ...params,
      filter.limit,
      filter.offset,
    ]),
    sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM donations d JOIN donation_agreements a ON a.id = d.agreement_id WHERE ${where}`,
      params,
    ),
  ]);
  const lines = await linesOf(
    sql,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toDonation(r, lines.get(r.id) ?? [])), total: Number(counted[0]?.n ?? 0) };
}

/** The establishment's refused lines of the tenant's mode not yet sent elsewhere, and the donations that hold them. */
export async function awaitingReroute(sql: Sql, tenant: Tenant): Promise<{ lines: number; donations: number }> {
  const { rows } = await sql.query<{ lines: number; donations: number }>(
    `SELECT count(*)::int AS lines, count(DISTINCT d.id)::int AS donations
     FROM donations d JOIN donation_lines l ON l.donation_id = d.id
     WHERE d.establishment_id = $1::uuid AND d.livemode = $2 AND l.status = 'refused' AND l.rerouted_record_id IS NULL`,
    [tenant.establishmentId, tenant.livemode],
  );
  return { lines: rows[0]?.lines ?? 0, donations: rows[0]?.donations ?? 0 };
}

type ProductRow = {
  id: string;
  name: string;
  food_category: DonationLine['food_category'];
  unit_weight_kg: string | null;
  density_kg_per_l: string | null;
  price: string | null;
  unit_cost: string | null;
};

/** A line as it will be stored: the product's category, weight and values filled in. */
type ResolvedLine = DonationLineParsed & { food_category: DonationLine['food_category']; net_kg: number };

/**
 * The units a product's `price` and `unit_cost` are for: the pieces counted, or the kg ÷ the unit
 * weight of a product sold by the piece, or the kg of one sold by weight (no unit weight).
 */
function unitsOf(line: { unit: DonationLine['unit']; quantity: number }, netKg: number, product: ProductRow): number {
  if (line.unit === 'unit') return line.quantity;
  return product.unit_weight_kg === null ? netKg : netKg / Number(product.unit_weight_kg);
}

function resolveLine(
  line: DonationLineParsed,
  index: number,
  product: ProductRow | undefined,
  problems: ErrorDetail[],
): ResolvedLine | null {
  const at = (field: string) => `lines.${index}.${field}`;
  const foodCategory = line.food_category ?? product?.food_category;
  if (!foodCategory) problems.push({ path: at('food_category'), message: 'is required when the line names no product' });
  let netKg = line.net_kg;
  if (netKg === undefined) {
    if (line.unit === 'kg') netKg = line.quantity;
    else if (line.unit === 'unit' && product?.unit_weight_kg) netKg = line.quantity * Number(product.unit_weight_kg);
    else if (line.unit === 'l' && product?.density_kg_per_l) netKg = line.quantity * Number(product.density_kg_per_l);
  }
  if (netKg === undefined) {
    problems.push({
      path: at('net_kg'),
      message: `is required for a quantity in '${line.unit}' unless the line's product has a ${line.unit === 'l' ? 'density' : 'unit weight'}`,
    });
  }
  if (!foodCategory || netKg === undefined) return null;
  netKg = Math.round(netKg * 1000) / 1000;
  const value = (perUnit: string | null | undefined) =>
    perUnit == null || !product ? null : cents(Number(perUnit) * unitsOf(line, netKg as number, product)) / 100;
  return {
    ...line,
    food_category: foodCategory,
    net_kg: netKg,
    book_value: line.book_value ?? value(product?.unit_cost),
    market_value: line.market_value ?? value(product?.price),
  };
}

/** What the agreement and the calendar refuse of a line (Ley 1/2025 art. 7: the donor offers what the agreement accepts). */
function lineProblems(
  line: ResolvedLine,
  index: number,
  agreement: Awaited<ReturnType<typeof getAgreement>>,
  today: string,
): ErrorDetail[] {
  const at = (field: string) => `lines.${index}.${field}`;
  const problems: ErrorDetail[] = [];
  const { conditions } = agreement;
  if (!agreement.accepted_food_categories.includes(line.food_category)) {
    problems.push({ path: at('food_category'), message: `'${line.food_category}' is not a category the agreement accepts` });
  }
  if (line.storage === 'chilled' && !conditions.chilled)
    problems.push({ path: at('storage'), message: 'the agreement accepts no chilled food' });
  if (line.storage === 'frozen' && !conditions.frozen)
    problems.push({ path: at('storage'), message: 'the agreement accepts no frozen food' });
  if (line.cooked && !conditions.cooked) problems.push({ path: at('cooked'), message: 'the agreement accepts no cooked food' });
  if (line.use_by && line.use_by < today) {
    problems.push({ path: at('use_by'), message: `${line.use_by} is past: food past its use-by date cannot be donated` });
  }
  if (line.best_before && line.best_before <= addDays(today, NEAR_BEST_BEFORE_DAYS) && !conditions.near_best_before) {
    problems.push({
      path: at('best_before'),
      message: `${line.best_before} is within ${NEAR_BEST_BEFORE_DAYS} days or past, and the agreement accepts no food near its best-before date`,
    });
  }
  return problems;
}

async function donationEvent(db: DbTx, type: `donation.${'offered' | 'accepted' | 'refused' | 'received'}`, donation: Donation, at: Date) {
  const data: DonationEventData = {
    establishment_id: donation.establishment_id,
    livemode: donation.livemode,
    donation_id: donation.id,
    agreement_id: donation.agreement_id,
    entity_id: donation.entity_id,
    entity_name: donation.entity_name,
    status: donation.status,
    lines: {
      offered: donation.lines.length,
      accepted: donation.lines.filter((l) => l.status === 'accepted').length,
      refused: donation.lines.filter((l) => l.status === 'refused').length,
    },
    net_kg: donation.totals.net_kg,
  };
  await emitEvent(db, { establishmentId: donation.establishment_id, livemode: donation.livemode, type, data, at });
}

/** The donation destination's id (seeded; the catalogue keeps it in memory). */
async function donationDestination(deps: DonationDeps): Promise<{ id: string; orden: number }> {
  const catalog = await deps.catalog.get(deps.db);
  const found = catalog.destinations.find((d) => d.code === DONATION_CODE);
  if (!found) throw new Error('The donation destination is missing from the catalogue');
  return found;
}

/**
 * Offers a donation: checks the agreement and every line (400 naming each problem, nothing
 * stored), then in one transaction stores it, writes one record per line and `donation.offered`.
 */
export async function createDonation(deps: DonationDeps, tenant: Tenant, input: CreateDonationParsed): Promise<Donation> {
  const now = deps.clock();
  const sql = sqlOfTransaction(deps.db);
  const today = localDate(now, tenant.timezone);
  const agreement = await getAgreement(sql, tenant.organizationId, input.agreement_id, now).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'not_found') {
      throw validationError('agreement_id: no donation agreement with this id in the organisation', [
        { path: 'agreement_id', message: 'no donation agreement with this id in the organisation' },
      ]);
    }
    throw err;
  });
  const refuse = (message: string): never => {
    throw validationError(`agreement_id: ${message}`, [{ path: 'agreement_id', message }]);
  };
  if (!agreement.establishment_ids.includes(tenant.establishmentId)) refuse('the agreement does not cover this establishment');
  if (agreement.status === 'expired') refuse(`the agreement ended on ${agreement.valid_until}`);
  if (agreement.status === 'draft') {
    refuse(
      agreement.document === null
        ? 'the agreement is a draft: store its signed document first (PUT /donation-agreements/{id}/document)'
        : `the agreement is in force from ${agreement.valid_from}`,
    );
  }
  const { rows: entity } = await sql.query<{ archived: boolean }>(
    'SELECT archived_at IS NOT NULL AS archived FROM social_entities WHERE id = $1::uuid',
    [agreement.entity_id],
  );
  if (entity[0]?.archived) refuse(`the entity ${agreement.entity_name} is archived`);

  const productIds = [...new Set(input.lines.map((l) => l.product_id).filter((id): id is string => typeof id === 'string'))];
  const { rows: productRows } = productIds.length
    ? await sql.query<ProductRow>(
        `SELECT id::text, name, food_category, unit_weight_kg::text, density_kg_per_l::text, price::text, unit_cost::text
         FROM products WHERE organization_id = $1::uuid AND id = ANY($2::uuid[])`,
        [tenant.organizationId, productIds],
      )
    : { rows: [] };
  const products = new Map(productRows.map((p) => [p.id, p]));
  const problems: ErrorDetail[] = [];
  const resolved: ResolvedLine[] = [];
  input.lines.forEach((line, index) => {
    const product = line.product_id ? products.get(line.product_id) : undefined;
    if (line.product_id && !product) {
      problems.push({ path: `lines.${index}.product_id`, message: 'no product with this id in the catalogue' });
      return;
    }
    const r = resolveLine(line, index, product, problems);
    if (r) {
      problems.push(...lineProblems(r, index, agreement, today));
      resolved.push(r);
    }
  });
  if (problems.length) throw validationError(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);

  const destination = await donationDestination(deps);
  const id = randomUUID();
  return inTransaction(deps.db, async (tx) => {
    const txSql = sqlOfTransaction(tx);
    const at = now.toISOString();
    await txSql.query(
      `INSERT INTO donations (id, establishment_id, livemode, agreement_id, status, notes, offered_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3, $4::uuid, 'offered', $5, $6::timestamptz, $6::timestamptz)`,
      [id, tenant.establishmentId, tenant.livemode, agreement.id, input.notes ?? null, at],
    );
    for (const [index, line] of resolved.entries()) {
      // Its references (the cause) are checked with the record's own rules, named as this request has them.
      const record = await createRecord(
        { db: tx, clock: deps.clock, catalog: deps.catalog },
        tenant,
        {
          food_category: line.food_category,
          weight_kg: line.net_kg,
          destino_id: destination.id,
          causa_id: line.causa_id ?? null,
          product_name: line.description,
          product_id: line.product_id ?? null,
          notes: `Donación a ${agreement.entity_name}${line.lot ? `, lote ${line.lot}` : ''}`.slice(0, MAX_NOTES_LENGTH),
          occurred_at: at,
        },
        'donation',
      ).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'validation_error' && err.details) {
          const details = err.details.map((d) => ({ ...d, path: `lines.${index}.${d.path}` }));
          throw validationError(details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
        }
        throw err;
      });
      await txSql.query(
        `INSERT INTO donation_lines (id, donation_id, position, product_id, food_category, description, lot, best_before, use_by,
           quantity, unit, net_kg, storage, cooked, book_value, market_value, allergens, temperature_c, status, record_id)
         VALUES ($1::uuid, $2::uuid, $3, $4::uuid, $5, $6, $7, $8::date, $9::date, $10, $11, $12, $13, $14, $15, $16, $17::text[],
           $18, 'offered', $19::uuid)`,
        [
          randomUUID(),
          id,
          index + 1,
          line.product_id ?? null,
          line.food_category,
          line.description,
          line.lot ?? null,
          line.best_before ?? null,
          line.use_by ?? null,
          line.quantity,
          line.unit,
          line.net_kg,
          line.storage,
          line.cooked,
          line.book_value ?? null,
          line.market_value ?? null,
          line.allergens,
          line.temperature_c ?? null,
          record.id,
        ],
      );
    }
    const donation = await getDonation(txSql, tenant, id);
    await donationEvent(tx, 'donation.offered', donation, now);
    return donation;
  });
}

/** The donation's row, locked for the change, in the state `expected` (a 409 naming its state otherwise). */
async function lockInState(sql: Sql, tenant: Tenant, id: string, expected: DonationStatus[], action: string): Promise<void> {
  const { rows } = await sql.query<{ status: DonationStatus }>(
    'SELECT status FROM donations WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3 FOR UPDATE',
    [id, tenant.establishmentId, tenant.livemode],
  );
  if (!rows[0]) throw new AppError('not_found', `No donation ${id} in this establishment`);
  if (!expected.includes(rows[0].status)) {
    throw new AppError('conflict', `Donation ${id} is ${rows[0].status}: it can be ${action} only when ${expected.join(' or ')}`);
  }
}

/**
 * The entity's answer (through the API, the dashboard or its signing link): every line once,
 * accepted or refused with a reason. `accepted` when it takes a line, `refused` when none.
 */
export async function decideDonation(deps: DonationDeps, tenant: Tenant, input: DecideDonationInput): Promise<Donation> {
  const now = deps.clock();
  return inTransaction(deps.db, async (tx) => {
    const sql = sqlOfTransaction(tx);
    await lockInState(sql, tenant, input.id, ['offered'], 'answered');
    const { rows: lines } = await sql.query<{ id: string; position: number }>(
      'SELECT id::text, position FROM donation_lines WHERE donation_id = $1::uuid ORDER BY position',
      [input.id],
    );
    const known = new Set(lines.map((l) => l.id));
    const problems: ErrorDetail[] = [];
    input.lines.forEach((d, index) => {
      if (!known.has(d.line_id)) problems.push({ path: `lines.${index}.line_id`, message: 'is not a line of this donation' });
    });
    const answered = new Set(input.lines.map((d) => d.line_id));
    const missing = lines.filter((l) => !answered.has(l.id));
    if (missing.length) {
      problems.push({ path: 'lines', message: `every line needs an answer; missing: line ${missing.map((l) => l.position).join(', ')}` });
    }
    if (problems.length) throw validationError(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
    for (const d of input.lines) {
      await sql.query('UPDATE donation_lines SET status = $2, refusal_reason = $3 WHERE id = $1::uuid', [
        d.line_id,
        d.decision,
        d.decision === 'refused' ? d.reason : null,
      ]);
    }
    const status: DonationStatus = input.lines.some((d) => d.decision === 'accepted') ? 'accepted' : 'refused';
    await sql.query('UPDATE donations SET status = $2, decided_at = $3::timestamptz, updated_at = $3::timestamptz WHERE id = $1::uuid', [
      input.id,
      status,
      now.toISOString(),
    ]);
    const donation = await getDonation(sql, tenant, input.id);
    await donationEvent(tx, status === 'accepted' ? 'donation.accepted' : 'donation.refused', donation, now);
    return donation;
  });
}

/** Collected (from accepted), then received (from collected); `donation.received` at the end. */
export async function advanceDonation(deps: DonationDeps, tenant: Tenant, id: string, to: 'collected' | 'received'): Promise<Donation> {
  const now = deps.clock();
  return inTransaction(deps.db, async (tx) => {
    const sql = sqlOfTransaction(tx);
    await lockInState(sql, tenant, id, [to === 'collected' ? 'accepted' : 'collected'], `marked ${to}`);
    await sql.query(
      `UPDATE donations SET status = $2, ${to === 'collected' ? 'collected_at' : 'received_at'} = $3::timestamptz, updated_at = $3::timestamptz
       WHERE id = $1::uuid`,
      [id, to, now.toISOString()],
    );
    const donation = await getDonation(sql, tenant, id);
    if (to === 'received') await donationEvent(tx, 'donation.received', donation, now);
    return donation;
  });
}

/**
 * Sends a refused line down the hierarchy: its record is corrected (a new record in the chain, the
 * original superseded) to `destino_id`, which must rank below donation, with the entity's reason
 * and the kitchen's note in `notes`. Once per line (409 after).
 */
export async function rerouteLine(deps: DonationDeps, tenant: Tenant, input: RerouteDonationLineInput): Promise<Donation> {
  const catalog = await deps.catalog.get(deps.db);
  const donation = await donationDestination(deps);
  const target = catalog.destinationById.get(input.destino_id);
  if (!target) {
    throw validationError('destino_id: no destination with this id', [{ path: 'destino_id', message: 'no destination with this id' }]);
  }
  if (target.orden <= donation.orden) {
    const message = `'${target.nombre}' is not below donation in the hierarchy: pick animal feed, by-products, compost, energy or landfill`;
    throw validationError(`destino_id: ${message}`, [{ path: 'destino_id', message }]);
  }
  const now = deps.clock();
  return inTransaction(deps.db, async (tx) => {
    const sql = sqlOfTransaction(tx);
    await lockInState(sql, tenant, input.id, ['accepted', 'refused', 'collected', 'received'], 'rerouted');
    const { rows } = await sql.query<{
      status: string;
      refusal_reason: string | null;
      record_id: string;
      rerouted: boolean;
      entity: string;
    }>(
      `SELECT l.status, l.refusal_reason, l.record_id::text, l.rerouted_record_id IS NOT NULL AS rerouted, e.name AS entity
       FROM donation_lines l JOIN donations d ON d.id = l.donation_id JOIN donation_agreements a ON a.id = d.agreement_id
       JOIN social_entities e ON e.id = a.entity_id
       WHERE l.id = $1::uuid AND l.donation_id = $2::uuid FOR UPDATE OF l`,
      [input.line_id, input.id],
    );
    const line = rows[0];
    if (!line) throw new AppError('not_found', `No line ${input.line_id} in donation ${input.id}`);
    if (line.status !== 'refused')
      throw new AppError('conflict', `Line ${input.line_id} was ${line.status}, not refused: only a refused line is sent elsewhere`);
    if (line.rerouted) throw new AppError('conflict', `Line ${input.line_id} was already sent elsewhere`);
    const notes = `Rechazada por ${line.entity}: ${line.refusal_reason}${input.note ? ` — ${input.note}` : ''}`.slice(0, MAX_NOTES_LENGTH);
    const corrected = await correctRecord({ tx, clock: deps.clock, catalog: deps.catalog }, tenant, {
      record_id: line.record_id,
      changes: { destino_id: input.destino_id, notes },
      source: 'donation',
    });
    await sql.query('UPDATE donation_lines SET rerouted_record_id = $2::uuid, rerouted_at = $3::timestamptz WHERE id = $1::uuid', [
      input.line_id,
      corrected.id,
      now.toISOString(),
    ]);
    await sql.query('UPDATE donations SET updated_at = $2::timestamptz WHERE id = $1::uuid', [input.id, now.toISOString()]);
    return getDonation(sql, tenant, input.id);
  });
}
