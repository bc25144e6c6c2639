#!/usr/bin/env node
// @ts-check
/**
 * Forwards a POS inventory-loss feed to Merma, one `inventory.loss` inbound event per loss line.
 *
 *   MERMA_API_KEY=svc_test_… node src/bridge.mjs fixtures/pos-losses.ndjson [--source tpv-centro] [--json]
 *
 * The feed is NDJSON (one JSON object per line) or a JSON array; `-` reads it from standard input.
 * Every line carries the POS's own id, sent as `external_id` with `source`: Merma stores an event
 * once per (source, external_id), so the same feed can be forwarded again and again (after a crash,
 * on a schedule, overlapping the last run) and lines already seen come back as `duplicate`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { APIError, Merma } from '@merma/sdk';

/**
 * @typedef {object} PosLoss one line of the feed, as the POS writes it
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
 * @typedef {object} LineResult
 * @property {number} line line of the feed (NDJSON) or position in the array (JSON), from 1
 * @property {string | null} external_id
 * @property {'processed' | 'duplicate' | 'failed'} status
 * @property {string | null} [record_id]
 * @property {string} [error]
 */

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
export const DEFAULT_SOURCE = 'pos-bridge';
const UNITS = ['kg', 'g', 'lb', 'oz'];

/** @param {unknown} value */
export function normalize(value) {
  return String(value)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

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
 * Maps one POS line to the standard `inventory.loss` payload, or says what is wrong with it.
 * @param {Record<string, unknown>} item
 * @param {string} source
 * @param {{ causa: (raw: string) => string | undefined, destino: (raw: string) => string | undefined }} resolve
 * @returns {{ payload: Record<string, unknown>, problems?: undefined } | { payload?: undefined, problems: string[] }}
 */
export function toLossPayload(item, source, resolve) {
  const problems = [];
  const str = (/** @type {unknown} */ v) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');
  const id = str(item.id);
  if (!id) problems.push('id is missing');
  const ean = str(item.ean);
  const productId = str(item.product_id);
  if (!ean && !productId) problems.push('ean or product_id is required');
  const qty =
    typeof item.qty === 'number' ? item.qty : /^\d+([.,]\d+)?$/.test(str(item.qty)) ? Number(str(item.qty).replace(',', '.')) : NaN;
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
      ...(unit === 'kg' ? { quantity_kg: qty } : { quantity: qty, unit }),
      ...(str(item.reason) ? { reason: str(item.reason) } : {}),
      ...(str(item.at) ? { occurred_at: str(item.at) } : {}),
      ...(causaId ? { causa_id: causaId } : {}),
      ...(destinoId ? { destino_id: destinoId } : {}),
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

/**
 * Forwards every line of the feed, in order, one request at a time (the POS's order is the
 * records' order in the chain).
 * @param {object} options
 * @param {string} options.feed the feed's text
 * @param {Merma} options.merma
 * @param {string} [options.source] names the POS in Merma; with external_id it is the resend key
 * @param {(result: LineResult) => void} [options.onLine]
 */
export async function forward({ feed, merma, source = DEFAULT_SOURCE, onLine = () => {} }) {
  const lines = readFeed(feed);
  const needsCatalog = lines.some(({ item }) => item && (item.cause !== undefined || item.destination !== undefined));
  const [causas, destinos] = needsCatalog ? await Promise.all([merma.causas.list(), merma.destinos.list()]) : [[], []];
  const resolve = { causa: catalogResolver(causas), destino: catalogResolver(destinos) };

  /** @type {LineResult[]} */
  const results = [];
  for (const { line, item, error } of lines) {
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
  const count = (/** @type {LineResult['status']} */ s) => results.filter((r) => r.status === s).length;
  return { source, lines: results.length, processed: count('processed'), duplicate: count('duplicate'), failed: count('failed'), results };
}

/** @param {LineResult} r */
export function formatLine(r) {
  const what = r.status === 'failed' ? `failed: ${r.error}` : `${r.status} → record ${r.record_id}`;
  return `line ${r.line} ${r.external_id ?? '(no id)'}: ${what}`;
}

const USAGE = `usage: node src/bridge.mjs <feed.ndjson|feed.json|-> [--source NAME] [--json]
  --source        names the POS in Merma (default: MERMA_SOURCE, else ${DEFAULT_SOURCE}); keep it stable,
                  it is half of the resend key
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
      options: { source: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    process.stderr.write(`${/** @type {Error} */ (err).message}\n${USAGE}\n`);
    return 1;
  }
  const [file, ...extra] = args.positionals;
  if (args.values.help || !file || extra.length) {
    process.stderr.write(`${USAGE}\n`);
    return args.values.help ? 0 : 1;
  }
  try {
    const merma = new Merma({ apiKey: process.env.MERMA_API_KEY, baseUrl: process.env.MERMA_BASE_URL || DEFAULT_BASE_URL });
    const feed = file === '-' ? await text(process.stdin) : await readFile(file, 'utf8');
    const json = Boolean(args.values.json);
    const summary = await forward({
      feed,
      merma,
      source: args.values.source || process.env.MERMA_SOURCE || DEFAULT_SOURCE,
      onLine: (r) => {
        if (!json) process.stdout.write(`${formatLine(r)}\n`);
      },
    });
    process.stdout.write(
      json
        ? `${JSON.stringify(summary, null, 2)}\n`
        : `${summary.lines} lines from ${summary.source}: ${summary.processed} processed, ${summary.duplicate} duplicate, ${summary.failed} failed\n`,
    );
    return summary.failed > 0 ? 2 : 0;
  } catch (err) {
    process.stderr.write(`bridge failed: ${describe(err)}\n`);
    return 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
