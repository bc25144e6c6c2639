#!/usr/bin/env node
// @ts-check
/**
 * Forwards a POS feed to Merma: each loss line as an `inventory.loss` inbound event, the sale lines
 * in batches of up to 2000 (`merma.inbound.sales`, the input of the demand forecast); `--advice`
 * then prints how much of each product to prepare tomorrow (`merma.predict.demand`).
 *
 *   MERMA_API_KEY=svc_test_… node src/bridge.mjs fixtures/pos-losses.ndjson [--source tpv-centro] [--json]
 *   MERMA_API_KEY=svc_test_… node src/bridge.mjs fixtures/pos-sales.ndjson --source tpv-centro --advice
 *
 * The feed is NDJSON (one JSON object per line) or a JSON array; `-` reads it from standard input.
 * A line with `"type": "sale"` is a sale, any other a loss. Every line carries the POS's own id (a
 * loss's `id`; a sale's `ticket` and `line`), sent as `external_id` with `source`: Merma stores a
 * loss or a sale once per (source, external_id), so the same feed can be forwarded again and again
 * (after a crash, on a schedule, overlapping the last run) and lines already seen come back as
 * duplicates.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { APIError, BadRequestError, Merma } from '@merma/sdk';

/**
 * @typedef {object} PosLoss a loss line of the feed, as the POS writes it
 * @property {string} id the loss line's id in the POS: unique per source, sent as external_id
 * @property {string} [ean] the product's EAN/GTIN (8 to 14 digits), as in the Merma product catalogue
 * @property {string} [product_id] or the product's Merma id (GET /api/v1/products)
 * @property {number | string} qty the quantity lost; a string may use a decimal comma ("0,75")
 * @property {'kg' | 'g' | 'lb' | 'oz'} [unit] of `qty` (default kg)
 * @property {string} [reason] free text from the till, kept in the record's notes
 * @property {string} [cause] a cause name or id (GET /api/v1/causas), case- and accent-insensitive
 * @property {string} [destination] a destination name, code or id (GET /api/v1/destinos); disposal when absent
 * @property {string} [at] when it happened: YYYY-MM-DD or an ISO date-time with offset
 */
/**
 * @typedef {object} PosSale a sale line of the feed, as the POS writes it
 * @property {'sale'} type
 * @property {string | number} ticket the ticket (or Z report) in the POS
 * @property {string | number} line the line within the ticket: `<ticket>/<line>` is sent as external_id
 * @property {string} [sku] the product's id in the POS, its `pos_ref` in the Merma product catalogue
 * @property {string} [ean] or the product's EAN/GTIN
 * @property {string} [product_id] or the product's Merma id
 * @property {number | string} qty the quantity sold; a string may use a decimal comma ("1,25")
 * @property {'unit' | 'kg' | 'g' | 'lb' | 'oz'} [unit] of `qty` (default unit: counted)
 * @property {string} at when it was sold: an ISO date-time with offset, or YYYY-MM-DD for a day's total
 */
/** @typedef {import('@merma/sdk').SaleLine} SaleLine */
/**
 * @typedef {object} LineResult
 * @property {number} line line of the feed (NDJSON) or position in the array (JSON), from 1
 * @property {string | null} external_id
 * @property {'processed' | 'duplicate' | 'failed'} status
 * @property {string | null} [record_id]
 * @property {string} [error]
 */
/**
 * @typedef {object} SalesBatch one `inbound.sales` call
 * @property {number} batch from 1
 * @property {number} first_line the feed's line of its first sale
 * @property {number} last_line the feed's line of its last sale
 * @property {number} sent sale lines sent
 * @property {string | null} event_id
 * @property {number} stored new sale lines stored
 * @property {number} duplicate lines this source had sent before: not stored again
 * @property {number} failed lines the API refused, or all of them when the call failed as a whole
 */
