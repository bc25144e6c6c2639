/*
 * `Idempotency-Key` on POST requests. The key is scoped to the establishment, the mode AND the API
 * key that sent it, and kept for 24 hours. The whole request runs in one database transaction that
 * first claims the key, then does the work on that same transaction, then stores the response: the
 * write and the remembered response commit together or not at all, so a crash can neither lose the
 * response of a stored write nor leave a key stuck. A concurrent request with the same key waits on
 * the claim, then replays the stored response. Same key with another body: 409. Errors roll the
 * claim back, so a request that failed can be retried with the same key.
 *
 * Who may replay. A stored answer is the answer to one API key's request, and is only ever given
 * to that key: another key of the same establishment that sends the same Idempotency-Key (with any
 * body) makes a request of its own, which runs; it is neither served the other key's answer nor
 * refused with 409 because of it. And before any stored answer is looked at, http/binding.ts
 * authorises the request with the procedure's own check (`authorizeProcedure`), so a key that lost
 * a permission since is refused as the procedure would refuse it, not served its earlier answer.
 *
 * At rest. Every stored answer, not only those carrying a secret, is sealed with the secret box
 * (secrets/cipher.ts) bound to its row id; after a key rotation keep the old key for the 24-hour
 * window. Why all of them, and the cost: docs/decisions/0002-seal-every-stored-idempotent-answer.md.
 */
import { createHash, randomUUID } from 'node:crypto';
import { IDEMPOTENCY_TTL_HOURS, MAX_IDEMPOTENCY_KEY_LENGTH } from '@merma/schema';
import type { AuthContext } from '../context.js';
import type { Db, DbTx } from '../db/client.js';
import { AppError } from '../errors.js';
import type { SecretBox } from '../secrets/cipher.js';

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

/** Where a stored answer lives, bound into its encryption (a sealed answer opens only in its own row). */
const bodyContext = (rowId: string) => `idempotency_keys.response_body of ${rowId.toLowerCase()}`;

/**
 * Runs `run` under `key` for the calling API key, or replays the answer that key stored for it.
 * The caller has authorised the request already (see the comment at the top).
 */
export async function withIdempotency(
  db: Db,
  box: SecretBox,
  auth: AuthContext,
  key: string,
  print: string,
  run: (tx: DbTx) => Promise<{ status: number; body: string }>,
): Promise<StoredResponse> {
  return db.$transaction(
    async (tx) => {
      const claimed = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO idempotency_keys (id, establishment_id, livemode, api_key_id, key, fingerprint, status_code, response_body)
        VALUES (${randomUUID()}::uuid, ${auth.establishmentId}::uuid, ${auth.livemode}, ${auth.keyId}::uuid, ${key}, ${print}, 0, '')
        ON CONFLICT (establishment_id, livemode, api_key_id, key) DO UPDATE
          SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status_code = 0, response_body = '', created_at = now()
          WHERE idempotency_keys.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
        RETURNING id::text`;
      const claim = claimed[0];
      if (!claim) {
        const [stored] = await tx.$queryRaw<{ id: string; fingerprint: string; status_code: number; response_body: string }[]>`
          SELECT id::text, fingerprint, status_code, response_body FROM idempotency_keys
          WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode}
            AND api_key_id = ${auth.keyId}::uuid AND key = ${key}`;
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
        return { status: stored.status_code, body: box.open(stored.response_body, bodyContext(stored.id)), replayed: true };
      }
      const response = await run(tx);
      await tx.$executeRaw`UPDATE idempotency_keys SET status_code = ${response.status},
          response_body = ${box.seal(response.body, bodyContext(claim.id))}
        WHERE id = ${claim.id}::uuid`;
      return { ...response, replayed: false };
    },
    { maxWait: 10_000, timeout: 30_000 },
  );
}
