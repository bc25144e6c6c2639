import type pg from 'pg';
import { isSealed, keyIdOf, SEALED_PREFIX, type SecretBox, SecretError } from './cipher.js';

/**
 * The columns that hold secrets, and what is done to them at rest:
 * - `webhook_subscriptions.secret` and `previous_secret`: the webhook signing secrets;
 * - `integrations.signature_key`, `previous_signature_key` (a Square subscription's signature key)
 *   and `api_credential` (the Square access token or Odoo API key the server reads with).
 *
 * They live here, below the modules, because the database opener seals them at boot; the modules
 * seal and open through these functions. Each value is sealed (cipher.ts) bound to its table,
 * column and row id, so a value copied to another row or swapped between two columns does not
 * open. The API returns a clear secret only where it always did (a webhook secret at creation and
 * rotation); integrations' credentials are never returned.
 *
 * Values stored before encryption are sealed at boot, right after the SQL migrations
 * (`sealClearSecrets`, from db/database.ts). It cannot be a .sql migration: the key is
 * configuration the database never sees. A clear value met before that (written by a server of an
 * earlier version during a rolling deploy) is used as it is and sealed at the next boot or by
 * `merma-admin secrets reencrypt`.
 */
export const SEALED_COLUMNS = {
  webhook_subscriptions: ['secret', 'previous_secret'],
  integrations: ['signature_key', 'previous_signature_key', 'api_credential'],
} as const;
export type SealedTable = keyof typeof SEALED_COLUMNS;
export type SealedColumn<T extends SealedTable> = (typeof SEALED_COLUMNS)[T][number];
export type SecretColumn = SealedColumn<'webhook_subscriptions'>;

const TABLES = Object.keys(SEALED_COLUMNS) as SealedTable[];
const BATCH = 500;

export const columnContext = <T extends SealedTable>(table: T, id: string, column: SealedColumn<T>) =>
  `${table}.${column} of ${id.toLowerCase()}`;

export function sealColumn<T extends SealedTable>(box: SecretBox, table: T, id: string, column: SealedColumn<T>, value: string): string {
  return box.seal(value, columnContext(table, id, column));
}

export function openColumn<T extends SealedTable>(box: SecretBox, table: T, id: string, column: SealedColumn<T>, stored: string): string {
  return isSealed(stored) ? box.open(stored, columnContext(table, id, column)) : stored;
}

/** A webhook subscription's secret (`secret` or `previous_secret`). */
export const secretContext = (subscriptionId: string, column: SecretColumn) =>
  columnContext('webhook_subscriptions', subscriptionId, column);

export function sealSecret(box: SecretBox, subscriptionId: string, column: SecretColumn, secret: string): string {
  return sealColumn(box, 'webhook_subscriptions', subscriptionId, column, secret);
}

export function openSecret(box: SecretBox, subscriptionId: string, column: SecretColumn, stored: string): string {
  return openColumn(box, 'webhook_subscriptions', subscriptionId, column, stored);
}

type Client = Pick<pg.ClientBase, 'query'>;
type Stored = { id: string } & Record<string, string | null>;

/** Every stored value of every sealed column, as `(id, col, v)` (SQL; only names from SEALED_COLUMNS). */
const storedValues = TABLES.flatMap((table) =>
  SEALED_COLUMNS[table].map(
    (column) => `SELECT '${table}' AS tbl, id, '${column}' AS col, ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL`,
  ),
).join(' UNION ALL ');

/**
 * Re-seals, batch by batch, every row of `table` whose sealed columns hold a value `stale` says so
 * of (SQL over the column, written `$col`; $1 is `current`), each batch in a transaction holding
 * its rows' locks: concurrent runs (replicas booting together) and concurrent rotations wait for
 * each other, and a row is re-checked once its lock is obtained, so none is sealed twice or from
 * an old value. Rows are taken in id order, so two runs lock in the same order and cannot deadlock.
 */
async function reseal<T extends SealedTable>(
  client: Client,
  table: T,
  stale: string,
  current: string,
  next: (row: Stored, column: SealedColumn<T>, value: string) => string,
): Promise<number> {
  const columns = SEALED_COLUMNS[table] as readonly SealedColumn<T>[];
  const where = columns.map((c) => stale.replaceAll('$col', c)).join(' OR ');
  let changed = 0;
  for (;;) {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<Stored>(
        `SELECT id::text, ${columns.join(', ')} FROM ${table} WHERE ${where} ORDER BY id LIMIT ${BATCH} FOR UPDATE`,
        [current],
      );
      if (rows.length > 0) {
        const arrays = columns.map((c) => rows.map((r) => (r[c] === null ? null : next(r, c, r[c] as string))));
        await client.query(
          `UPDATE ${table} t SET ${columns.map((c) => `${c} = u.${c}`).join(', ')}
           FROM unnest($1::uuid[], ${columns.map((_, i) => `$${i + 2}::text[]`).join(', ')}) AS u(id, ${columns.join(', ')})
           WHERE t.id = u.id`,
          [rows.map((r) => r.id), ...arrays],
        );
      }
      await client.query('COMMIT');
      if (rows.length === 0) return changed;
      changed += rows.length;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }
}

