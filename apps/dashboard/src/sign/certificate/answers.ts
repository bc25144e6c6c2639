import type { ErrorDetail, SignCertificateInput } from '@merma/schema';
import {
  idDocumentProblem,
  nameProblem,
  normalizeIdDocument,
  type Problem,
  type ProblemCode,
  problemsFromDetails,
  type SignatureAnswer,
  signatureProblem,
  signatureSent,
  signerFieldOf,
} from '../signer.ts';

/**
 * The certificate's signing form (Ley 49/2002 art. 24) and its rules, kept apart from the screen so
 * they can be tested alone: who signs (name, identity document, position in the entity), where the
 * certificate is issued, the signature; what is missing; the body sent to the door
 * (`POST /donation-link/certificates/{link_id}/signature`, @merma/schema's SignCertificateInput);
 * and a 400's details put back on the fields they name.
 */

/** Longest position and place the server takes (@merma/schema: `text(120)`). */
export const MAX_ROLE_LENGTH = 120;
export const MAX_PLACE_LENGTH = 120;

export type CertificateForm = {
  name: string;
  idDocument: string;
  role: string;
  place: string;
  signature: SignatureAnswer;
};

export const emptyCertificateForm = (): CertificateForm => ({
  name: '',
  idDocument: '',
  role: '',
  place: '',
  signature: { kind: 'drawn', png: null },
});

/** Where a problem is shown: a field, or the form as a whole. */
export type CertificateField = 'name' | 'id_document' | 'role' | 'place' | 'signature' | 'form';
export type CertificateProblems = Partial<Record<CertificateField, Problem>>;

/** The fields in the order they are on the page: the first one with a problem is focused. */
export const CERTIFICATE_FIELDS: readonly CertificateField[] = ['name', 'id_document', 'role', 'place', 'signature', 'form'];

/** A short text of 2 to `max` characters, as the server asks (`text(max).trim().min(2)`). */
function textProblem(raw: string, max: number, missing: ProblemCode, tooLong: ProblemCode): ProblemCode | null {
  const text = raw.trim();
  if (text.length < 2) return missing;
  if (text.length > max) return tooLong;
  return null;
}

/** Every problem of the form as it stands, by field; an empty object when it can be sent. */
export function validateCertificate(form: CertificateForm): CertificateProblems {
  const found: [CertificateField, ProblemCode | null][] = [
    ['name', nameProblem(form.name)],
    ['id_document', idDocumentProblem(form.idDocument)],
    ['role', textProblem(form.role, MAX_ROLE_LENGTH, 'role_required', 'role_too_long')],
    ['place', textProblem(form.place, MAX_PLACE_LENGTH, 'place_required', 'place_too_long')],
    ['signature', signatureProblem(form.signature)],
  ];
  const problems: CertificateProblems = {};
  for (const [field, code] of found) if (code) problems[field] = { code };
  return problems;
}

/** The body of `POST …/signature` for a form `validateCertificate` passed. */
export function certificateBody(form: CertificateForm): SignCertificateInput {
  return {
    signer: {
      name: form.name.trim(),
      id_document: normalizeIdDocument(form.idDocument),
      role: form.role.trim(),
      signature: signatureSent(form.signature),
    },
    place: form.place.trim(),
  };
}

/** A 400's details on the fields they name (`signer.role`, `place`, `signer.signature.png`…); the rest on the form. */
export function certificateProblemsFromServer(_sent: SignCertificateInput, details: readonly ErrorDetail[]): CertificateProblems {
  return problemsFromDetails<CertificateField>(
    details,
    (path) => {
      if (path === 'signer.role') return 'role';
      if (path === 'place') return 'place';
      return signerFieldOf(path);
    },
    'form',
  );
}
