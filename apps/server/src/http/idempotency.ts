/*
 * `Idempotency-Key` on POST requests. The key is scoped to the establishment and mode and kept for
 * 24 hours. The whole request runs in one database transaction that first claims the key, then does
 * the work on that same transaction, then stores the response: the write and the remembered
 * response commit together or not at all, so a crash can neither lose the response of a stored
 * write nor leave a key stuck. A concurrent request with the same key waits on the claim, then
 * replays the stored response. Same key with another body: 409. Errors roll the claim back, so a
 * request that failed can be retried with the same key.
 */
import { createHash, randomUUID } from 'node:crypto';
import { IDEMPOTENCY_TTL_HOURS, MAX_IDEMPOTENCY_KEY_LENGTH } from '@merma/schema';
import type { AuthContext } from '../context.js';
import type { Db, DbTx } from '../db/client.js';
import { AppError } from '../errors.js';

/** The answer a request under an Idempotency-Key produced; `replayed` when it was stored by an earlier request. */
export type StoredResponse = { status: number; body: string; replayed: boolean };

const KEY_PATTERN = /^[\x21-\x7e]+$/; // visible ASCII

export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !KEY_PATTERN.test(value)) {
    throw new AppError('validation_error', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters`, [
      { path: 'Idempotency-Key', message: 'invalid header value' },
    ]);
  }
  return value;
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

export async function withIdempotency(
  db: Db,
  auth: AuthContext,
  key: string,
  print: string,
  run: (tx: DbTx) => Promise<{ status: number; body: string }>,
): Promise<StoredResponse> {
  return db.$transaction(
    async (tx) => {
      const claimed = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO idempotency_keys (id, establishment_id, livemode, key, fingerprint, status_code, response_body)
        VALUES (${randomUUID()}::uuid, ${auth.establishmentId}::uuid, ${auth.livemode}, ${key}, ${print}, 0, '')
        ON CONFLICT (establishment_id, livemode, key) DO UPDATE
          SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status_code = 0, response_body = '', created_at = now()
          WHERE idempotency_keys.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
        RETURNING id::text`;
      const claim = claimed[0];
      if (!claim) {
        const [stored] = await tx.$queryRaw<{ fingerprint: string; status_code: number; response_body: string }[]>`
          SELECT fingerprint, status_code, response_body FROM idempotency_keys
          WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode} AND key = ${key}`;
        if (!stored) {
          throw new AppError('conflict', 'A request with this Idempotency-Key is in progress; retry', undefined, { shouldRetry: true });
        }
        if (stored.fingerprint !== print) {
          throw new AppError(
            'conflict',
            'This Idempotency-Key was already used with a different request; use a new key for a new request',
            undefined,
            { shouldRetry: false },
          );
        }
        return { status: stored.status_code, body: stored.response_body, replayed: true };
      }
      const response = await run(tx);
      await tx.$executeRaw`UPDATE idempotency_keys SET status_code = ${response.status}, response_body = ${response.body}
        WHERE id = ${claim.id}::uuid`;
      return { ...response, replayed: false };
    },
    { maxWait: 10_000, timeout: 30_000 },
  );
}
