import type { PlanLanguage } from '@merma/schema';

/**
 * The two texts the inspection dossier (dossier.ts) ships beside its data: `verify.mjs`, a script
 * that checks the dossier with Node's own crypto and nothing from Merma, and `README.txt`, in the
 * dossier's language, saying what is in it and how to check it with Node, `sha256sum` or `openssl`.
 */
export const DOSSIER_VERIFY_SCRIPT = `#!/usr/bin/env node
// Checks this dossier with Node's own crypto (Node 18 or later) and nothing from Merma. Run it in the
// unzipped folder: node verify.mjs. It prints one line per check and exits with 1 if any fails.
//
// 1. Every file against SHA256SUMS.
// 2. Every checkpoint of register/checkpoints.json: its message, rebuilt from its fields, is the one
//    in its .msg file, and its Ed25519 signature (the .sig file) verifies with the public key it
//    names in keys/merma-checkpoint-keys.json.
// 3. The documents chain of documents/entries.json: each entry links to the one before it, and its
//    entry_hash is SHA-256(prev_hash + its canonical JSON); each document included hashes to its entry;
//    each checkpoint that signs a documents head names an entry of this chain.
// 4. The service's own verification of the record chain (register/verification.json) says valid,
//    and the newest checkpoint signs a head at or before the head it walked to.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const read = (path) => readFileSync(join(here, path));
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
let failed = 0;
function check(ok, what) {
  console.log(\`\${ok ? 'OK    ' : 'FAILED'} \${what}\`);
  if (!ok) failed++;
}

for (const line of read('SHA256SUMS').toString('utf8').split('\\n').filter(Boolean)) {
  const hash = line.slice(0, 64);
  const path = line.slice(66);
  let actual = null;
  try {
    actual = sha256(read(path));
  } catch {}
  check(actual === hash, \`\${path}: SHA-256 as listed\`);
}

const { keys } = JSON.parse(read('keys/merma-checkpoint-keys.json'));
const keyById = new Map(keys.map((k) => [k.kid, createPublicKey({ key: k, format: 'jwk' })]));
const checkpoints = JSON.parse(read('register/checkpoints.json'));
for (const c of checkpoints) {
  const mode = c.livemode ? 'live' : 'test';
  const message =
    c.documents_seq && c.documents_head_hash
      ? \`merma-checkpoint:v2|\${c.establishment_id}|\${mode}|\${c.seq}|\${c.head_hash}|\${c.documents_seq}|\${c.documents_head_hash}|\${c.signed_at}\`
      : \`merma-checkpoint:v1|\${c.establishment_id}|\${mode}|\${c.seq}|\${c.head_hash}|\${c.signed_at}\`;
  const key = keyById.get(c.key_id);
  const signature = read(c.signature_file);
  const ok =
    key !== undefined &&
    read(c.message_file).toString('utf8') === message &&
    signature.equals(Buffer.from(c.signature, 'base64url')) &&
    verify(null, Buffer.from(message, 'utf8'), key, signature);
  check(ok, \`checkpoint of record \${c.seq}\${c.documents_seq ? \` and document \${c.documents_seq}\` : ''}, signed \${c.signed_at} by \${c.key_id}\`);
}

const documents = JSON.parse(read('documents/entries.json'));
let prev = documents.genesis_hash;
const entryHashes = new Map();
for (const e of documents.entries) {
  const canonical = JSON.stringify({
    created_at: e.created_at,
    establishment_id: documents.establishment_id,
    id: e.id,
    kind: e.kind,
    livemode: documents.livemode,
    sha256: e.sha256,
    subject_id: e.subject_id,
  });
  check(e.prev_hash === prev && sha256(Buffer.from(prev + canonical, 'utf8')) === e.entry_hash, \`document \${e.seq} (\${e.kind}): chained\`);
  if (e.file) check(sha256(read(e.file)) === e.sha256, \`document \${e.seq}: \${e.file} is the document entered\`);
  entryHashes.set(e.seq, e.entry_hash);
  prev = e.entry_hash;
}
for (const c of checkpoints.filter((c) => c.documents_seq)) {
  check(entryHashes.get(c.documents_seq) === c.documents_head_hash, \`checkpoint of record \${c.seq}: its documents head is entry \${c.documents_seq} of the chain\`);
}

const verification = JSON.parse(read('register/verification.json'));
check(verification.valid === true, \`the record chain, \${verification.checked} records, verified by the service (\${verification.algorithm})\`);
const newest = checkpoints.at(-1);
if (newest) check(newest.seq <= verification.checked, \`the newest checkpoint (record \${newest.seq}) is within the chain verified\`);

console.log(failed === 0 ? 'All checks passed.' : \`\${failed} check(s) failed.\`);
process.exit(failed === 0 ? 0 : 1);
`;

