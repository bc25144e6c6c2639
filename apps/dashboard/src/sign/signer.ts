import type { ErrorDetail, SignDonationInput } from '@merma/schema';
import type spanish from '../i18n/sign.es.json';
import type { SignT } from './i18n.ts';

/**
 * What every signature through a link asks of the person signing, whatever they sign (a donation's
 * note, a year's certificate): their name, their identity document and the signature itself, drawn
 * or typed; the problems the page words for each, and a 400's details put back on the fields they name.
 */

/** Longest name and typed signature the server takes (@merma/schema: `text(200)`). */
export const MAX_NAME_LENGTH = 200;
/** Longest drawn signature the server takes, as a data URL (@merma/schema: MAX_SIGNATURE_PNG_BYTES in base64). */
export const MAX_SIGNATURE_DATA_URL_LENGTH = Math.ceil((200 * 1024 * 4) / 3) + 32;

export type SignatureAnswer = { kind: 'drawn'; png: string | null } | { kind: 'typed'; text: string };

/** What is wrong, worded by the page (`sign.problems.<code>`); `refused_by_server` carries the server's own (English) words. */
export type ProblemCode = keyof typeof spanish.sign.problems;
export type Problem = { code: ProblemCode; serverMessage?: string };

/** A problem in the reader's words. */
export const problemText = (t: SignT, problem: Problem | undefined): string | undefined =>
  problem ? t(`sign.problems.${problem.code}`, { message: problem.serverMessage ?? '' }) : undefined;

/** An identity document as written on paper (`12.345.678-z`): upper case, without spaces, dots or hyphens. */
export const normalizeIdDocument = (value: string): string => value.replace(/[\s.-]/g, '').toUpperCase();

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/**
 * A DNI's or NIE's control letter, checked when the number looks like one (a mistyped digit is
 * caught at the door, not by the tax office); anything else (a passport) needs only 3 to 30
 * characters, as the server asks.
 */
export function idDocumentProblem(raw: string): ProblemCode | null {
  const id = normalizeIdDocument(raw);
  if (!id) return 'id_required';
  if (/^\d{7,8}$/.test(id)) return 'id_letter_missing';
  const dni = /^(\d{7,8})([A-Z])$/.exec(id);
  if (dni) return DNI_LETTERS[Number(dni[1]) % 23] === dni[2] ? null : 'dni_letter';
  const nie = /^([XYZ])(\d{7})([A-Z])$/.exec(id);
  if (nie) {
    const number = Number(`${'XYZ'.indexOf(nie[1] as string)}${nie[2]}`);
    return DNI_LETTERS[number % 23] === nie[3] ? null : 'nie_letter';
  }
  if (id.length < 3) return 'id_too_short';
  if (id.length > 30) return 'id_too_long';
  return null;
}

export function nameProblem(raw: string): ProblemCode | null {
  const name = raw.trim();
  if (name.length < 2) return 'name_required';
  if (name.length > MAX_NAME_LENGTH) return 'name_too_long';
  return null;
}

export function signatureProblem(signature: SignatureAnswer): ProblemCode | null {
  if (signature.kind === 'drawn') {
    if (!signature.png) return 'signature_missing';
    if (signature.png.length > MAX_SIGNATURE_DATA_URL_LENGTH) return 'signature_too_large';
    return null;
  }
  const text = signature.text.trim();
  if (text.length < 2) return 'signature_too_short';
  if (text.length > MAX_NAME_LENGTH) return 'name_too_long';
  return null;
}

/** The signature as sent, for an answer `signatureProblem` passed. */
export function signatureSent(signature: SignatureAnswer): SignDonationInput['signer']['signature'] {
  if (signature.kind === 'typed') return { kind: 'typed', text: signature.text.trim() };
  if (!signature.png) throw new Error('no signature drawn');
  return { kind: 'drawn', png: signature.png };
}

/** The signer's field a 400's detail names (`signer.name`, `signer.signature.png`…), or null for another. */
export function signerFieldOf(path: string): 'name' | 'id_document' | 'signature' | null {
  if (path === 'signer.name') return 'name';
  if (path === 'signer.id_document') return 'id_document';
  if (path.startsWith('signer.signature')) return 'signature';
  return null;
}

/**
 * A 400's details put back on the fields `fieldOf` names; a detail that names nothing the page
 * shows, or a 400 without details, goes to `form` (the form as a whole). Two details on one field
 * are said together.
 */
export function problemsFromDetails<F extends string>(
  details: readonly ErrorDetail[],
  fieldOf: (path: string) => F | null,
  form: F,
): Partial<Record<F, Problem>> {
  const problems: Partial<Record<F, Problem>> = {};
  const put = (field: F, message: string) => {
    const before = problems[field];
    problems[field] = {
      code: 'refused_by_server',
      serverMessage: before?.serverMessage ? `${before.serverMessage}; ${message}` : message,
    };
  };
  for (const detail of details) put(fieldOf(detail.path) ?? form, detail.path ? `${detail.path}: ${detail.message}` : detail.message);
  if (details.length === 0) put(form, '');
  return problems;
}
