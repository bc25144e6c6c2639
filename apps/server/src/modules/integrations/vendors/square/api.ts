/**
 * A small client for the two Square API calls the Square integration makes, over the global `fetch`
 * (no Square SDK at run time). Shapes follow Square's published OpenAPI document (Square-Version
 * below); the tests hold the client to it through a local Square API behind Stoplight Prism.
 *
 * Answers are returned as Square sends them (snake_case objects): mapping them to sales and waste is
 * the connectors' business. A 2xx is never turned into an error because of its shape; a missing list
 * is read as empty.
 *
 * Errors are one class, `SquareApiError`, that says whether trying again later can help:
 * 429 (with Retry-After, seconds or an HTTP date), 408, 5xx, network failures and timeouts are
 * retryable; 401/403 (bad, expired or revoked token, or a missing ORDERS_READ / INVENTORY_READ
 * permission) and other 4xx are not. The access token never appears in a message.
 */

/** The Square API version this client is written against (the one Square's OpenAPI document describes). */
export const SQUARE_VERSION = '2025-08-20';
/** BatchRetrieveOrders: "A maximum of 100 orders can be retrieved per request." */
export const SQUARE_BATCH_RETRIEVE_ORDERS_MAX = 100;
const DEFAULT_TIMEOUT_MS = 10_000;
/** A guard against a cursor that never ends (1000 pages of Square's default page size is far beyond one window). */
const MAX_PAGES = 1000;

export type SquareApiOptions = { baseUrl: string; accessToken: string; timeoutMs?: number; fetch?: typeof fetch; userAgent?: string };

export type SquareApi = {
  /** POST /v2/orders/batch-retrieve, in chunks of at most 100 ids; returns the raw Order JSON objects (snake_case, as Square sends them). Unknown ids are left out, as Square does. */
  batchRetrieveOrders(input: { locationId?: string; orderIds: string[] }): Promise<Record<string, unknown>[]>;
  /**
   * POST /v2/inventory/changes/batch-retrieve with types [ADJUSTMENT], states [WASTE],
   * catalog_object_ids, location_ids, updated_after; follows `cursor` through every page; returns
   * the raw InventoryChange objects whose adjustment's to_state is WASTE — the change, not only its
   * adjustment, since the unit the quantity is in (`measurement_unit`) is the change's.
   */
  wasteChanges(input: { catalogObjectIds: string[]; locationIds?: string[]; updatedAfter: string }): Promise<Record<string, unknown>[]>;
};

type SquareErrorEntry = { category?: string; code?: string; detail?: string; field?: string };

export class SquareApiError extends Error {
  /** The HTTP status Square answered, or null when there was no answer (network failure, timeout). */
  readonly status: number | null;
  /** Seconds to wait before trying again, from Retry-After, when Square sent one. */
  readonly retryAfterSeconds: number | null;
  /** Whether the same call may succeed later. */
  readonly retryable: boolean;
  /** Square's `errors[]` (category, code, detail, field), empty when the answer had none. */
  readonly errors: unknown[];

