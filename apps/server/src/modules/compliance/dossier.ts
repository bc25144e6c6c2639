import { createHash, createPublicKey } from 'node:crypto';
import { localDate, type PlanLanguage, REDUCTION_BASELINES } from '@merma/schema';
import { type Zippable, zip } from 'fflate';
import { isoSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { validationError } from '../../errors.js';
import type { CheckpointSigner } from '../../secrets/signing.js';
import type { CatalogCache } from '../catalog/service.js';
import { listAgreements } from '../donations/agreements.js';
import { listPlanMeasures, listTrainingSessions } from '../plan/follow-up.js';
import { planVersionDocuments } from '../plan/service.js';
import { checkpointMessage, listCheckpoints } from '../records/checkpoints.js';
import { exportRecordsCsv } from '../records/export.js';
import { GENESIS_HASH } from '../records/hash.js';
import { verifyRecordChain } from '../records/verify.js';
import { DOSSIER_README, DOSSIER_VERIFY_SCRIPT } from './dossier-texts.js';
import { esrsE5 } from './esrs.js';
import { esrsE5Csv } from './esrs-csv.js';
import { hierarchyReport } from './hierarchy.js';
import { reduction } from './reduction.js';
import { obligationsFor } from './service.js';
import { listWasteStreams } from './waste-streams.js';

/**
 * The inspection dossier (Ley 1/2025 is enforced by inspection): one ZIP, for one establishment,
 * mode and calendar year, with what an inspector asks to see and the means to check it without
 * Merma:
 *
 * - `plan/`: every stored version of the prevention plan as a Markdown document in `lang`, the
 *   newest last (the current plan), `versions.json` (number, date, SHA-256), the measures as they
 *   are followed up now and the year's staff training sessions;
 * - `register/`: the year's records as CSV (every record, those a correction replaced included,
 *   with each record's hash), the verification of the whole chain (`full`, read only: building a
 *   dossier signs nothing), the signed checkpoints with each message and raw signature as files;
 * - `documents/`: the register's documents chain (signed donation notes, signed certificates, plan
 *   versions) with each entry and, for the version still stored, the document's bytes;
 * - `keys/`: the service's public keys (JWKS and PEM), to check the checkpoints offline;
 * - `compliance/`: "am I obliged?", the ESRS E5-5 figures (JSON and CSV), the year against each
 *   baseline (2021–2023, 2020, the first full year), the hierarchy report with its
 *   justifications and each waste stream's LER code and manager (today's), as the API answers them;
 * - `donations/`: the donation agreements that cover the establishment, and their signed PDFs
 *   (`agreements`: whoever asks may read them — an API key with `donations:read`);
 * - `verify.mjs` (Node 18 or later, nothing else) and `README.txt` (how to check it with Node, with
 *   `sha256sum` and with `openssl`), and `SHA256SUMS` over every other file.
 *
 * Decided: the same register gives the same bytes. Nothing in the ZIP depends on the moment of the
 * download — its files are in a fixed order and all dated 1 January of the year (as a local time,
 * so the bytes do not depend on the server's time zone) — so two downloads differ only when the
 * register, the plan, the agreements or the establishment's facts changed between them (a new
 * record, a checkpoint, a plan version), or, for "am I obliged?", the day. The whole dossier is
 * built in memory: a year of one establishment is some tens of thousands of records; the ZIP's
 * compression runs off the event loop for the large files (fflate's workers).
 */
export type DossierDeps = { db: Db; sql: Sql; clock: Clock; catalog: CatalogCache; signer: Pick<CheckpointSigner, 'jwks'> };

export type Dossier = { fileName: string; bytes: Uint8Array };

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const text = (value: string) => new TextEncoder().encode(value);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const pad = (n: number) => String(n).padStart(4, '0');

type DocumentRow = {
  seq: string;
  id: string;
  kind: string;
  subject_id: string;
  sha256: string;
  created_at: string;
  prev_hash: string;
  entry_hash: string;
  content: Buffer | null;
};

/** The documents chain of the scope, oldest first, each entry with the bytes its subject stores today (a replaced version's are gone). */
async function documentEntries(sql: Sql, tenant: Tenant): Promise<DocumentRow[]> {
  const { rows } = await sql.query<DocumentRow>(
    `SELECT d.seq::text, d.id::text, d.kind, d.subject_id::text, d.sha256::text, ${isoSql('d.created_at')} AS created_at,
            d.prev_hash::text, d.entry_hash::text,
            CASE d.kind
              WHEN 'donation_note' THEN (SELECT n.pdf FROM donation_notes n WHERE n.donation_id = d.subject_id)
              WHEN 'donation_certificate' THEN (SELECT c.content FROM donation_certificates c WHERE c.id = d.subject_id)
              WHEN 'prevention_plan' THEN (SELECT convert_to(p.content::text, 'UTF8') FROM prevention_plans p WHERE p.id = d.subject_id)
            END AS content
     FROM register_documents d WHERE d.establishment_id = $1::uuid AND d.livemode = $2 ORDER BY d.seq`,
    [tenant.establishmentId, tenant.livemode],
  );
  return rows;
}

/** The agreements' signed PDFs, by agreement id. */
async function agreementDocuments(sql: Sql, ids: readonly string[]): Promise<Map<string, Buffer>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql.query<{ agreement_id: string; content: Buffer }>(
    'SELECT agreement_id::text, content FROM donation_agreement_documents WHERE agreement_id = ANY($1::uuid[]) ORDER BY agreement_id',
    [ids],
  );
  return new Map(rows.map((r) => [r.agreement_id, Buffer.from(r.content)]));
}

