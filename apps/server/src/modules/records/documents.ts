import { randomUUID } from 'node:crypto';
import type { DocumentsVerification } from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { GENESIS_HASH } from './hash.js';

/**
 * The register's documents chain: the documents the register vouches for — a donation's signed
 * handover note, the certificates of Ley 49/2002 art. 24 its entities signed for the company
 * (each version, uploaded or signed through a link), and each version of the prevention plan —
 * entered, as they are stored, into a hash
 * chain of their own per
 * establishment and mode, beside the record chain (hash.ts), and signed with it by every
 * checkpoint (checkpoints.ts). An entry is
 *
 *     entry_hash = hex(SHA-256(prev_hash + canonical_json(entry)))
 *
 * with `prev_hash` the entry before's hash (64 zeros for the first) and the canonical JSON the
 * keys `created_at`, `establishment_id`, `id`, `kind`, `livemode`, `sha256`, `subject_id` in that
 * order, no whitespace (every value a UUID, a fixed word, a hex digest, a boolean or an ISO time
 * with milliseconds, so the JSON needs no escaping). `sha256` is the document's own digest, the
 * one its download sends as `Repr-Digest`.
 *
 * A second chain rather than entries among the records: a record's `chain_seq` and `prev_hash` are
 * read by customers who check the record chain themselves from `GET /records`, and a document in
 * its sequence would look like a gap to them.
 *
 * Verification (verifyDocumentChain) walks the whole documents chain — one entry per signed note
 * or certificate, so thousands at most — and re-reads every document: the stored bytes must still hash to the
 * entry's digest, and the digest the product shows must be the entry's. A change to a note's PDF
 * and to its stored hash together is found there; a rewrite of the entries with recomputed hashes
 * is found by the signed checkpoints.
 */

/**
 * Where each kind of document lives, as SQL over the entry `d`: the SHA-256 of its stored bytes
 * (`computed`) and the digest the product shows for it (`stated`), or no row when it is gone. A
 * donation's signed note is stored once; a signed certificate may be replaced (a new upload or
 * signature, audited), and each version gets an entry: the stored document must match its latest
 * entry, the earlier entries keep the hashes of the versions it replaced.
 */
const DOCUMENT_SOURCES = {
  donation_note: `SELECT encode(sha256(n.pdf), 'hex') AS computed, n.sha256::text AS stated FROM donation_notes n WHERE n.donation_id = d.subject_id`,
  donation_certificate: `SELECT encode(sha256(c.content), 'hex') AS computed, c.sha256::text AS stated FROM donation_certificates c WHERE c.id = d.subject_id`,
  // A prevention plan version (plan/service.ts): its content as the database writes it.
  prevention_plan: `SELECT encode(sha256(convert_to(p.content::text, 'UTF8')), 'hex') AS computed, p.sha256::text AS stated FROM prevention_plans p WHERE p.id = d.subject_id`,
} as const;

export type DocumentKind = keyof typeof DOCUMENT_SOURCES;

/** SQL: the canonical JSON of the entry `alias` (its columns), as hashed. */
const canonicalSql = (alias: string) =>
  `'{"created_at":"' || ${isoSql(`${alias}.created_at`)} || '","establishment_id":"' || ${alias}.establishment_id::text || '","id":"' || ${alias}.id::text || '","kind":"' || ${alias}.kind || '","livemode":' || ${alias}.livemode::text || ',"sha256":"' || ${alias}.sha256 || '","subject_id":"' || ${alias}.subject_id::text || '"}'`;

const entryHashSql = (alias: string, prev: string) => `encode(sha256(convert_to(${prev} || ${canonicalSql(alias)}, 'UTF8')), 'hex')`;

export type DocumentEntry = { id: string; seq: number; entry_hash: string };

/**
 * Enters a stored document's digest into the chain of `scope`, in the caller's transaction (the
 * document and its entry land together or not at all). Writers of one chain queue on its head's
 * row lock, as the records' writers do.
 */
export async function appendDocument(
  sql: Sql,
  scope: DataScope,
  document: { kind: DocumentKind; subjectId: string; sha256: string; createdAt: string },
): Promise<DocumentEntry> {
  await sql.query(
    `INSERT INTO register_document_heads (establishment_id, livemode, seq, last_hash) VALUES ($1::uuid, $2, 0, $3)
     ON CONFLICT (establishment_id, livemode) DO NOTHING`,
    [scope.establishmentId, scope.livemode, GENESIS_HASH],
  );
  const { rows } = await sql.query<{ id: string; seq: string; entry_hash: string }>(
    `WITH e AS (
       SELECT $1::uuid AS id, $2::uuid AS establishment_id, $3::boolean AS livemode, $4::text AS kind, $5::uuid AS subject_id,
         $6::text AS sha256, $7::timestamptz AS created_at
     ), moved AS (
       UPDATE register_document_heads h SET seq = h.seq + 1, prev_hash = h.last_hash,
         last_hash = (SELECT ${entryHashSql('e', 'h.last_hash::text')} FROM e)
       WHERE h.establishment_id = $2::uuid AND h.livemode = $3
       RETURNING h.seq, h.prev_hash, h.last_hash
     )
     INSERT INTO register_documents (id, establishment_id, livemode, seq, kind, subject_id, sha256, created_at, prev_hash, entry_hash)
     SELECT e.id, e.establishment_id, e.livemode, moved.seq, e.kind, e.subject_id, e.sha256, e.created_at, moved.prev_hash, moved.last_hash
     FROM e, moved
     RETURNING id::text, seq::text, entry_hash`,
    [randomUUID(), scope.establishmentId, scope.livemode, document.kind, document.subjectId, document.sha256, document.createdAt],
  );
  const row = rows[0];
  if (!row) throw new Error('The documents chain has no head');
  return { id: row.id, seq: Number(row.seq), entry_hash: row.entry_hash };
}