  constructor(
    message: string,
    options: { status: number | null; retryable: boolean; retryAfterSeconds?: number | null; errors?: unknown[]; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SquareApiError';
    this.status = options.status;
    this.retryable = options.retryable;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
    this.errors = options.errors ?? [];
  }
}

/**
 * Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110 §10.2.3); null when absent
 * or unreadable. Each of the three date formats RFC 9110 accepts begins with the day's name, which
 * keeps out what `Date.parse` alone would read as a date ("-5" as the year 5 BC, so "now").
 * All three are GMT.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(text)) return null;
  // asctime's form names no zone, and is GMT: not the server's local time.
  const at = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

const describeErrors = (errors: SquareErrorEntry[]) =>
  errors
    .map((e) => [e.code, e.detail, e.field ? `(field ${e.field})` : undefined].filter(Boolean).join(': '))
    .filter(Boolean)
    .join('; ');

export function squareApi(options: SquareApiOptions): SquareApi {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = {
    Authorization: `Bearer ${options.accessToken}`,
    'Square-Version': SQUARE_VERSION,
    'Content-Type': 'application/json',
    Accept: 'application/json',
    ...(options.userAgent ? { 'User-Agent': options.userAgent } : {}),
  };
  // Square does not echo tokens, but a proxy's error page might: never let one into a message.
  const redact = (text: string) => (options.accessToken ? text.replaceAll(options.accessToken, '[access token]') : text);

  async function post(operation: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    let status: number | null = null;
    let text: string;
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const name = (error as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new SquareApiError(`Square did not answer within ${timeoutMs} ms (${operation})`, { status, retryable: true, cause: error });
      }
      const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
      const reason = cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
      throw new SquareApiError(redact(`Could not reach Square (${operation}): ${reason}`), { status, retryable: true, cause: error });
    }

    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = undefined;
    }
    if (response.ok) {
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
      // A 2xx that is not a JSON object came from something between us and Square; it may pass.
      throw new SquareApiError(redact(`Square's answer to ${operation} was not JSON: ${text.slice(0, 200)}`), { status, retryable: true });
    }

    const rawErrors = (parsed as { errors?: unknown })?.errors;
    const errors = Array.isArray(rawErrors) ? (rawErrors as SquareErrorEntry[]) : [];
    const detail = describeErrors(errors) || text.slice(0, 500).trim() || response.statusText || 'no detail';
    const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
    const s = response.status;
    if (s === 401 || s === 403) {
      throw new SquareApiError(
        redact(
          `Square refused the access token: ${detail}. Reconnect the Square account (the token may be expired or revoked) and make sure it grants ORDERS_READ and INVENTORY_READ.`,
        ),
        { status: s, retryable: false, errors },
      );
    }
    if (s === 429) {
      throw new SquareApiError(redact(`Square is limiting the rate of requests (${operation}): ${detail}`), {
        status: s,
        retryable: true,
        retryAfterSeconds,
        errors,
      });
    }
    if (s >= 500 || s === 408) {
      throw new SquareApiError(redact(`Square answered ${s} to ${operation}: ${detail}`), {
        status: s,
        retryable: true,
        retryAfterSeconds,
        errors,
      });
    }
    throw new SquareApiError(redact(`Square refused ${operation} (${s}): ${detail}`), { status: s, retryable: false, errors });
  }

  const list = (value: unknown) => (Array.isArray(value) ? (value as Record<string, unknown>[]) : []);

  return {
    async batchRetrieveOrders({ locationId, orderIds }) {
      const ids = [...new Set(orderIds)];
      const orders: Record<string, unknown>[] = [];
      // One chunk at a time: a job's fetch is not urgent, and Square's rate limit is per seller.
      for (let i = 0; i < ids.length; i += SQUARE_BATCH_RETRIEVE_ORDERS_MAX) {
        const body = { ...(locationId ? { location_id: locationId } : {}), order_ids: ids.slice(i, i + SQUARE_BATCH_RETRIEVE_ORDERS_MAX) };
        const answer = await post('BatchRetrieveOrders', '/v2/orders/batch-retrieve', body);
        orders.push(...list(answer.orders));
      }
      return orders;
    },

    async wasteChanges({ catalogObjectIds, locationIds, updatedAfter }) {
      // No catalog objects means nothing to ask for (an empty filter would not mean "none" to Square).
      if (catalogObjectIds.length === 0) return [];
      const query = {
        types: ['ADJUSTMENT'],
        states: ['WASTE'],
        catalog_object_ids: catalogObjectIds,
        ...(locationIds && locationIds.length > 0 ? { location_ids: locationIds } : {}),
        updated_after: updatedAfter,
      };
      const changes: Record<string, unknown>[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        if (page >= MAX_PAGES) {
          throw new SquareApiError(`Square returned more than ${MAX_PAGES} pages of inventory changes`, { status: null, retryable: false });
        }
        const answer = await post(
          'BatchRetrieveInventoryChanges',
          '/v2/inventory/changes/batch-retrieve',
          cursor ? { ...query, cursor } : query,
        );
        for (const change of list(answer.changes)) {
          const adjustment = change.adjustment as Record<string, unknown> | undefined;
          if (change.type === 'ADJUSTMENT' && adjustment && adjustment.to_state === 'WASTE') changes.push(change);
        }
        cursor = typeof answer.cursor === 'string' && answer.cursor !== '' ? answer.cursor : undefined;
        if (!cursor) return changes;
        if (seen.has(cursor))
          throw new SquareApiError('Square returned the same inventory cursor twice', { status: null, retryable: false });
        seen.add(cursor);
      }
    },
  };
}
