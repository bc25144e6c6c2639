import { randomUUID } from 'node:crypto';
import {
  addDays,
  type BatchItemError,
  type ErrorDetail,
  isVolumeUnit,
  KG_PER_MASS_UNIT,
  LITRES_PER_VOLUME_UNIT,
  localDate,
  MAX_OCCURRED_AT_AGE_DAYS,
  MAX_OCCURRED_AT_AHEAD_SECONDS,
  MAX_SALES_PER_EVENT,
  needsDensity,
  SaleLine,
  SalesRecordedBatch,
  type SalesSummary,
} from '@merma/schema';
import type { z } from 'zod';
import { DATE_ONLY, localNoon } from '../../calendar.js';
import type { AuthContext } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { issueDetails, validationError } from '../../errors.js';
import { Prisma } from '../../generated/prisma/client.ts';

const AHEAD_MS = MAX_OCCURRED_AT_AHEAD_SECONDS * 1000;

type ParsedLine = z.infer<typeof SaleLine>;

/**
 * Where a connector found a line in the system's own payload (`orders.0.line_items.2`, `lines.1`,
 * `''` for the payload itself) and what that system calls the standard fields, so that problems
 * are reported where the sender put them; `problem`: the connector could not map the line.
 */
export type LineOrigin = { path: string; fields: Partial<Record<keyof ParsedLine, string>>; problem?: ErrorDetail };

/** A line ready to store: its product found, its quantity in `unit` or kg, its local day. */
type StoredLine = {
  id: string;
  product_id: string;
  ref: string | null;
  quantity: number;
  unit: 'unit' | 'kg';
  sold_at: string;
  day: string;
  sold_out: boolean;
  /** When it ran out (ISO), on the line's day; null when not said. */
  sold_out_at: string | null;
};

/**
 * Reads a `sales.recorded` payload in the standard format — one sale (`source` and a line's
 * fields) or a batch (`{ source, sales }`) — and returns the source and its lines (unvalidated),
 * or refuses the envelope. Lines are checked one by one in `storeSales`.
 */
export function salesOfPayload(payload: Record<string, unknown>): { source: string; lines: unknown[]; batch: boolean } {
  if ('sales' in payload) {
    const parsed = SalesRecordedBatch.safeParse(payload);
    if (!parsed.success) throw validationError('Invalid sales.recorded payload', issueDetails(parsed.error, 'payload'));
    return { source: parsed.data.source, lines: parsed.data.sales, batch: true };
  }
  const { source, ...line } = payload;
  if (typeof source !== 'string' || !source.trim() || source.length > 100) {
    throw validationError('Invalid sales.recorded payload', [
      { path: 'payload.source', message: 'a non-empty string of at most 100 characters' },
    ]);
  }
  return { source: source.trim(), lines: [line], batch: false };
}

/** When the sale happened, checked against the same window as a record's `occurred_at`. */
function soldAt(value: string, now: Date, timezone: string): { at: string; day: string } | { problem: string } {
  if (DATE_ONLY.test(value)) {
    // A day total: noon of that day, accepted up to today (its noon may still be ahead).
    const today = localDate(now, timezone);
    if (value > today) return { problem: 'a day after today' };
    if (value < addDays(today, -MAX_OCCURRED_AT_AGE_DAYS)) return { problem: `may be at most ${MAX_OCCURRED_AT_AGE_DAYS} days back` };
    return { at: localNoon(value, timezone), day: value };
  }
  const at = new Date(value);
  if (at.getTime() > now.getTime() + AHEAD_MS) {
    return { problem: `may be at most ${MAX_OCCURRED_AT_AHEAD_SECONDS / 60} minutes ahead of the server's clock` };
  }
  if (at.getTime() < now.getTime() - MAX_OCCURRED_AT_AGE_DAYS * 86_400_000)
    return { problem: `may be at most ${MAX_OCCURRED_AT_AGE_DAYS} days back` };
  return { at: at.toISOString(), day: localDate(at, timezone) };
}

/**
 * Stores the valid sale lines of an event and reports the others by index (an unknown product, a
 * date out of the window, a malformed line). A line with an `external_id` is stored once per
 * source: a resend counts as a duplicate. The lines and their day totals (`sale_day_totals`, which
 * the demand forecast reads) are written together. Nothing valid: 400 and nothing stored.
 */
