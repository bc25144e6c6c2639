import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * Where the server under test keeps its data. With DATABASE_URL set (CI's second pass), a new
 * database on that PostgreSQL, dropped (WITH (FORCE)) afterwards: that pass exists so every suite
 * also runs on the engine production uses. Without it, nothing here: the server opens its own
 * embedded PGlite under a temporary DATA_DIR, which is what `pnpm start` runs.
 */
export type FreshDatabase = { url: string | undefined; drop(): Promise<void> };

export async function freshDatabase(): Promise<FreshDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: undefined, drop: async () => {} };
  const name = `merma_test_server_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await withClient(base, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withClient(base, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

async function withClient<T>(connectionString: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