export type ReadmeFacts = {
  establishmentId: string;
  livemode: boolean;
  year: number;
  from: string;
  to: string;
  csv: string;
  checkpoints: number;
  firstKey: string;
};

const OPENSSL = (key: string) =>
  `openssl pkeyutl -verify -pubin -inkey keys/${key || '<key_id>'}.pem -rawin -in register/checkpoints/0001.msg -sigfile register/checkpoints/0001.sig`;

export const DOSSIER_README: Record<PlanLanguage, (f: ReadmeFacts) => string> = {
  es: (f) => `Merma: dosier de inspección
===========================

Establecimiento ${f.establishmentId}${f.livemode ? '' : ' (modo de prueba: datos de prueba, no el registro real)'}
Año ${f.year}: del ${f.from} al ${f.to}

Contenido
---------
plan/                 Cada versión guardada del plan de prevención (Ley 1/2025, art. 6), la
                      más reciente al final (el plan vigente); versions.json: número, fecha y SHA-256;
                      measures.json: el seguimiento de cada medida; training-sessions: la formación del año.
${f.csv.padEnd(22)}Los registros del año, incluidos los sustituidos por una corrección, con el hash de cada uno.
register/verification.json
                      La verificación completa de la cadena de registros hecha por Merma.
register/checkpoints.json y register/checkpoints/
                      Los ${f.checkpoints} puntos de control firmados (Ed25519): mensaje (.msg) y firma (.sig).
documents/            La cadena de documentos del registro (albaranes de donación firmados,
                      certificados, versiones del plan) y cada documento que sigue guardado.
keys/                 Las claves públicas de Merma (JWKS y PEM).
compliance/           "¿Estoy obligado?", las cifras ESRS E5-5 del año, las jerarquías
                      justificadas (art. 5.2) y el código LER y el gestor autorizado (NIMA)
                      de cada residuo, tal como los responde la API.
donations/            Los convenios de donación del establecimiento (art. 7) y sus PDF firmados.
SHA256SUMS            El SHA-256 de cada uno de los demás archivos.

Cómo comprobarlo sin Merma
--------------------------
1. Con Node 18 o posterior, en la carpeta descomprimida:   node verify.mjs
   Comprueba cada archivo, cada firma, la cadena de documentos y la verificación de la cadena.
2. Los archivos, con las herramientas del sistema:          sha256sum -c SHA256SUMS
3. Una firma, con OpenSSL 3:
   ${OPENSSL(f.firstKey)}
   (la clave de cada punto de control es su key_id en register/checkpoints.json).

El mismo registro da siempre los mismos bytes: el dosier solo cambia si cambian el registro, el plan,
los convenios o los datos del establecimiento.
`,
  en: (f) => `Merma: inspection dossier
=========================

Establishment ${f.establishmentId}${f.livemode ? '' : ' (test mode: test data, not the real register)'}
Year ${f.year}: ${f.from} to ${f.to}

Contents
--------
plan/                 Every stored version of the prevention plan (Ley 1/2025, art. 6), the
                      newest last (the plan in force); versions.json: number, date and SHA-256;
                      measures.json: each measure's follow-up; training-sessions: the year's training.
${f.csv.padEnd(22)}The year's records, those replaced by a correction included, each with its hash.
register/verification.json
                      Merma's full verification of the record chain.
register/checkpoints.json and register/checkpoints/
                      The ${f.checkpoints} signed checkpoints (Ed25519): message (.msg) and signature (.sig).
documents/            The register's documents chain (signed donation notes, certificates,
                      plan versions) and each document still stored.
keys/                 Merma's public keys (JWKS and PEM).
compliance/           "Am I obliged?", the year's ESRS E5-5 figures, the justified
                      hierarchy (art. 5.2) and each waste stream's LER code and authorised
                      manager (NIMA), as the API answers them.
donations/            The establishment's donation agreements (art. 7) and their signed PDFs.
SHA256SUMS            The SHA-256 of every other file.

How to check it without Merma
-----------------------------
1. With Node 18 or later, in the unzipped folder:          node verify.mjs
   It checks every file, every signature, the documents chain and the chain's verification.
2. The files, with the system's tools:                     sha256sum -c SHA256SUMS
3. One signature, with OpenSSL 3:
   ${OPENSSL(f.firstKey)}
   (each checkpoint's key is its key_id in register/checkpoints.json).

The same register always gives the same bytes: the dossier changes only when the register, the plan,
the agreements or the establishment's facts change.
`,
};