const zipAsync = (files: Zippable, mtime: Date) =>
  new Promise<Uint8Array>((resolve, reject) => {
    zip(files, { level: 6, mtime }, (err, data) => (err ? reject(err) : resolve(data)));
  });

/** Builds the dossier of `tenant` for `year` (this one, to date, by default); a year after this one is a 400. */
export async function buildDossier(
  deps: DossierDeps,
  tenant: Tenant,
  query: { year?: number | undefined; lang: PlanLanguage; agreements: boolean },
): Promise<Dossier> {
  const { sql } = deps;
  const { lang } = query;
  const now = deps.clock();
  const today = localDate(now, tenant.timezone);
  const year = query.year ?? Number(today.slice(0, 4));
  if (year > Number(today.slice(0, 4))) {
    throw validationError(`year: ${year} has not begun`, [{ path: 'year', message: 'must not be after the current year' }]);
  }
  const from = `${year}-01-01`;
  const end = `${year}-12-31`;
  const to = end < today ? end : today;

  const [csv, verification, checkpoints, documents, plans, obligations, esrs, hierarchy, agreements, measures, training, streams] =
    await Promise.all([
      exportRecordsCsv(deps, tenant, { from, to, include_superseded: true }, lang === 'es' ? 'es' : 'plain').then(async (stream) =>
        Buffer.concat((await stream.toArray()) as Buffer[]),
      ),
      verifyRecordChain(sql, tenant, { full: true }),
      listCheckpoints(sql, tenant, 100_000).then((list) => list.reverse()),
      documentEntries(sql, tenant),
      planVersionDocuments(sql, tenant, lang),
      obligationsFor(sql, tenant.establishmentId, lang, now),
      esrsE5(sql, tenant, year, now),
      hierarchyReport(sql, tenant, year, now),
      query.agreements ? listAgreements(sql, tenant.organizationId, { establishment_id: tenant.establishmentId }, now) : null,
      listPlanMeasures(sql, tenant, lang),
      listTrainingSessions(sql, tenant, year, now),
      listWasteStreams(sql, tenant.establishmentId),
    ]);
  const agreementPdfs = await agreementDocuments(
    sql,
    (agreements ?? []).filter((a) => a.document).map((a) => a.id),
  );

  const files: [string, Uint8Array][] = [];
  const add = (path: string, bytes: Uint8Array | string) => files.push([path, typeof bytes === 'string' ? text(bytes) : bytes]);

  add(
    'plan/versions.json',
    json(
      plans.map((p) => ({
        version: p.version,
        id: p.id,
        generated_at: p.generated_at,
        sha256: p.sha256,
        file: `plan/v${pad(p.version)}-${p.generated_at.slice(0, 10)}.md`,
      })),
    ),
  );
  for (const p of plans) add(`plan/v${pad(p.version)}-${p.generated_at.slice(0, 10)}.md`, p.markdown);
  add('plan/measures.json', json(measures));
  add(`plan/training-sessions-${year}.json`, json(training));

  const csvName = `register/records-${year}${lang === 'es' ? '-es' : ''}.csv`;
  add(csvName, csv);
  add('register/verification.json', json(verification));
  add(
    'register/checkpoints.json',
    json(
      checkpoints.map((c, i) => ({
        ...c,
        message: checkpointMessage(c),
        message_file: `register/checkpoints/${pad(i + 1)}.msg`,
        signature_file: `register/checkpoints/${pad(i + 1)}.sig`,
      })),
    ),
  );
  checkpoints.forEach((c, i) => {
    add(`register/checkpoints/${pad(i + 1)}.msg`, checkpointMessage(c));
    add(`register/checkpoints/${pad(i + 1)}.sig`, Buffer.from(c.signature, 'base64url'));
  });

  const entries = documents.map((d) => {
    const content = d.content ? Buffer.from(d.content) : null;
    // The bytes stored today are this entry's only if they still hash to it (a replaced certificate's newer entry holds them).
    const current = content !== null && sha256(content) === d.sha256;
    const file = current ? `documents/${pad(Number(d.seq))}-${d.kind}.${d.kind === 'prevention_plan' ? 'json' : 'pdf'}` : null;
    if (file && content) add(file, content);
    return {
      seq: Number(d.seq),
      id: d.id,
      kind: d.kind,
      subject_id: d.subject_id,
      sha256: d.sha256,
      created_at: d.created_at,
      prev_hash: d.prev_hash,
      entry_hash: d.entry_hash,
      file,
    };
  });
  add(
    'documents/entries.json',
    json({ establishment_id: tenant.establishmentId, livemode: tenant.livemode, genesis_hash: GENESIS_HASH, entries }),
  );

  const { keys } = deps.signer.jwks();
  add('keys/merma-checkpoint-keys.json', json({ keys }));
  for (const jwk of keys) {
    add(`keys/${jwk.kid}.pem`, createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString());
  }

  add('compliance/obligations.json', json(obligations));
  add(`compliance/esrs-e5-${year}.json`, json(esrs));
  add(`compliance/esrs-e5-${year}.csv`, await esrsE5Csv(esrs, lang));
  add(`compliance/hierarchy-${year}.json`, json(hierarchy));
  add('compliance/waste-streams.json', json(streams));
  // The year against each baseline (reduction.ts), one file.
  const baselines = await Promise.all(REDUCTION_BASELINES.map((baseline) => reduction(sql, tenant, { year, baseline }, now)));
  add(`compliance/reduction-${year}.json`, json(Object.fromEntries(REDUCTION_BASELINES.map((b, i) => [b, baselines[i]]))));

  add('donations/agreements.json', json(agreements ?? { omitted: 'Reading donation agreements needs the permission donations:read.' }));
  for (const [id, pdf] of agreementPdfs) add(`donations/agreements/${id}.pdf`, pdf);

  add('verify.mjs', DOSSIER_VERIFY_SCRIPT);
  add(
    'README.txt',
    DOSSIER_README[lang]({
      establishmentId: tenant.establishmentId,
      livemode: tenant.livemode,
      year,
      from,
      to,
      csv: csvName,
      checkpoints: checkpoints.length,
      firstKey: keys[0]?.kid ?? '',
    }),
  );
  add('SHA256SUMS', files.map(([path, bytes]) => `${sha256(bytes)}  ${path}\n`).join(''));

  const zippable: Zippable = {};
  for (const [path, bytes] of files) zippable[path] = bytes;
  // Every entry dated 1 January of the year, 00:00 as a local time: a ZIP stores local times, so
  // the same fields on every server whatever its time zone.
  const bytes = await zipAsync(zippable, new Date(year, 0, 1, 0, 0, 0));
  return { fileName: `merma-dossier-${year}-${tenant.establishmentId.slice(0, 8)}${tenant.livemode ? '' : '-test'}.zip`, bytes };
}
