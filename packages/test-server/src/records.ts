import { DESTINO_DONATION } from './catalog.js';
import type { Tenant, TestServer } from './server.js';

/**
 * Stores a record as if it had been created at `at`: created through the API (POST /api/v1/records,
 * the real path: validation, catalogue, hash chain), then its `created_at`, which analytics,
 * benchmarking and the reports group by, moved to `at` with one UPDATE. The server runs in its own
 * process and takes no injected clock, so history is written this way. The moved record's hash no
 * longer matches its time: do not use this where a test verifies the chain.
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
    body: JSON.stringify({ food_category: 'meat', weight_kg: 1.5, destino_id: DESTINO_DONATION, ...fields }),
  });
  const body = (await res.json()) as { data?: { id: string } & Record<string, unknown> };
  if (res.status !== 201 || !body.data) throw new Error(`POST /api/v1/records answered ${res.status}: ${JSON.stringify(body)}`);
  const moved = await server.sql.query('UPDATE records SET created_at = $2::timestamptz WHERE id = $1', [body.data.id, at]);
  if (moved.rowCount !== 1) throw new Error(`record ${body.data.id} not found in the database`);
  return { ...body.data, created_at: new Date(at).toISOString() };
}