type Reason = NonNullable<DocumentsVerification['first_invalid']>['reason'];

/**
 * Walks the documents chain of `scope` from its first entry, in one statement that answers the
 * count, the last hash and the first entry that fails: its place (`sequence_gap`), its link
 * (`broken_link`), its content (`hash_mismatch`), or its document — gone (`document_missing`), or
 * bytes or shown digest no longer the entry's (`document_changed`). Then the head (entries missing
 * at the end: `truncated`) and every signed checkpoint's documents head (`checkpoint_mismatch`).
 */
export async function verifyDocumentChain(sql: Sql, scope: DataScope): Promise<DocumentsVerification> {
  const params = [scope.establishmentId, scope.livemode, GENESIS_HASH];
  const sources = Object.entries(DOCUMENT_SOURCES)
    .map(([kind, source]) => `${source} AND d.kind = '${kind}'`)
    .join(' UNION ALL ');
  // One statement, so the head and the entries are read from one snapshot (a note signed meanwhile is in both or neither).
  const [walk, signed] = await Promise.all([
    sql.query<{
      rows: number;
      last_hash: string | null;
      head_seq: string | null;
      head_hash: string | null;
      bad: { seq: string; id: string; reason: Reason } | null;
    }>(
      `SELECT count(*)::int AS rows, (array_agg(entry_hash ORDER BY seq DESC))[1] AS last_hash,
         (SELECT seq::text FROM register_document_heads WHERE establishment_id = $1::uuid AND livemode = $2) AS head_seq,
         (SELECT last_hash FROM register_document_heads WHERE establishment_id = $1::uuid AND livemode = $2) AS head_hash,
         (array_agg(json_build_object('seq', (CASE WHEN reason = 'sequence_gap' THEN expected ELSE seq END)::text, 'id', id, 'reason', reason)
           ORDER BY seq) FILTER (WHERE reason IS NOT NULL))[1] AS bad
       FROM (
         SELECT seq, id::text, entry_hash, expected,
           CASE WHEN seq <> expected THEN 'sequence_gap' WHEN prev_hash <> before THEN 'broken_link' WHEN entry_hash <> recomputed THEN 'hash_mismatch'
             WHEN NOT latest THEN NULL
             WHEN computed IS NULL THEN 'document_missing' WHEN computed <> sha256 OR stated <> sha256 THEN 'document_changed' END AS reason
         FROM (
           SELECT d.seq, d.id, d.prev_hash, d.entry_hash, d.sha256, row_number() OVER w AS expected,
             row_number() OVER (PARTITION BY d.kind, d.subject_id ORDER BY d.seq DESC) = 1 AS latest,
             lag(d.entry_hash, 1, $3::text) OVER w AS before, ${entryHashSql('d', 'd.prev_hash::text')} AS recomputed, doc.computed, doc.stated
           FROM register_documents d
           LEFT JOIN LATERAL (${sources}) doc ON true
           WHERE d.establishment_id = $1::uuid AND d.livemode = $2
           WINDOW w AS (ORDER BY d.seq)
         ) entries
       ) checked`,
      params,
    ),
    sql.query<{ seq: string; id: string | null }>(
      `SELECT cp.documents_seq::text AS seq, d.id::text FROM chain_checkpoints cp
       LEFT JOIN register_documents d ON d.establishment_id = cp.establishment_id AND d.livemode = cp.livemode AND d.seq = cp.documents_seq
       WHERE cp.establishment_id = $1::uuid AND cp.livemode = $2 AND cp.documents_seq > 0 AND d.entry_hash IS DISTINCT FROM cp.documents_head_hash
       ORDER BY cp.documents_seq LIMIT 1`,
      [scope.establishmentId, scope.livemode],
    ),
  ]);
  const {
    rows,
    last_hash: lastHash,
    bad,
    head_seq: headSeq,
    head_hash: headHash,
  } = walk.rows[0] ?? {
    rows: 0,
    last_hash: null,
    bad: null,
    head_seq: null,
    head_hash: null,
  };
  const head = { seq: Number(headSeq ?? 0), hash: Number(headSeq ?? 0) > 0 ? headHash : null };
  const result = (first: DocumentsVerification['first_invalid']): DocumentsVerification => ({
    valid: first === null,
    checked: first ? Math.max(0, first.seq - 1) : rows,
    head_hash: head.hash,
    first_invalid: first,
  });
  const failures: NonNullable<DocumentsVerification['first_invalid']>[] = [];
  if (bad) failures.push({ id: bad.id, seq: Number(bad.seq), reason: bad.reason });
  const checkpoint = signed.rows[0];
  if (checkpoint) failures.push({ id: checkpoint.id, seq: Number(checkpoint.seq), reason: 'checkpoint_mismatch' });
  failures.sort((x, y) => x.seq - y.seq);
  if (failures[0]) return result(failures[0]);
  if (head.seq !== rows || (rows > 0 && head.hash !== lastHash)) return result({ id: null, seq: rows + 1, reason: 'truncated' });
  return result(null);
}