/**
 * Fails, naming them, when stored secrets are sealed with keys (or a format) this process does not
 * have, or when a key is configured under the right id but is not the key that sealed them (one
 * stored value per key id is opened to find out): better to refuse to start than to start and
 * have every delivery of those subscriptions, or every read of those integrations, fail.
 */
export async function assertKeysPresent(client: Client, box: SecretBox): Promise<void> {
  const { rows } = await client.query<{ version: string; key_id: string; n: number }>(
    `SELECT split_part(v, ':', 2) AS version, split_part(v, ':', 3) AS key_id, count(*)::int AS n
     FROM (${storedValues}) AS stored
     WHERE starts_with(v, $1) GROUP BY 1, 2 ORDER BY 2`,
    [SEALED_PREFIX],
  );
  const missing = rows.filter((r) => r.version !== 'v1' || !box.keyIds.includes(r.key_id));
  if (missing.length === 0) {
    const { rows: samples } = await client.query<{ tbl: SealedTable; id: string; col: string; v: string }>(
      `SELECT DISTINCT ON (split_part(v, ':', 3)) tbl, id::text, col, v
       FROM (${storedValues}) AS stored
       WHERE starts_with(v, $1) ORDER BY split_part(v, ':', 3), tbl DESC, id`,
      [SEALED_PREFIX],
    );
    for (const sample of samples) {
      try {
        openColumn(box, sample.tbl, sample.id, sample.col as SealedColumn<typeof sample.tbl>, sample.v);
      } catch (err) {
        throw new SecretError(
          `Stored secrets cannot be decrypted with the key ${box.source} gives as "${keyIdOf(sample.v)}" (${(err as Error).message}). ` +
            'Give that id the key those secrets were encrypted with.',
        );
      }
    }
    return;
  }
  const list = missing.map(
    (r) => `"${r.key_id}" (${r.n} ${r.n === 1 ? 'secret' : 'secrets'}${r.version === 'v1' ? '' : `, format ${r.version}`})`,
  );
  throw new SecretError(
    `Stored secrets are encrypted with ${missing.length === 1 ? 'key' : 'keys'} ${list.join(', ')} that ${box.source} does not hold ` +
      `(it holds ${box.keyIds.join(', ')}). Put ${missing.length === 1 ? 'it' : 'them'} back after the current key ` +
      `(MERMA_ENCRYPTION_KEY="${box.currentKeyId}:…,${missing[0]?.key_id}:…"), and remove an old key only after \`merma-admin secrets reencrypt\`.`,
  );
}

/** The boot step: checks the keys, then seals every secret still stored in clear with the current key. */
export async function sealClearSecrets(client: Client, box: SecretBox): Promise<{ sealed: number }> {
  await assertKeysPresent(client, box);
  let sealed = 0;
  for (const table of TABLES) {
    sealed += await reseal(client, table, 'NOT starts_with($col, $1)', SEALED_PREFIX, (row, column, value) =>
      isSealed(value) ? value : sealColumn(box, table, row.id, column, value),
    );
  }
  return { sealed };
}

/**
 * `merma-admin secrets reencrypt`: every secret not sealed with the current key (clear ones
 * included) is opened with the key it names and sealed with the current one. Afterwards no stored
 * value needs an older key, which `keys_in_use` shows, and the older keys can be removed.
 */
export async function reencryptSecrets(
  client: Client,
  box: SecretBox,
): Promise<{ key_id: string; reencrypted: number; subscriptions: number; integrations: number; keys_in_use: string[] }> {
  await assertKeysPresent(client, box);
  const current = `${SEALED_PREFIX}v1:${box.currentKeyId}:`;
  let reencrypted = 0;
  for (const table of TABLES) {
    reencrypted += await reseal(client, table, 'NOT starts_with($col, $1)', current, (row, column, value) =>
      keyIdOf(value) === box.currentKeyId ? value : sealColumn(box, table, row.id, column, openColumn(box, table, row.id, column, value)),
    );
  }
  const { rows } = await client.query<{ subscriptions: number; integrations: number; keys: string[] | null }>(
    `SELECT (SELECT count(*)::int FROM webhook_subscriptions) AS subscriptions,
       (SELECT count(*)::int FROM integrations) AS integrations,
       (SELECT array_agg(DISTINCT split_part(v, ':', 3) ORDER BY split_part(v, ':', 3))
        FROM (${storedValues}) AS stored WHERE starts_with(v, $1)) AS keys`,
    [SEALED_PREFIX],
  );
  return {
    key_id: box.currentKeyId,
    reencrypted,
    subscriptions: rows[0]?.subscriptions ?? 0,
    integrations: rows[0]?.integrations ?? 0,
    keys_in_use: rows[0]?.keys ?? [],
  };
}