/**
 * @typedef {object} AdviceRow tomorrow's advice for one product
 * @property {string} product_id
 * @property {string} product_name
 * @property {'unit' | 'kg'} unit
 * @property {string | null} date tomorrow, in the establishment's time zone
 * @property {number | null} expected the expected sales
 * @property {number | null} advised the quantity to prepare
 * @property {number | null} avoided_kg the waste this advice would have avoided over the last 4 weeks
 * @property {number | null} avoided_pct the same as a share of the waste recorded
 * @property {number} short_days days of the last 4 weeks on which it would not have covered the sales
 * @property {{ code: string, message: string }[]} notes why the forecast is simpler or the advice incomplete (short history, no waste to compare with …)
 */

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
export const DEFAULT_SOURCE = 'pos-bridge';
/** The most sale lines one `inbound.sales` call takes. */
export const SALES_PER_CALL = 2000;
const UNITS = ['kg', 'g', 'lb', 'oz'];
const SALE_UNITS = ['unit', ...UNITS];
const WHEN = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** @param {unknown} value */
export function normalize(value) {
  return String(value)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

/** A field as trimmed text: '' when absent or not a string or number. @param {unknown} v */
const str = (v) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/** A quantity: a number, or a string with a decimal point or comma ("0,75"); NaN otherwise. @param {unknown} v */
const quantityOf = (v) => (typeof v === 'number' ? v : /^\d+([.,]\d+)?$/.test(str(v)) ? Number(str(v).replace(',', '.')) : NaN);

/**
 * Finds a catalogue entry by id, code, full name or a unique start of its name, ignoring case and
 * accents.
 * @param {{ id: string, nombre: string, code?: string }[]} entries
 * @returns {(raw: string) => string | undefined}
 */
export function catalogResolver(entries) {
  const exact = new Map();
  for (const e of entries) {
    exact.set(e.id.toLowerCase(), e.id);
    exact.set(normalize(e.nombre), e.id);
    if (e.code) exact.set(normalize(e.code), e.id);
  }
  return (raw) => {
    const key = /^[0-9a-f-]{36}$/i.test(raw.trim()) ? raw.trim().toLowerCase() : normalize(raw);
    if (!key) return undefined;
    const found = exact.get(key);
    if (found) return found;
    const starts = entries.filter((e) => `${normalize(e.nombre)} `.startsWith(`${key} `));
    return starts.length === 1 ? starts[0]?.id : undefined;
  };
}

/**
 * Splits the feed into items with their line (NDJSON) or position (JSON array). Lines that are not
 * JSON objects come back with an `error`.
 * @param {string} feed
 * @returns {{ line: number, item?: Record<string, unknown>, error?: string }[]}
 */
export function readFeed(feed) {
  const body = feed.replace(/^\uFEFF/, '');
  const isObject = (/** @type {unknown} */ v) => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (body.trimStart().startsWith('[')) {
    const items = JSON.parse(body);
    if (!Array.isArray(items)) throw new Error('The feed is not a JSON array');
    return items.map((item, i) => (isObject(item) ? { line: i + 1, item } : { line: i + 1, error: 'not a JSON object' }));
  }
  return body.split(/\r?\n/).flatMap((raw, i) => {
    if (!raw.trim()) return [];
    try {
      const item = JSON.parse(raw);
      return [isObject(item) ? { line: i + 1, item } : { line: i + 1, error: 'not a JSON object' }];
    } catch {
      return [{ line: i + 1, error: 'not valid JSON' }];
    }
  });
}

/**
 * Maps one POS loss line to the standard `inventory.loss` payload, or says what is wrong with it.
 * @param {Record<string, unknown>} item
 * @param {string} source
 * @param {{ causa: (raw: string) => string | undefined, destino: (raw: string) => string | undefined }} resolve
 * @returns {{ payload: import('@merma/sdk').InventoryLossPayload, problems?: undefined } | { payload?: undefined, problems: string[] }}
 */
export function toLossPayload(item, source, resolve) {
  const problems = [];
  const id = str(item.id);
  if (!id) problems.push('id is missing');
  if (item.type !== undefined && item.type !== 'loss') problems.push(`type ${JSON.stringify(item.type)} is not "loss" or "sale"`);
  const ean = str(item.ean);
  const productId = str(item.product_id);
  if (!ean && !productId) problems.push('ean or product_id is required');
  const qty = quantityOf(item.qty);
  if (!(qty > 0)) problems.push(item.qty === undefined ? 'qty is missing' : `qty ${JSON.stringify(item.qty)} is not a quantity > 0`);
  const unit = str(item.unit).toLowerCase() || 'kg';
  if (!UNITS.includes(unit)) problems.push(`unit "${unit}" is not one of ${UNITS.join(', ')}`);
  const causaId = str(item.cause) ? resolve.causa(str(item.cause)) : null;
  if (causaId === undefined) problems.push(`cause "${str(item.cause)}" is unknown (see GET /api/v1/causas)`);
  const destinoId = str(item.destination) ? resolve.destino(str(item.destination)) : null;
  if (destinoId === undefined) problems.push(`destination "${str(item.destination)}" is unknown (see GET /api/v1/destinos)`);
  if (problems.length) return { problems };
  return {
    payload: {
      source,
      external_id: id,
      ...(productId ? { product_id: productId } : { ean }),
      // `unit` is one of UNITS (checked above), the units the API counts a loss in.
      ...(unit === 'kg'
        ? { quantity_kg: qty }
        : { quantity: qty, unit: /** @type {import('@merma/sdk').InventoryLossPayload['unit']} */ (unit) }),
      ...(str(item.reason) ? { reason: str(item.reason) } : {}),
      ...(str(item.at) ? { occurred_at: str(item.at) } : {}),
      ...(causaId ? { causa_id: causaId } : {}),
      ...(destinoId ? { destino_id: destinoId } : {}),
    },
  };
}

/** A sale line's external id, `<ticket>/<line>`, or null when either is missing. @param {Record<string, unknown>} item */
export function saleId(item) {
  return str(item.ticket) && str(item.line) ? `${str(item.ticket)}/${str(item.line)}` : null;
}

/**
 * Maps one POS sale line to a `SaleLine` of `inbound.sales`, or says what is wrong with it.
 * @param {Record<string, unknown>} item
 * @returns {{ sale: SaleLine, problems?: undefined } | { sale?: undefined, problems: string[] }}
 */
export function toSaleLine(item) {
  const problems = [];
  if (!str(item.ticket)) problems.push('ticket is missing');
  if (!str(item.line)) problems.push('line is missing');
  const productId = str(item.product_id);
  const ean = str(item.ean);
  const sku = str(item.sku);
  if (!productId && !ean && !sku) problems.push('sku, ean or product_id is required');
  const qty = quantityOf(item.qty);
  if (!(qty > 0)) problems.push(item.qty === undefined ? 'qty is missing' : `qty ${JSON.stringify(item.qty)} is not a quantity > 0`);
  const unit = str(item.unit).toLowerCase() || 'unit';
  if (!SALE_UNITS.includes(unit)) problems.push(`unit "${unit}" is not one of ${SALE_UNITS.join(', ')}`);
  const at = str(item.at);
  if (!at) problems.push('at is missing');
  else if (!WHEN.test(at)) problems.push(`at "${at}" is not YYYY-MM-DD or an ISO date-time with offset`);
  const externalId = saleId(item);
  if (problems.length || !externalId) return { problems };
  return {
    sale: {
      external_id: externalId,
      ...(productId ? { product_id: productId } : ean ? { ean } : { product_ref: sku }),
      quantity: qty,
      ...(unit === 'unit' ? {} : { unit: /** @type {SaleLine['unit']} */ (unit) }),
      sold_at: at,
    },
  };
}

/** @param {unknown} err */
function describe(err) {
  if (err instanceof APIError) {
    const details = (err.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ');
    return `${err.status} ${err.message}${details ? ` (${details})` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The API's names of a sale line's fields, as the feed calls them. */
const FEED_FIELD = /** @type {Record<string, string>} */ ({
  product_ref: 'sku',
  quantity: 'qty',
  sold_at: 'at',
  external_id: 'ticket/line',
});

/**
 * What the API said about each line of a sales call, by the line's index in the call:
 * `payload.sales.3.sold_at: may be at most 400 days back` → 3 → `at: may be at most 400 days back`.
 * @param {{ path: string, message: string }[]} details
 */
function problemsByIndex(details) {
  /** @type {Map<number, string[]>} */
  const byIndex = new Map();
  for (const { path: where, message } of details) {
    const match = /^payload\.sales\.(\d+)(?:\.(\w+))?/.exec(where);
    if (!match) continue;
    const field = match[2] ? (FEED_FIELD[match[2]] ?? match[2]) : '';
    const index = Number(match[1]);
    byIndex.set(index, [...(byIndex.get(index) ?? []), field ? `${field}: ${message}` : message]);
  }
  return new Map([...byIndex].map(([index, problems]) => [index, problems.join('; ')]));
}

/**
 * Sends the sales in calls of up to `SALES_PER_CALL` lines, in the feed's order. The API stores the
 * lines it can use and lists the others by index (their feed line is reported as failed); a call
 * in which no line is usable is refused as a whole (400), each line's problem named in `details`.
 * @param {object} options
 * @param {{ line: number, external_id: string, sale: SaleLine }[]} options.sales
 * @param {Merma} options.merma
 * @param {string} options.source
 * @param {(batch: SalesBatch, failed: LineResult[]) => void} options.onBatch
 */
async function sendSales({ sales, merma, source, onBatch }) {
  /** @type {SalesBatch[]} */
  const batches = [];
  for (let start = 0; start < sales.length; start += SALES_PER_CALL) {
    const chunk = sales.slice(start, start + SALES_PER_CALL);
    /** @type {SalesBatch} */
    const batch = {
      batch: batches.length + 1,
      first_line: chunk[0]?.line ?? 0,
      last_line: chunk.at(-1)?.line ?? 0,
      sent: chunk.length,
      event_id: null,
      stored: 0,
      duplicate: 0,
      failed: 0,
    };
    /** What is wrong with each line the API refused, by its index in the call. @type {Map<number, string>} */
    const problems = new Map();
    try {
      const answer = await merma.inbound.sales({ source, sales: chunk.map((s) => s.sale) });
      batch.event_id = answer.event_id;
      batch.stored = answer.sales?.stored ?? 0;
      batch.duplicate = answer.sales?.duplicates ?? 0;
      for (const e of answer.sales?.errors ?? []) {
        problems.set(e.index, problemsByIndex(e.details ?? []).get(e.index) ?? e.error.replace(/payload\.sales\.\d+\./g, ''));
      }
    } catch (err) {
      // No line usable: a 400 naming each line's problems. Anything else fails every line of the call.
      const named = err instanceof BadRequestError ? problemsByIndex(err.details ?? []) : new Map();
      chunk.forEach((_, i) => {
        problems.set(i, named.get(i) ?? describe(err));
      });
    }
    /** @type {LineResult[]} */
    const failed = [...problems].flatMap(([index, error]) => {
      const s = chunk[index];
      return s ? [{ line: s.line, external_id: s.external_id, status: /** @type {const} */ ('failed'), error }] : [];
    });
    batch.failed = failed.length;
    batches.push(batch);
    onBatch(batch, failed);
  }
  return batches;
}

/**
 * Forwards the feed: every loss line in order, one request at a time (the POS's order is the
 * records' order in the chain), then the sale lines in batches of up to 2000.
 * @param {object} options
 * @param {string} options.feed the feed's text
 * @param {Merma} options.merma
 * @param {string} [options.source] names the POS in Merma; with external_id it is the resend key
 * @param {(result: LineResult) => void} [options.onLine] each loss line's result, and each sale line that failed
 * @param {(batch: SalesBatch) => void} [options.onBatch] each sales call, after the failures of its lines
 */
export async function forward({ feed, merma, source = DEFAULT_SOURCE, onLine = () => {}, onBatch = () => {} }) {
  const all = readFeed(feed);
  const saleLines = all.filter(({ item }) => item?.type === 'sale');
  const lossLines = all.filter(({ item }) => item?.type !== 'sale');
  const needsCatalog = lossLines.some(({ item }) => item && (item.cause !== undefined || item.destination !== undefined));
  const [causas, destinos] = needsCatalog ? await Promise.all([merma.causas.list(), merma.destinos.list()]) : [[], []];
  const resolve = { causa: catalogResolver(causas), destino: catalogResolver(destinos) };

  /** @type {LineResult[]} */
  const results = [];
  for (const { line, item, error } of lossLines) {
    const externalId = typeof item?.id === 'string' ? item.id : null;
    /** @type {LineResult} */
    let result;
    const mapped = item ? toLossPayload(item, source, resolve) : { problems: [error ?? 'unreadable'] };
    if (!mapped.payload) {
      result = { line, external_id: externalId, status: 'failed', error: mapped.problems.join('; ') };
    } else {
      try {
        const answer = await merma.inbound.send({ event: 'inventory.loss', payload: mapped.payload });
        result = { line, external_id: externalId, status: answer.status, record_id: answer.record_id };
      } catch (err) {
        result = { line, external_id: externalId, status: 'failed', error: describe(err) };
      }
    }
    results.push(result);
    onLine(result);
  }

  // Sale lines: those the bridge cannot map fail here, the others go in batches. Failures are
  // reported in feed order, each batch's with it.
  /** @type {{ line: number, external_id: string, sale: SaleLine }[]} */
  const sales = [];
  /** @type {LineResult[]} */
  const invalid = [];
  for (const { line, item } of saleLines) {
    const mapped = toSaleLine(item ?? {});
    if (mapped.sale) sales.push({ line, external_id: mapped.sale.external_id ?? '', sale: mapped.sale });
    else invalid.push({ line, external_id: saleId(item ?? {}), status: 'failed', error: mapped.problems.join('; ') });
  }
  /** @type {LineResult[]} */
  const saleErrors = [];
  const report = (/** @type {LineResult[]} */ failed) => {
    for (const r of failed.sort((a, b) => a.line - b.line)) {
      saleErrors.push(r);
      onLine(r);
    }
  };
  const batches = await sendSales({
    sales,
    merma,
    source,
    onBatch: (batch, failed) => {
      const before = invalid.filter((r) => r.line <= batch.last_line);
      invalid.splice(0, before.length);
      report([...before, ...failed]);
      onBatch(batch);
    },
  });
  report(invalid);

  const count = (/** @type {LineResult['status']} */ s) => results.filter((r) => r.status === s).length;
  const sum = (/** @type {'stored' | 'duplicate'} */ k) => batches.reduce((a, b) => a + b[k], 0);
  return {
    source,
    lines: results.length,
    processed: count('processed'),
    duplicate: count('duplicate'),
    failed: count('failed'),
    results,
    sales: {
      lines: saleLines.length,
      stored: sum('stored'),
      duplicate: sum('duplicate'),
      failed: saleErrors.length,
      batches,
      errors: saleErrors,
    },
  };
}

/**
 * Tomorrow's production advice per product sold (`predict.demand`, horizon 1), most sold first.
 * @param {Merma} merma
 * @returns {Promise<AdviceRow[]>}
 */
export async function tomorrowsAdvice(merma) {
  const { products } = await merma.predict.demand({ horizon: 1 });
  return products.map((p) => {
    const tomorrow = p.points[0];
    return {
      product_id: p.product_id,
      product_name: p.product_name,
      unit: p.unit,
      date: tomorrow?.date ?? null,
      expected: tomorrow?.expected ?? null,
      advised: tomorrow?.advised ?? null,
      avoided_kg: p.advice.last_4_weeks.avoided_kg,
      avoided_pct: p.advice.last_4_weeks.avoided_pct,
      short_days: p.advice.last_4_weeks.short_days,
      notes: p.notes ?? [],
    };
  });
}

/**
 * The advice as a small table, the products' notes under it.
 * @param {AdviceRow[]} rows
 */
export function formatAdvice(rows) {
  if (rows.length === 0) return 'No production advice: no sales received in the last year.\n';
  const num = (/** @type {number | null} */ v, digits = 3) => (v === null ? '—' : String(Math.round(v * 10 ** digits) / 10 ** digits));
  const avoided = (/** @type {AdviceRow} */ r) =>
    r.avoided_kg === null ? '—' : `${num(r.avoided_kg)} kg${r.avoided_pct === null ? '' : ` (${r.avoided_pct} %)`}`;
  const table = [
    ['product', 'expected', 'advised', 'unit', 'waste avoided, last 4 weeks'],
    ...rows.map((r) => [r.product_name, num(r.expected, 1), num(r.advised), r.unit, avoided(r)]),
  ];
  const widths = table[0]?.map((_, c) => Math.max(...table.map((row) => row[c]?.length ?? 0))) ?? [];
  // Text left-aligned, numbers right-aligned.
  const lines = table.map((row) =>
    row
      .map((cell, c) => (c === 1 || c === 2 ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  const notes = rows.flatMap((r) => r.notes.map((n) => `  ${r.product_name}: ${n.message}`));
  return [`Production advice for ${rows[0]?.date ?? 'tomorrow'}:`, ...lines, ...notes, ''].join('\n');
}

/** @param {LineResult} r */
export function formatLine(r) {
  const what = r.status === 'failed' ? `failed: ${r.error}` : `${r.status} → record ${r.record_id}`;
  return `line ${r.line} ${r.external_id ?? '(no id)'}: ${what}`;
}

/** @param {SalesBatch} b */
export function formatBatch(b) {
  return `sales batch ${b.batch} (lines ${b.first_line}–${b.last_line}): ${b.sent} sent, ${b.stored} stored, ${b.duplicate} duplicate, ${b.failed} failed`;
}

const USAGE = `usage: node src/bridge.mjs <feed.ndjson|feed.json|-> [--source NAME] [--advice] [--json]
       node src/bridge.mjs --advice [--json]
  --source        names the POS in Merma (default: MERMA_SOURCE, else ${DEFAULT_SOURCE}); keep it stable,
                  it is half of the resend key
  --advice        then print tomorrow's production advice per product sold
  --json          print a JSON summary instead
  MERMA_API_KEY   the API key (required), e.g. the svc_test_ key printed by \`pnpm admin quickstart\`
  MERMA_BASE_URL  the API (default ${DEFAULT_BASE_URL})
exit status: 0 every line processed or duplicate, 2 some lines failed, 1 the bridge could not run`;

/** @param {string[]} argv */
export async function main(argv) {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        source: { type: 'string' },
        json: { type: 'boolean' },
        advice: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`${/** @type {Error} */ (err).message}\n${USAGE}\n`);
    return 1;
  }
  const [file, ...extra] = args.positionals;
  const json = Boolean(args.values.json);
  if (args.values.help || (!file && !args.values.advice) || extra.length) {
    process.stderr.write(`${USAGE}\n`);
    return args.values.help ? 0 : 1;
  }
  try {
    const merma = new Merma({ apiKey: process.env.MERMA_API_KEY, baseUrl: process.env.MERMA_BASE_URL || DEFAULT_BASE_URL });
    const out = (/** @type {string} */ s) => {
      if (!json) process.stdout.write(s);
    };
    /** @type {Record<string, unknown>} */
    let summary = {};
    let failed = 0;
    if (file) {
      const feed = file === '-' ? await text(process.stdin) : await readFile(file, 'utf8');
      const forwarded = await forward({
        feed,
        merma,
        source: args.values.source || process.env.MERMA_SOURCE || DEFAULT_SOURCE,
        onLine: (r) => out(`${formatLine(r)}\n`),
        onBatch: (b) => out(`${formatBatch(b)}\n`),
      });
      const { source, lines, processed, duplicate, sales } = forwarded;
      // A feed without sales reads as it always has; a mixed one says which lines are which.
      if (lines > 0 || sales.lines === 0) {
        out(
          `${lines} ${sales.lines ? 'loss lines' : 'lines'} from ${source}: ${processed} processed, ${duplicate} duplicate, ${forwarded.failed} failed\n`,
        );
      }
      if (sales.lines > 0) {
        out(`${sales.lines} sale lines from ${source}: ${sales.stored} stored, ${sales.duplicate} duplicate, ${sales.failed} failed\n`);
      }
      summary = forwarded;
      failed = forwarded.failed + sales.failed;
    }
    if (args.values.advice) {
      const advice = await tomorrowsAdvice(merma);
      out(`${file ? '\n' : ''}${formatAdvice(advice)}`);
      summary.advice = advice;
    }
    if (json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return failed > 0 ? 2 : 0;
  } catch (err) {
    process.stderr.write(`bridge failed: ${describe(err)}\n`);
    return 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