export async function storeSales(
  tx: DbTx,
  auth: AuthContext,
  input: { source: string; lines: unknown[]; batch: boolean; now: Date; eventId: string; origins?: LineOrigin[] | undefined },
): Promise<SalesSummary> {
  const errors: BatchItemError[] = [];
  const valid: { index: number; line: ParsedLine }[] = [];
  const path = (index: number, field: string) => {
    const origin = input.origins?.[index];
    const [head = '', ...rest] = field.split('.');
    const named = origin ? [origin.fields[head as keyof ParsedLine] ?? head, ...rest].filter(Boolean).join('.') : field;
    const at = origin ? origin.path : input.batch ? `sales.${index}` : '';
    return ['payload', at, named].filter(Boolean).join('.');
  };
  const refuse = (index: number, details: ErrorDetail[]) =>
    errors.push({ index, code: 'validation_error', error: details.map((d) => `${d.path}: ${d.message}`).join('; '), details });

  input.lines.forEach((raw, index) => {
    const problem = input.origins?.[index]?.problem;
    if (problem) {
      refuse(index, [{ path: path(index, problem.path), message: problem.message }]);
      return;
    }
    const parsed = SaleLine.safeParse(raw);
    if (parsed.success) valid.push({ index, line: parsed.data });
    else
      refuse(
        index,
        parsed.error.issues.map((i) => ({ path: path(index, i.path.map(String).join('.')), message: i.message })),
      );
  });

  // Every product named, found in one query (the organisation's catalogue only).
  const ids = valid.flatMap(({ line }) => (line.product_id ? [line.product_id] : []));
  const eans = valid.flatMap(({ line }) => (!line.product_id && line.ean ? [line.ean] : []));
  const refs = valid.flatMap(({ line }) => (!line.product_id && !line.ean && line.product_ref ? [line.product_ref] : []));
  const products = valid.length
    ? await tx.$queryRaw<{ id: string; ean: string; pos_ref: string | null; name: string; density: number | null }[]>`
        SELECT id::text, ean, pos_ref, name, density_kg_per_l::float8 AS density FROM products
        WHERE organization_id = ${auth.organizationId}::uuid
          AND (id = ANY(${ids}::uuid[]) OR ean = ANY(${eans}::text[]) OR pos_ref = ANY(${refs}::text[]))`
    : [];
  const byId = new Map(products.map((p) => [p.id, p.id]));
  const byEan = new Map(products.map((p) => [p.ean, p.id]));
  const byRef = new Map(products.flatMap((p) => (p.pos_ref ? [[p.pos_ref, p.id] as const] : [])));
  const productOf = new Map(products.map((p) => [p.id, p]));

  const lines: StoredLine[] = [];
  for (const { index, line } of valid) {
    const [field, productId] = line.product_id
      ? ['product_id', byId.get(line.product_id)]
      : line.ean
        ? ['ean', byEan.get(line.ean)]
        : ['product_ref', byRef.get(line.product_ref as string)];
    const when = soldAt(line.sold_at, input.now, auth.timezone);
    const problems: ErrorDetail[] = [];
    if (!productId) problems.push({ path: path(index, field), message: 'no product of this organisation' });
    if ('problem' in when) problems.push({ path: path(index, 'sold_at'), message: when.problem });
    // The time it ran out is on the line's own local day (a day total's too), and not ahead of the clock.
    const ranOut = line.sold_out_at === undefined ? null : new Date(line.sold_out_at);
    if (ranOut && !('problem' in when) && localDate(ranOut, auth.timezone) !== when.day)
      problems.push({ path: path(index, 'sold_out_at'), message: `not on the line's day (${when.day}, in the establishment's time zone)` });
    else if (ranOut && ranOut.getTime() > input.now.getTime() + AHEAD_MS)
      problems.push({ path: path(index, 'sold_out_at'), message: "ahead of the server's clock" });
    // A volume is weighed with the product's density (kg = litres × density_kg_per_l); without one
    // the line is refused, naming the product and the field to set.
    const density = productId ? (productOf.get(productId)?.density ?? null) : null;
    if (productId && isVolumeUnit(line.unit) && density === null)
      problems.push({ path: path(index, 'unit'), message: needsDensity(productOf.get(productId)?.name ?? productId) });
    if (problems.length || !productId || 'problem' in when) {
      refuse(index, problems);
      continue;
    }
    // Stored to the thousandth (of a unit, or a gram): what rounds to nothing is refused.
    const counted = line.unit === 'unit';
    const kgPer = isVolumeUnit(line.unit)
      ? LITRES_PER_VOLUME_UNIT[line.unit] * (density as number)
      : KG_PER_MASS_UNIT[line.unit as keyof typeof KG_PER_MASS_UNIT];
    const quantity = Math.round(line.quantity * (counted ? 1 : kgPer) * 1000) / 1000;
    if (quantity <= 0) {
      refuse(index, [{ path: path(index, 'quantity'), message: `under 0.001 ${counted ? 'units' : 'kg'} once rounded` }]);
      continue;
    }
    lines.push({
      id: randomUUID(),
      product_id: productId,
      ref: line.external_id ?? null,
      quantity,
      unit: counted ? 'unit' : 'kg',
      sold_at: when.at,
      day: when.day,
      sold_out: line.sold_out || ranOut !== null,
      sold_out_at: ranOut?.toISOString() ?? null,
    });
  }
  errors.sort((a, b) => a.index - b.index);

  if (lines.length === 0) {
    throw validationError(
      input.batch ? 'No valid sale line in the event' : 'Invalid sales.recorded payload',
      errors.flatMap((e) => e.details ?? []),
    );
  }

  // The lines in one multi-row insert per MAX_SALES_PER_EVENT lines (a connector's page may carry
  // more), then their day totals in one statement, all in the caller's transaction. A line whose
  // external id this source has sent before is skipped (ON CONFLICT DO NOTHING) and not counted
  // again. Every writer takes rows in one order — the lines sorted here (external id, product, day)
  // and inserted in that order, the totals by product and day — so that two events with
  // overlapping lines wait for each other instead of deadlocking.
  const key = (l: StoredLine) => [l.ref === null ? '\uffff' : `0${l.ref}`, l.product_id, l.day];
  lines.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const i = x.findIndex((v, j) => v !== y[j]);
    return i < 0 ? 0 : (x[i] as string) < (y[i] as string) ? -1 : 1;
  });
  let stored = 0;
  for (let from = 0; from < lines.length; from += MAX_SALES_PER_EVENT) {
    const chunk = lines.slice(from, from + MAX_SALES_PER_EVENT);
    const [result] = await tx.$queryRaw<{ stored: number }[]>(Prisma.sql`
      WITH ins AS (
        INSERT INTO sales (id, establishment_id, livemode, product_id, source, external_ref, quantity, unit, sold_at, day, inbound_event_id,
          sold_out, sold_out_at)
        SELECT u.id, ${auth.establishmentId}::uuid, ${auth.livemode}, u.product_id, ${input.source}, u.ref, u.quantity, u.unit,
          u.sold_at, u.day, ${input.eventId}::uuid, u.sold_out, u.sold_out_at
        FROM ROWS FROM (json_to_recordset(${JSON.stringify(chunk)}::json)
          AS (id uuid, product_id uuid, ref text, quantity numeric, unit text, sold_at timestamptz, day date, sold_out boolean,
            sold_out_at timestamptz))
          WITH ORDINALITY AS u(id, product_id, ref, quantity, unit, sold_at, day, sold_out, sold_out_at, n)
        ORDER BY u.n
        ON CONFLICT (establishment_id, livemode, source, external_ref) DO NOTHING
        RETURNING 1
      )
      SELECT count(*)::int AS stored FROM ins`);
    stored += result?.stored ?? 0;
  }
  // The day totals of the lines this event stored (found through the establishment's day index).
  const days = [...new Set(lines.map((l) => l.day))];
  await tx.$executeRaw(Prisma.sql`
    INSERT INTO sale_day_totals AS t (establishment_id, livemode, product_id, day, units, kg, lines, sold_out, sold_out_at)
    SELECT ${auth.establishmentId}::uuid, ${auth.livemode}, product_id, day,
      coalesce(sum(quantity) FILTER (WHERE unit = 'unit'), 0), coalesce(sum(quantity) FILTER (WHERE unit = 'kg'), 0), count(*)::int,
      bool_or(sold_out), min(sold_out_at)
    FROM sales
    WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode} AND day = ANY(${days}::date[])
      AND inbound_event_id = ${input.eventId}::uuid
    GROUP BY product_id, day ORDER BY product_id, day
    ON CONFLICT (establishment_id, livemode, product_id, day)
    DO UPDATE SET units = t.units + excluded.units, kg = t.kg + excluded.kg, lines = t.lines + excluded.lines,
      sold_out = t.sold_out OR excluded.sold_out,
      -- The earliest time it ran out (LEAST ignores a NULL).
      sold_out_at = LEAST(t.sold_out_at, excluded.sold_out_at)`);
  return { received: input.lines.length, stored, duplicates: lines.length - stored, errors };
}
