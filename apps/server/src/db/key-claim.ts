/*
 * The claim of an Idempotency-Key folded into a record's own statement (http/idempotency.ts tells
 * the whole of the keys: who may replay, how long, the answers at rest). Here, what the statement
 * and the idempotency layer share: the SQL of the claim, and what the write is handed to use it.
 */
import { IDEMPOTENCY_TTL_HOURS } from '@merma/schema';
import { Prisma } from '../generated/prisma/client.ts';
import type { Sql } from './sql.js';

/** A key older than its 24 hours is taken over by the new request; a live one is not (no row returned). */
export const TAKE_OVER_EXPIRED = `ON CONFLICT (establishment_id, livemode, api_key_id, key) DO UPDATE
    SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code,
      response_body = EXCLUDED.response_body, record_id = EXCLUDED.record_id, created_at = now()
    WHERE idempotency_keys.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
  RETURNING id::text`;

/** What a claim folded into a record's statement takes, by the names `keyClaimSql` gives its parameters. */
export type KeyClaimValues = { claimId: string; apiKeyId: string; idempotencyKey: string; print: string; status: number };
type KeyClaimParam = keyof KeyClaimValues | 'establishment' | 'livemode' | 'id';

/**
 * A key's claim as a CTE (`INSERT … SELECT`) of a record's own statement: the key's row names the
 * record (`id`) and holds its status, and is inserted only where `condition` holds (the
 * statement's write will happen). When the key is already taken it returns no row, and the
 * statement must then write nothing (its write depends on `EXISTS (SELECT 1 FROM <this CTE>)`).
 * Its values come through `p`, by name, numbered as the statement numbers them.
 */
export function keyClaimSql<P>(p: (name: KeyClaimParam) => P, condition: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`INSERT INTO idempotency_keys (id, establishment_id, livemode, api_key_id, key, fingerprint, status_code, response_body, record_id)
    SELECT ${p('claimId')}::uuid, ${p('establishment')}::uuid, ${p('livemode')}::boolean, ${p('apiKeyId')}::uuid, ${p('idempotencyKey')}::text,
      ${p('print')}::text, ${p('status')}::int, '', ${p('id')}::uuid
    WHERE ${condition}
    ${Prisma.raw(TAKE_OVER_EXPIRED)}`;
}

/**
 * The claim a record's write folds into its one statement (`keyClaimSql`), offered on the runner
 * of a write under a key whose surface can answer a record again (`answerOnce`'s `rebuild`). The
 * statement runs alone on the pool (`query`: its own transaction, the claim and the write commit
 * together or not at all); then the write says what it found: `claimed()`, and the answer is the
 * record (nothing more is stored), or `taken()`, which stops the write and replays the key's answer.
 */
export type KeyClaim = {
  values: KeyClaimValues;
  query: Sql['query'];
  claimed(): void;
  taken(): never;
};

/**
 * What a key's row keeps of an answer its surface builds again from the rows the write stored: the
 * record it names (a record's, or a batch's first), and for a batch the rest of its answer (the
 * `reference` it gave `answerFromRows`, opened).
 */
export type StoredAnswer = { recordId: string; reference?: string | undefined };
