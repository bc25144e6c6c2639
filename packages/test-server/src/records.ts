import { DESTINO_DONATION } from './catalog.js';
import type { Tenant, TestServer } from './server.js';

/**
 * Stores a record whose waste happened at `at`, through the API (POST /api/v1/records, the real
 * path: validation, catalogue, hash chain) with `occurred_at`, which analytics, benchmarking and
 * the reports go by. `at` must be within the API's window: at most 400 days back, 5 minutes ahead.
 */
export async function recordAt(
  server: Pick<TestServer, 'url' | 'sql'>,
  tenant: Pick<Tenant, 'key'>,
  at: string,
  fields: Record<string, unknown> = {},
): Promise<{ id: string } & Record<string, unknown>> {
  const res = await fetch(`${server.url}/api/v1/records`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ food_category: 'meat', weight_kg: 1.5, destino_id: DESTINO_DONATION, occurred_at: at, ...fields }),
  });
  const body = (await res.json()) as { data?: { id: string } & Record<string, unknown> };
  if (res.status !== 201 || !body.data) throw new Error(`POST /api/v1/records answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data;
}
