import type { ChainCheckpoint } from '@merma/schema';
import type { DataScope } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import type { CheckpointSigner } from '../../secrets/signing.js';

/**
 * Checkpoints of the record chain: after a verification finds the chain intact up to its head, the
 * head (seq, hash) is stored with the time and an Ed25519 signature of the service
 * (secrets/signing.ts). A routine verification then starts there: it checks that record `seq`
 * still has that hash (a rewrite of anything before it that recomputed the hashes changes it) and
 * re-hashes only what came after. An auditor holding a signed checkpoint can prove the register
 * had that head at that time; the database cannot forge a signature.
 */
export function checkpointMessage(c: Omit<ChainCheckpoint, 'key_id' | 'signature'>): string {
  return `merma-checkpoint:v1|${c.establishment_id}|${c.livemode ? 'live' : 'test'}|${c.seq}|${c.head_hash}|${c.signed_at}`;
}

type Row = {
  establishment_id: string;
  livemode: boolean;
  seq: bigint;
  head_hash: string;
  signed_at: Date;
  key_id: string;
  signature: string;
};

const toCheckpoint = (r: Row): ChainCheckpoint => ({
  establishment_id: r.establishment_id,
  livemode: r.livemode,
  seq: Number(r.seq),
  head_hash: r.head_hash,
  signed_at: r.signed_at.toISOString(),
  key_id: r.key_id,
  signature: r.signature,
});

export async function latestCheckpoint(db: DbTx, scope: DataScope): Promise<ChainCheckpoint | null> {
  const row = await db.chainCheckpoint.findFirst({
    where: { establishment_id: scope.establishmentId, livemode: scope.livemode },
    orderBy: { seq: 'desc' },
  });
  return row ? toCheckpoint(row) : null;
}

/** The scope's checkpoints, newest first. */
export async function listCheckpoints(db: DbTx, scope: DataScope, limit: number): Promise<ChainCheckpoint[]> {
  const rows = await db.chainCheckpoint.findMany({
    where: { establishment_id: scope.establishmentId, livemode: scope.livemode },
    orderBy: { seq: 'desc' },
    take: limit,
  });
  return rows.map(toCheckpoint);
}

/** Signs and stores the verified head `seq`/`headHash` (once per seq: a second verifier of the same head keeps the first). */
export async function storeCheckpoint(
  db: DbTx,
  scope: DataScope,
  head: { seq: number; headHash: string },
  signer: CheckpointSigner,
  now: Date,
): Promise<ChainCheckpoint> {
  const unsigned = {
    establishment_id: scope.establishmentId,
    livemode: scope.livemode,
    seq: head.seq,
    head_hash: head.headHash,
    signed_at: now.toISOString(),
  };
  const { keyId, signature } = signer.sign(checkpointMessage(unsigned));
  const checkpoint = { ...unsigned, key_id: keyId, signature };
  await db.$executeRaw`
    INSERT INTO chain_checkpoints (establishment_id, livemode, seq, head_hash, signed_at, key_id, signature)
    VALUES (${scope.establishmentId}::uuid, ${scope.livemode}, ${head.seq}, ${head.headHash}, ${now}, ${keyId}, ${signature})
    ON CONFLICT DO NOTHING`;
  return (await latestCheckpoint(db, scope)) ?? checkpoint;
}
