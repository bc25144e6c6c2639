import type { ChainVerification } from '@merma/schema';
import type { Clock, DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import type { CheckpointSigner } from '../../secrets/signing.js';
import { latestCheckpoint, storeCheckpoint } from './checkpoints.js';
import { verifyDocumentChain } from './documents.js';
import { CANONICAL_RECORD_JSON_SQL, GENESIS_HASH, HASH_ALGORITHM } from './hash.js';

/** Records checked per round of statements: bounds each statement's time and memory, whatever the chain's length. */
export const VERIFY_SEGMENT = 1_000_000;

type FailureReason = NonNullable<ChainVerification['first_invalid']>['reason'];
type Failure = { seq: bigint; id: string | null; reason: FailureReason };
/** At one record, the order a walk meets its problems in: its place, its link, its content, a checkpoint. */
const REASON_ORDER: FailureReason[] = ['sequence_gap', 'broken_link', 'hash_mismatch', 'checkpoint_mismatch'];

/**
 * Checks the records `from`…`to` of a chain whose record `from - 1` has hash `prev`, in three
 * statements that return only what they find: the links (each number in its place, each
 * `prev_hash` equal to the record before, with `lag()` in sequence order); the content (each record
 * re-hashed from its canonical JSON built in SQL, hash.ts — row by row with no order between rows,
 * so PostgreSQL spreads it over parallel workers); and the signed checkpoints in the range.
 * The three are sent at once: on a pool they run on three connections, so the walk of the links
 * (one process) overlaps the re-hashing instead of adding to it; on one connection they queue.
 * Answers the first failure a walk in order would meet, or the count and the last hash.
 */
async function firstFailure(
  sql: Sql,
  scope: DataScope,
  from: bigint,
  to: bigint,
  prev: string,
): Promise<{ bad: Failure | null; rows: number; lastHash: string | null }> {
  const range = [scope.establishmentId, scope.livemode, from.toString(), to.toString()];
  const inRange = `r.establishment_id = $1::uuid AND r.livemode = $2 AND r.chain_seq >= $3::bigint AND r.chain_seq <= $4::bigint`;
  const [links, content, signed] = await Promise.all([
    sql.query<{ rows: number; bad: { seq: string; id: string; reason: FailureReason } | null }>(
      `SELECT count(*)::int AS rows,
       (array_agg(json_build_object('seq', (CASE WHEN chain_seq <> expected_seq THEN expected_seq ELSE chain_seq END)::text, 'id', id,
          'reason', CASE WHEN chain_seq <> expected_seq THEN 'sequence_gap' ELSE 'broken_link' END) ORDER BY chain_seq)
         FILTER (WHERE chain_seq <> expected_seq OR prev_hash <> before))[1] AS bad
     FROM (
       SELECT r.chain_seq, r.id, r.prev_hash, $3::bigint - 1 + row_number() OVER w AS expected_seq,
         lag(r.record_hash, 1, $5::text) OVER w AS before
       FROM records r WHERE ${inRange}
       WINDOW w AS (ORDER BY r.chain_seq)
     ) walk`,
      [...range, prev],
    ),
    sql.query<{ seq: string | null }>(
      `SELECT min(r.chain_seq + 0)::text AS seq FROM records r
     WHERE ${inRange}
       AND r.record_hash <> encode(sha256(convert_to(r.prev_hash || ${CANONICAL_RECORD_JSON_SQL}, 'UTF8')), 'hex')`,
      range,
    ),
    sql.query<{ seq: string; id: string | null }>(
      `SELECT cp.seq::text, r.id::text FROM chain_checkpoints cp
     LEFT JOIN records r ON r.establishment_id = cp.establishment_id AND r.livemode = cp.livemode AND r.chain_seq = cp.seq
     WHERE cp.establishment_id = $1::uuid AND cp.livemode = $2 AND cp.seq >= $3::bigint AND cp.seq <= $4::bigint
       AND r.record_hash IS DISTINCT FROM cp.head_hash
     ORDER BY cp.seq LIMIT 1`,
      range,
    ),
  ]);
  const found: Failure[] = [];
  const link = links.rows[0]?.bad;
  if (link) found.push({ seq: BigInt(link.seq), id: link.id, reason: link.reason });
  const mismatch = content.rows[0]?.seq;
  if (mismatch) found.push({ seq: BigInt(mismatch), id: await recordIdAt(sql, scope, BigInt(mismatch)), reason: 'hash_mismatch' });
  const checkpoint = signed.rows[0];
  if (checkpoint) found.push({ seq: BigInt(checkpoint.seq), id: checkpoint.id, reason: 'checkpoint_mismatch' });
  found.sort((x, y) => (x.seq === y.seq ? REASON_ORDER.indexOf(x.reason) - REASON_ORDER.indexOf(y.reason) : x.seq < y.seq ? -1 : 1));
  const rows = links.rows[0]?.rows ?? 0;
  let lastHash: string | null = null;
  if (!found[0] && rows > 0) lastHash = (await recordAt(sql, scope, from + BigInt(rows) - 1n))?.record_hash ?? null;
  return { bad: found[0] ?? null, rows, lastHash };
}

async function recordAt(sql: Sql, scope: DataScope, seq: bigint) {
  const { rows } = await sql.query<{ id: string; record_hash: string }>(
    `SELECT id::text, record_hash FROM records WHERE establishment_id = $1::uuid AND livemode = $2 AND chain_seq = $3::bigint`,
    [scope.establishmentId, scope.livemode, seq.toString()],
  );
  return rows[0];
}
const recordIdAt = async (sql: Sql, scope: DataScope, seq: bigint) => (await recordAt(sql, scope, seq))?.id ?? null;

export type VerifyOptions = {
  full?: boolean | undefined;
  signer?: CheckpointSigner;
  clock?: Clock;
  /** Records per round of statements (VERIFY_SEGMENT by default). */
  segment?: number;
  /** Called after each round with the records found intact so far and the chain's length. */
  onProgress?: (checked: number, total: number) => Promise<void> | void;
};

/**
 * Walks the establishment's chain in sequence order and recomputes every hash. Reports the first
 * record whose hash does not match its content, whose link does not match the previous record, a
 * missing sequence number, or records missing at the end (the head remembers the last hash).
 *
 * The database does the walk, a segment at a time (firstFailure): its statements return only the
 * first failure, the count and the last hash, and no record travels to the server
 * (docs/scaling.md has the figures for a chain of a million records).
 *
 * By default it starts at the last signed checkpoint (checkpoints.ts): record `seq` must still
 * carry the checkpoint's hash, and only the records after it are re-hashed; `full` starts at the
 * first record, and every earlier checkpoint it passes must match too (so a history rewritten
 * with recomputed hashes is found, and never signed). The walk stops at the head it read first, so
 * records appended meanwhile wait for the next verification.
 *
 * The register's documents chain (documents.ts: the signed donation notes) is walked whole beside
 * it, each document re-hashed; `valid` needs both. An intact register whose records head or
 * documents head moved past the last checkpoint gets a new checkpoint signing both, signed by
 * `signer` (none is stored without one).
 */
export async function verifyRecordChain(sql: Sql, scope: DataScope, options: VerifyOptions = {}): Promise<ChainVerification> {
  const heads = await sql.query<{ seq: string; last_hash: string }>(
    `SELECT seq::text, last_hash FROM record_chain_heads WHERE establishment_id = $1::uuid AND livemode = $2`,
    [scope.establishmentId, scope.livemode],
  );
  const head = heads.rows[0] ? { seq: BigInt(heads.rows[0].seq), last_hash: heads.rows[0].last_hash } : undefined;
  const [last, documents] = await Promise.all([latestCheckpoint(sql, scope), verifyDocumentChain(sql, scope)]);
  const mode = options.full ? ('full' as const) : ('incremental' as const);
  const from = mode === 'incremental' && last ? last : null;
  let prev = from?.head_hash ?? GENESIS_HASH;
  let expectedSeq = from ? BigInt(from.seq) + 1n : 1n;
  const fromSeq = Number(expectedSeq);
  const segmentSize = BigInt(options.segment ?? VERIFY_SEGMENT);
  let rehashed = 0;
  const fail = (id: string | null, seq: bigint, reason: FailureReason): ChainVerification => ({
    valid: false,
    checked: reason === 'checkpoint_mismatch' ? 0 : fromSeq - 1 + rehashed,
    rehashed,
    head_hash: head?.last_hash ?? null,
    first_invalid: { id, chain_seq: Number(seq), reason },
    algorithm: HASH_ALGORITHM,
    mode,
    from_seq: fromSeq,
    checkpoint: last,
    documents,
  });
  if (from) {
    const anchor = await recordAt(sql, scope, BigInt(from.seq));
    if (anchor?.record_hash !== from.head_hash) return fail(anchor?.id ?? null, BigInt(from.seq), 'checkpoint_mismatch');
  }
  const until = head?.seq ?? 0n;
  while (expectedSeq <= until) {
    const segmentEnd = expectedSeq + segmentSize - 1n < until ? expectedSeq + segmentSize - 1n : until;
    const segment = await firstFailure(sql, scope, expectedSeq, segmentEnd, prev);
    if (segment.bad) {
      rehashed += Number(segment.bad.seq - expectedSeq);
      return fail(segment.bad.id, segment.bad.seq, segment.bad.reason);
    }
    if (!segment.rows) {
      // Not one record in the whole segment: a gap, if any record comes after it, else the end is missing.
      const next = await sql.query<{ id: string }>(
        `SELECT id::text FROM records
         WHERE establishment_id = $1::uuid AND livemode = $2 AND chain_seq > $3::bigint AND chain_seq <= $4::bigint
         ORDER BY chain_seq LIMIT 1`,
        [scope.establishmentId, scope.livemode, segmentEnd.toString(), until.toString()],
      );
      if (next.rows[0]) return fail(next.rows[0].id, expectedSeq, 'sequence_gap');
      break;
    }
    // A segment short of records at its end continues with the next one, whose first record then
    // shows the gap (or the head check below, the missing end).
    rehashed += segment.rows;
    expectedSeq += BigInt(segment.rows);
    if (segment.lastHash) prev = segment.lastHash;
    await options.onProgress?.(fromSeq - 1 + rehashed, Number(until));
  }
  if (head && (head.seq !== expectedSeq - 1n || head.last_hash !== prev)) {
    return fail(null, expectedSeq, 'truncated');
  }
  let checkpoint = last;
  // An intact documents chain was walked to the head it read: `checked` entries ending in `head_hash`.
  const documentsHead = { seq: documents.checked, hash: documents.head_hash };
  const moved = head && head.seq > 0n && (head.seq > BigInt(last?.seq ?? 0) || documentsHead.seq > (last?.documents_seq ?? 0));
  if (head && moved && documents.valid && options.signer) {
    const now = options.clock?.() ?? new Date();
    checkpoint = await storeCheckpoint(
      sql,
      scope,
      { seq: Number(head.seq), headHash: head.last_hash, documents: documentsHead },
      options.signer,
      now,
    );
  }
  return {
    valid: documents.valid,
    checked: fromSeq - 1 + rehashed,
    rehashed,
    head_hash: head?.last_hash ?? null,
    first_invalid: null,
    algorithm: HASH_ALGORITHM,
    mode,
    from_seq: fromSeq,
    checkpoint,
    documents,
  };
}
