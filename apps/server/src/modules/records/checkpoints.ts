import type { ChainCheckpoint } from '@merma/schema';
import type { DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import type { CheckpointSigner } from '../../secrets/signing.js';

/**
 * Checkpoints of the record chain: after a verification finds the chain intact up to its head, the
 * head (seq, hash) is stored with the time and an Ed25519 signature of the service
 * (secrets/signing.ts). A routine verification then starts there: it checks that record `seq`
 * still has that hash (a rewrite of anything before it that recomputed the hashes changes it) and
 * re-hashes only what came after. An auditor holding a signed checkpoint can prove the register
 * had that head at that time; the database cannot forge a signature.
 *
 * Once the establishment's register holds documents (documents.ts), a checkpoint signs the head of
 * their chain too, and its message is v2; one without documents keeps the v1 message, which every
 * version of the SDK checks.
 */
export function checkpointMessage(c: Omit<ChainCheckpoint, 'key_id' | 'signature'>): string {
  const mode = c.livemode ? 'live' : 'test';
  if (c.documents_seq && c.documents_head_hash) {
    return `merma-checkpoint:v2|${c.establishment_id}|${mode}|${c.seq}|${c.head_hash}|${c.documents_seq}|${c.documents_head_hash}|${c.signed_at}`;
  }
  return `merma-checkpoint:v1|${c.establishment_id}|${mode}|${c.seq}|${c.head_hash}|${c.signed_at}`;
}

type Row = {
  establishment_id: string;
  livemode: boolean;
  seq: string;
  head_hash: string;
  signed_at: Date;
  key_id: string;
  signature: string;
  documents_seq: string;
  documents_head_hash: string | null;
};

const toCheckpoint = (r: Row): ChainCheckpoint => ({
  establishment_id: r.establishment_id,
  livemode: r.livemode,
  seq: Number(r.seq),
  head_hash: r.head_hash,
  ...(r.documents_head_hash ? { documents_seq: Number(r.documents_seq), documents_head_hash: r.documents_head_hash } : {}),
  signed_at: r.signed_at.toISOString(),
  key_id: r.key_id,
  signature: r.signature,
});

const COLUMNS =
  'establishment_id::text, livemode, seq::text, head_hash, signed_at, key_id, signature, documents_seq::text, documents_head_hash';

export async function latestCheckpoint(sql: Sql, scope: DataScope): Promise<ChainCheckpoint | null> {
  return (await listCheckpoints(sql, scope, 1))[0] ?? null;
}

/** The scope's checkpoints, newest first. */
export async function listCheckpoints(sql: Sql, scope: DataScope, limit: number): Promise<ChainCheckpoint[]> {
  const { rows } = await sql.query<Row>(
    `SELECT ${COLUMNS} FROM chain_checkpoints WHERE establishment_id = $1::uuid AND livemode = $2 ORDER BY seq DESC, documents_seq DESC LIMIT $3`,
    [scope.establishmentId, scope.livemode, limit],
  );
  return rows.map(toCheckpoint);
}

/**
 * Signs and stores the verified heads: the records' `seq`/`headHash` and the documents'
 * `documents` (once per pair: a second verifier of the same heads keeps the first).
 */
export async function storeCheckpoint(
  sql: Sql,
  scope: DataScope,
  head: { seq: number; headHash: string; documents: { seq: number; hash: string | null } },
  signer: CheckpointSigner,
  now: Date,
): Promise<ChainCheckpoint> {
  const documents =
    head.documents.seq > 0 && head.documents.hash ? { documents_seq: head.documents.seq, documents_head_hash: head.documents.hash } : null;
  const unsigned = {
    establishment_id: scope.establishmentId,
    livemode: scope.livemode,
    seq: head.seq,
    head_hash: head.headHash,
    ...documents,
    signed_at: now.toISOString(),
  };
  const { keyId, signature } = signer.sign(checkpointMessage(unsigned));
  const checkpoint = { ...unsigned, key_id: keyId, signature };
  await sql.query(
    `INSERT INTO chain_checkpoints (establishment_id, livemode, seq, head_hash, signed_at, key_id, signature, documents_seq, documents_head_hash)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
    [
      scope.establishmentId,
      scope.livemode,
      head.seq,
      head.headHash,
      now,
      keyId,
      signature,
      documents?.documents_seq ?? 0,
      documents?.documents_head_hash ?? null,
    ],
  );
  return (await latestCheckpoint(sql, scope)) ?? checkpoint;
}
