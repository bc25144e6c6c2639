import { randomUUID } from 'node:crypto';
import {
  type CreateProductParsed,
  type DetailCode,
  type ErrorDetail,
  FOOD_CATEGORIES,
  type FoodCategory,
  type ImportProductsResult,
  isValidGtin,
  type Product,
  productPriceProblems,
  type UpdateProductInput,
} from '@merma/schema';
import { parse } from 'csv-parse/sync';
import type { DbTx } from '../../db/client.js';
import { AppError, validationError } from '../../errors.js';

/**
 * The organisation's product catalogue, managed by its customers (`/api/v1/products`, the
 * dashboard's products page) and by the operator (`merma-admin product import`), through the same
 * checks: a valid EAN/GTIN unique in the organisation, a POS reference unique too, prices that
 * make sense together (`productPriceProblems`). A product is deactivated, never deleted: sales name it.
 */

type ProductRow = {
  id: string;
  name: string;
  food_category: string;
  ean: string;
  pos_ref: string | null;
  unit_weight_kg: unknown;
  density_kg_per_l: unknown;
  price: unknown;
  unit_cost: unknown;
  salvage_value: unknown;
  deactivated_at: Date | null;
};

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export const toProduct = (r: ProductRow): Product => ({
  id: r.id,
  name: r.name,
  food_category: r.food_category as FoodCategory,
  ean: r.ean,
  pos_ref: r.pos_ref,
  unit_weight_kg: num(r.unit_weight_kg),
  density_kg_per_l: num(r.density_kg_per_l),
  price: num(r.price),
  unit_cost: num(r.unit_cost),
  salvage_value: num(r.salvage_value),
  active: r.deactivated_at === null,
});

/** The catalogue, by name; deactivated products only when asked for. */
export async function listProducts(db: DbTx, organizationId: string, options: { includeInactive?: boolean } = {}): Promise<Product[]> {
  const rows = await db.product.findMany({
    where: { organization_id: organizationId, ...(options.includeInactive ? {} : { deactivated_at: null }) },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
  });
  return rows.map(toProduct);
}

async function findProduct(db: DbTx, organizationId: string, id: string) {
  const row = await db.product.findFirst({ where: { id, organization_id: organizationId } });
  if (!row) throw new AppError('not_found', `No product ${id} in this organisation`);
  return row;
}

/** A unique violation (EAN or POS reference taken by another product) as the 409 it is. */
function conflictOf(err: unknown, input: { ean?: string | undefined; pos_ref?: string | null | undefined }): never {
  const target = String((err as { meta?: { target?: unknown; driverAdapterError?: unknown } }).meta?.target ?? '') + String(err);
  if ((err as { code?: string }).code === 'P2002') {
    if (target.includes('pos_ref')) throw new AppError('conflict', `Another product of this organisation has pos_ref ${input.pos_ref}`);
    throw new AppError('conflict', `Another product of this organisation has the EAN ${input.ean}`);
  }
  throw err;
}

/** `p` as the procedure's input schema parsed it (names trimmed, prices checked): not parsed again here. */
export async function createProduct(db: DbTx, organizationId: string, p: CreateProductParsed): Promise<Product> {
  try {
    const row = await db.product.create({
      data: {
        id: randomUUID(),
        organization_id: organizationId,
        name: p.name,
        food_category: p.food_category,
        ean: p.ean,
        pos_ref: p.pos_ref ?? null,
        unit_weight_kg: p.unit_weight_kg ?? null,
        density_kg_per_l: p.density_kg_per_l ?? null,
        price: p.price ?? null,
        unit_cost: p.unit_cost ?? null,
        salvage_value: p.salvage_value ?? null,
      },
    });
    return toProduct(row);
  } catch (err) {
    conflictOf(err, p);
  }
}

/**
 * Changes the fields sent (null clears an optional one); the prices are checked together with the
 * ones kept. Returns the product before and after (for the audit log).
 */
