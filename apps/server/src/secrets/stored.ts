import type pg from 'pg';
import { isSealed, keyIdOf, SEALED_PREFIX, type SecretBox, SecretError } from './cipher.js';

/**
 * The columns that hold secrets, and what is done to them at rest: today the webhook signing
 * secrets, `webhook_subscriptions.secret` and `previous_secret`. They live here, below the
 * modules, because the database opener seals them at boot; the webhooks module seals and opens
 * through these functions. Each value is sealed (cipher.ts) bound to its column and subscription
 * id, so a value copied to another subscription or swapped between the two columns does not open. The API returns the clear
 * secret only where it always did (creation, rotation); the delivery attempt opens it to sign.
 *
 * Values stored before encryption are sealed at boot, right after the SQL migrations
 * (`sealClearSecrets`, from db/database.ts). It cannot be a .sql migration: the key is
 * configuration the database never sees. A clear value met before that (written by a server of an
 * earlier version during a rolling deploy) is used as it is and sealed at the next boot or by
 * `merma-admin secrets reencrypt`.
 */
export type SecretColumn = 'secret' | 'previous_secret';

const BATCH = 500;

export const secretContext = (subscriptionId: string, column: SecretColumn) =>
  `webhook_subscriptions.${column} of ${subscriptionId.toLowerCase()}`;

export function sealSecret(box: SecretBox, subscriptionId: string, column: SecretColumn, secret: string): string {
  return box.seal(secret, secretContext(subscriptionId, column));
}

export function openSecret(box: SecretBox, subscriptionId: string, column: SecretColumn, stored: string): string {
  return isSealed(stored) ? box.open(stored, secretContext(subscriptionId, column)) : stored;
}

type Client = Pick<pg.ClientBase, 'query'>;
type Stored = { id: string; secret: string; previous_secret: string | null };

/**
 * Re-seals, batch by batch, every subscription whose secrets `stale` matches (SQL over `secret`
 * and `previous_secret`; $1 is `current`), each batch in a transaction holding its rows' locks:
 * concurrent runs (replicas booting together) and concurrent rotations wait for each other, and
 * a row is re-checked once its lock is obtained, so none is sealed twice or from an old value.
 * Rows are taken in id order, so two runs lock in the same order and cannot deadlock.
 */
async function reseal(
  client: Client,
  stale: string,
  current: string,
  next: (row: Stored, column: SecretColumn, value: string) => string,
): Promise<number> {
  let changed = 0;
  for (;;) {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<Stored>(
        `SELECT id::text, secret, previous_secret FROM webhook_subscriptions WHERE ${stale} ORDER BY id LIMIT ${BATCH} FOR UPDATE`,
        [current],
      );
      if (rows.length > 0) {
        await client.query(
          `UPDATE webhook_subscriptions s SET secret = u.secret, previous_secret = u.previous_secret
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, secret, previous_secret) WHERE s.id = u.id`,
          [
            rows.map((r) => r.id),
            rows.map((r) => next(r, 'secret', r.secret)),
            rows.map((r) => (r.previous_secret === null ? null : next(r, 'previous_secret', r.previous_secret))),
          ],
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
 * have every delivery of those subscriptions fail.
 */
export async function assertKeysPresent(client: Client, box: SecretBox): Promise<void> {
  const { rows } = await client.query<{ version: string; key_id: string; n: number }>(
    `SELECT split_part(v, ':', 2) AS version, split_part(v, ':', 3) AS key_id, count(*)::int AS n
     FROM (SELECT secret AS v FROM webhook_subscriptions
           UNION ALL SELECT previous_secret FROM webhook_subscriptions WHERE previous_secret IS NOT NULL) AS stored
     WHERE starts_with(v, $1) GROUP BY 1, 2 ORDER BY 2`,
    [SEALED_PREFIX],
  );
  const missing = rows.filter((r) => r.version !== 'v1' || !box.keyIds.includes(r.key_id));
  if (missing.length === 0) {
    const { rows: samples } = await client.query<{ id: string; col: SecretColumn; v: string }>(
      `SELECT DISTINCT ON (split_part(v, ':', 3)) id::text, col, v
       FROM (SELECT id, 'secret' AS col, secret AS v FROM webhook_subscriptions
             UNION ALL SELECT id, 'previous_secret', previous_secret FROM webhook_subscriptions WHERE previous_secret IS NOT NULL) AS stored
       WHERE starts_with(v, $1) ORDER BY split_part(v, ':', 3), id`,
      [SEALED_PREFIX],
    );
    for (const sample of samples) {
      try {
        openSecret(box, sample.id, sample.col, sample.v);
      } catch (err) {
        throw new SecretError(
          `Webhook secrets cannot be decrypted with the key ${box.source} gives as "${keyIdOf(sample.v)}" (${(err as Error).message}). ` +
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
    `Webhook secrets are encrypted with ${missing.length === 1 ? 'key' : 'keys'} ${list.join(', ')} that ${box.source} does not hold ` +
      `(it holds ${box.keyIds.join(', ')}). Put ${missing.length === 1 ? 'it' : 'them'} back after the current key ` +
      `(MERMA_ENCRYPTION_KEY="${box.currentKeyId}:…,${missing[0]?.key_id}:…"), and remove an old key only after \`merma-admin secrets reencrypt\`.`,
  );
}

/** The boot step: checks the keys, then seals every secret still stored in clear with the current key. */
export async function sealClearSecrets(client: Client, box: SecretBox): Promise<{ sealed: number }> {
  await assertKeysPresent(client, box);
  const sealed = await reseal(
    client,
    'NOT starts_with(secret, $1) OR NOT starts_with(previous_secret, $1)',
    SEALED_PREFIX,
    (row, column, value) => (isSealed(value) ? value : sealSecret(box, row.id, column, value)),
  );
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
): Promise<{ key_id: string; reencrypted: number; subscriptions: number; keys_in_use: string[] }> {
  await assertKeysPresent(client, box);
  const current = `${SEALED_PREFIX}v1:${box.currentKeyId}:`;
  const reencrypted = await reseal(
    client,
    'NOT starts_with(secret, $1) OR NOT starts_with(previous_secret, $1)',
    current,
    (row, column, value) =>
      keyIdOf(value) === box.currentKeyId ? value : sealSecret(box, row.id, column, openSecret(box, row.id, column, value)),
  );
  const { rows } = await client.query<{ subscriptions: number; keys: string[] | null }>(
    `SELECT (SELECT count(*)::int FROM webhook_subscriptions) AS subscriptions,
       (SELECT array_agg(DISTINCT split_part(v, ':', 3) ORDER BY split_part(v, ':', 3))
        FROM (SELECT secret AS v FROM webhook_subscriptions
              UNION ALL SELECT previous_secret FROM webhook_subscriptions WHERE previous_secret IS NOT NULL) AS stored
        WHERE starts_with(v, $1)) AS keys`,
    [SEALED_PREFIX],
  );
  return { key_id: box.currentKeyId, reencrypted, subscriptions: rows[0]?.subscriptions ?? 0, keys_in_use: rows[0]?.keys ?? [] };
}