export async function updateProduct(
  db: DbTx,
  organizationId: string,
  input: UpdateProductInput,
  now: Date,
): Promise<{ before: Product; after: Product }> {
  const row = await findProduct(db, organizationId, input.id);
  const before = toProduct(row);
  const { id: _id, active, ...changes } = input;
  const merged = { ...before, ...changes };
  const problems = productPriceProblems(merged);
  if (problems.length) throw validationError(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
  // Deactivated from now, or back; what is already so keeps its date.
  const activity = active === undefined || active === before.active ? {} : { deactivated_at: active ? null : now };
  try {
    const updated = await db.product.update({ where: { id: row.id }, data: { ...changes, ...activity } });
    return { before, after: toProduct(updated) };
  } catch (err) {
    conflictOf(err, merged);
  }
}

type ParsedProduct = ImportProductsResult['products'][number]['product'] & { line: number };

/** One problem of a CSV: its English sentence, and its code and values for clients that word it themselves. */
const problem = (message: string, code: DetailCode, params?: ErrorDetail['params']): ErrorDetail => ({
  path: 'csv',
  message,
  code,
  ...(params ? { params } : {}),
});

/**
 * Reads a product CSV: header `name,food_category,ean`, optionally `pos_ref`, `unit_weight_kg`,
 * `density_kg_per_l`, `price`, `unit_cost`, `salvage_value`; `,` or `;` separated (the header's); a decimal comma read
 * as a point. Every problem is returned with its line, none is thrown.
 */
export function parseProductCsv(csv: string): { products: ParsedProduct[]; problems: ErrorDetail[] } {
  // One delimiter for the whole file, the header's: a `;` file may have commas inside names.
  const header = csv.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  let rows: { record: Record<string, string>; info: { lines: number } }[];
  // The header's column names as read (trimmed, lower case): a required column is one of them, not a
  // part of one (`product_name` is not `name`).
  let columns: string[] = [];
  try {
    rows = parse(csv, {
      columns: (names: string[]) => {
        columns = names.map((h) => h.trim().toLowerCase());
        return columns;
      },
      delimiter: header.includes(';') ? ';' : ',',
      skip_empty_lines: true,
      trim: true,
      bom: true,
      info: true,
    });
  } catch (err) {
    return { products: [], problems: [problem(`the CSV cannot be read: ${(err as Error).message}`, 'csv_unreadable')] };
  }
  const problems: ErrorDetail[] = [];
  const missing = ['name', 'food_category', 'ean'].filter((c) => !columns.includes(c));
  if (missing.length) {
    problems.push(
      problem(`the header lacks ${missing.join(', ')} (expected name,food_category,ean)`, 'csv_header', { columns: missing.join(', ') }),
    );
  }
  const seen = new Map<string, number>();
  const seenRefs = new Map<string, number>();
  const products = rows.map(({ record: row, info }) => {
    const line = info.lines; // the file's line (blank lines are skipped, not renumbered)
    const name = row.name ?? '';
    const category = row.food_category ?? '';
    const ean = row.ean ?? '';
    const at = { line, field: 'name' };
    if (!name) problems.push(problem(`line ${line}: name is empty`, 'required', at));
    if (name.length > 200) problems.push(problem(`line ${line}: name is longer than 200 characters`, 'too_long', { ...at, max: 200 }));
    if (!(FOOD_CATEGORIES as readonly string[]).includes(category)) {
      problems.push(
        problem(`line ${line}: food_category "${category}" is not one of ${FOOD_CATEGORIES.join(', ')}`, 'not_one_of', {
          line,
          field: 'food_category',
          value: category,
        }),
      );
    }
    const eanAt = { line, field: 'ean', value: ean };
    if (!isValidGtin(ean)) problems.push(problem(`line ${line}: ean "${ean}" is not a valid EAN/GTIN`, 'invalid_gtin', eanAt));
    const first = seen.get(ean);
    if (first !== undefined)
      problems.push(problem(`line ${line}: ean ${ean} repeats line ${first}`, 'repeated', { ...eanAt, first_line: first }));
    seen.set(ean, line);
    const posRef = row.pos_ref || null;
    const firstRef = posRef ? seenRefs.get(posRef) : undefined;
    if (posRef && firstRef !== undefined) {
      problems.push(
        problem(`line ${line}: pos_ref ${posRef} repeats line ${firstRef}`, 'repeated', {
          line,
          field: 'pos_ref',
          value: posRef,
          first_line: firstRef,
        }),
      );
    }
    if (posRef) seenRefs.set(posRef, line);
    const rawWeight = (row.unit_weight_kg ?? '').replace(',', '.');
    const unitWeight = rawWeight === '' ? null : Number(rawWeight);
    if (unitWeight !== null && !(Number.isFinite(unitWeight) && unitWeight > 0 && unitWeight <= 1000)) {
      problems.push(
        problem(`line ${line}: unit_weight_kg "${row.unit_weight_kg}" is not a weight in kg`, 'not_a_number', {
          line,
          field: 'unit_weight_kg',
          value: row.unit_weight_kg ?? '',
        }),
      );
    }
    const rawDensity = (row.density_kg_per_l ?? '').replace(',', '.');
    const density = rawDensity === '' ? null : Number(rawDensity);
    if (density !== null && !(Number.isFinite(density) && density > 0 && density <= 1000)) {
      problems.push(
        problem(`line ${line}: density_kg_per_l "${row.density_kg_per_l}" is not a density in kg per litre (above 0)`, 'not_a_number', {
          line,
          field: 'density_kg_per_l',
          value: row.density_kg_per_l ?? '',
        }),
      );
    }
    const money = (column: 'price' | 'unit_cost' | 'salvage_value') => {
      const raw = (row[column] ?? '').replace(',', '.');
      if (raw === '') return null;
      const value = Number(raw);
      if (Number.isFinite(value) && value >= 0 && value < 100_000_000) return value;
      problems.push(
        problem(`line ${line}: ${column} "${row[column]}" is not an amount in euros (0 or more)`, 'not_a_number', {
          line,
          field: column,
          value: row[column] ?? '',
        }),
      );
      return null;
    };
    const product = {
      line,
      name,
      food_category: category as FoodCategory,
      ean,
      pos_ref: posRef,
      unit_weight_kg: unitWeight !== null && Number.isFinite(unitWeight) ? unitWeight : null,
      density_kg_per_l: density !== null && Number.isFinite(density) && density > 0 ? Math.round(density * 10000) / 10000 : null,
      price: money('price'),
      unit_cost: money('unit_cost'),
      salvage_value: money('salvage_value'),
    };
    for (const p of productPriceProblems(product)) {
      problems.push(
        problem(`line ${line}: ${p.path} ${p.message}`, 'above', {
          line,
          field: p.path,
          other: p.path === 'unit_cost' ? 'price' : 'unit_cost',
        }),
      );
    }
    return product;
  });
  if (rows.length === 0 && missing.length === 0) {
    problems.push(problem('the file has no product rows (expected a header name,food_category,ean)', 'csv_empty'));
  }
  return { products, problems };
}

/**
 * Imports a product CSV (`parseProductCsv`) into the organisation: products matched by EAN, a known
 * one updated (and reactivated), a new one created, all in one transaction. Any problem: a 400
 * listing each by line, nothing written. `dryRun`: the same answer, nothing written.
 */
export async function importProductCsv(
  db: DbTx,
  organizationId: string,
  input: { csv: string; dryRun: boolean },
): Promise<ImportProductsResult> {
  const { products, problems } = parseProductCsv(input.csv);
  if (problems.length === 0) {
    // A POS reference another product of the organisation (not one of this file's EANs) already has.
    const refs = products.flatMap((p) => (p.pos_ref ? [p.pos_ref] : []));
    const taken = await db.product.findMany({
      where: { organization_id: organizationId, pos_ref: { in: refs } },
      select: { ean: true, pos_ref: true },
    });
    for (const p of products) {
      const other = taken.find((t) => t.pos_ref === p.pos_ref && t.ean !== p.ean);
      if (other) {
        problems.push(
          problem(`line ${p.line}: pos_ref ${p.pos_ref} belongs to the product with EAN ${other.ean}`, 'taken', {
            line: p.line,
            field: 'pos_ref',
            value: p.pos_ref ?? '',
            ean: other.ean,
          }),
        );
      }
    }
  }
  if (problems.length) {
    throw validationError(`Nothing imported. ${problems.map((p) => p.message).join('; ')}`, problems);
  }
  const existing = new Set(
    (
      await db.product.findMany({
        where: { organization_id: organizationId, ean: { in: products.map((p) => p.ean) } },
        select: { ean: true },
      })
    ).map((p) => p.ean),
  );
  const result: ImportProductsResult = {
    dry_run: input.dryRun,
    created: products.filter((p) => !existing.has(p.ean)).length,
    updated: products.filter((p) => existing.has(p.ean)).length,
    products: products.map(({ line, ...product }) => ({ line, action: existing.has(product.ean) ? 'update' : 'create', product })),
  };
  if (input.dryRun) return result;
  // One statement: every line inserted, or updated (and reactivated) when its EAN is known.
  await db.$executeRawUnsafe(
    `INSERT INTO products (id, organization_id, name, food_category, ean, pos_ref, unit_weight_kg, density_kg_per_l, price, unit_cost,
       salvage_value)
     SELECT gen_random_uuid(), $1::uuid, r.name, r.food_category, r.ean, r.pos_ref, r.unit_weight_kg, r.density_kg_per_l, r.price,
       r.unit_cost, r.salvage_value
     FROM json_to_recordset($2::json) AS r(name text, food_category text, ean text, pos_ref text, unit_weight_kg numeric,
       density_kg_per_l numeric, price numeric, unit_cost numeric, salvage_value numeric)
     ON CONFLICT (organization_id, ean) DO UPDATE SET name = excluded.name, food_category = excluded.food_category,
       pos_ref = excluded.pos_ref, unit_weight_kg = excluded.unit_weight_kg, density_kg_per_l = excluded.density_kg_per_l, price = excluded.price, unit_cost = excluded.unit_cost,
       salvage_value = excluded.salvage_value, deactivated_at = NULL`,
    organizationId,
    JSON.stringify(products.map(({ line: _line, ...p }) => p)),
  );
  return result;
}
