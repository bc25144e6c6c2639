import type { DonationNote, ErrorDetail, SignDonationInput } from '@merma/schema';
import spanish from '../i18n/sign.es.json';

/**
 * The signing form's state and its rules, kept apart from the screens so they can be tested alone:
 * what the volunteer answered per line, who signs and how, what is missing, the body sent to the
 * door (`POST …/signature`, @merma/schema's SignDonationInput), and the server's refusal (a 400's
 * `details`) put back on the fields it names.
 */

/** The common reasons to refuse a line, and `other` (said in the volunteer's words). */
export const REFUSAL_REASONS = ['no_cold_storage', 'packaging_damaged', 'too_close_to_date', 'not_needed', 'other'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Longest reason and signature text the server takes (@merma/schema: MAX_REFUSAL_REASON_LENGTH, `text(200)`). */
export const MAX_REASON_LENGTH = 1000;
export const MAX_NAME_LENGTH = 200;
/** Longest drawn signature the server takes, as a data URL (@merma/schema: MAX_SIGNATURE_PNG_BYTES in base64). */
export const MAX_SIGNATURE_DATA_URL_LENGTH = Math.ceil((200 * 1024 * 4) / 3) + 32;

export type LineAnswer = { decision: 'accepted' } | { decision: 'refused'; reason: RefusalReason | null; detail: string };

export type SignatureAnswer = { kind: 'drawn'; png: string | null } | { kind: 'typed'; text: string };

export type SignForm = {
  /** Each line's answer, by line id; none until chosen. */
  lines: Record<string, LineAnswer | undefined>;
  name: string;
  idDocument: string;
  signature: SignatureAnswer;
  consent: boolean;
};

export const emptyForm = (): SignForm => ({
  lines: {},
  name: '',
  idDocument: '',
  signature: { kind: 'drawn', png: null },
  consent: false,
});

/** Where a problem is shown: a line's decision, its reason or its reason's words, a signer field, or the form as a whole. */
export type Field =
  | `decision:${string}`
  | `reason:${string}`
  | `detail:${string}`
  | 'name'
  | 'id_document'
  | 'signature'
  | 'consent'
  | 'form';

/** What is wrong, worded by the page (`sign.problems.<code>`). */
export type ProblemCode =
  | 'choose_decision'
  | 'choose_reason'
  | 'detail_required'
  | 'detail_too_long'
  | 'name_required'
  | 'name_too_long'
  | 'id_required'
  | 'id_too_short'
  | 'id_too_long'
  | 'dni_letter'
  | 'nie_letter'
  | 'id_letter_missing'
  | 'signature_missing'
  | 'signature_too_short'
  | 'signature_too_large'
  | 'consent_required'
  /** The server refused the field: its own (English) words are in `serverMessage`. */
  | 'refused_by_server';

export type Problem = { code: ProblemCode; serverMessage?: string };
export type Problems = Partial<Record<Field, Problem>>;

/** The fields of a note in the order they are on the page: the first one with a problem is focused. */
export function fieldOrder(note: Pick<DonationNote, 'lines'>): Field[] {
  return [
    ...note.lines.flatMap((l): Field[] => [`decision:${l.id}`, `reason:${l.id}`, `detail:${l.id}`]),
    'name',
    'id_document',
    'signature',
    'consent',
    'form',
  ];
}

export function firstProblem(note: Pick<DonationNote, 'lines'>, problems: Problems): Field | undefined {
  return fieldOrder(note).find((f) => problems[f] !== undefined);
}

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

/** The reason a refused line is recorded with on the note (Spanish, the note's language) from the volunteer's choice and words. */
export function reasonText(answer: Extract<LineAnswer, { decision: 'refused' }>): string {
  const detail = answer.detail.trim();
  if (answer.reason === null || answer.reason === 'other') return detail;
  const preset = spanish.sign.reasons[answer.reason];
  return detail ? `${preset}: ${detail}` : preset;
}

/** Every problem of the form as it stands, by field; an empty object when it can be sent. */
export function validate(note: Pick<DonationNote, 'lines'>, form: SignForm): Problems {
  const problems: Problems = {};
  for (const line of note.lines) {
    const answer = form.lines[line.id];
    if (!answer) {
      problems[`decision:${line.id}`] = { code: 'choose_decision' };
      continue;
    }
    if (answer.decision === 'accepted') continue;
    if (answer.reason === null) problems[`reason:${line.id}`] = { code: 'choose_reason' };
    else if (answer.reason === 'other' && !answer.detail.trim()) problems[`detail:${line.id}`] = { code: 'detail_required' };
    else if (reasonText(answer).length > MAX_REASON_LENGTH) problems[`detail:${line.id}`] = { code: 'detail_too_long' };
  }
  const name = form.name.trim();
  if (name.length < 2) problems.name = { code: 'name_required' };
  else if (name.length > MAX_NAME_LENGTH) problems.name = { code: 'name_too_long' };
  const id = idDocumentProblem(form.idDocument);
  if (id) problems.id_document = { code: id };
  const signature = form.signature;
  if (signature.kind === 'drawn') {
    if (!signature.png) problems.signature = { code: 'signature_missing' };
    else if (signature.png.length > MAX_SIGNATURE_DATA_URL_LENGTH) problems.signature = { code: 'signature_too_large' };
  } else if (signature.text.trim().length < 2) problems.signature = { code: 'signature_too_short' };
  else if (signature.text.trim().length > MAX_NAME_LENGTH) problems.signature = { code: 'name_too_long' };
  if (!form.consent) problems.consent = { code: 'consent_required' };
  return problems;
}

/** The body of `POST …/signature` for a form `validate` passed: every line once, in the note's order. */
export function signatureBody(note: Pick<DonationNote, 'lines'>, form: SignForm): SignDonationInput {
  const lines = note.lines.map((line): SignDonationInput['lines'][number] => {
    const answer = form.lines[line.id];
    if (!answer) throw new Error(`line ${line.id} has no answer`);
    return answer.decision === 'accepted'
      ? { line_id: line.id, decision: 'accepted' }
      : { line_id: line.id, decision: 'refused', reason: reasonText(answer) };
  });
  const signature = form.signature;
  if (signature.kind === 'drawn' && !signature.png) throw new Error('no signature drawn');
  return {
    lines,
    signer: {
      name: form.name.trim(),
      id_document: normalizeIdDocument(form.idDocument),
      signature:
        signature.kind === 'drawn' ? { kind: 'drawn', png: signature.png as string } : { kind: 'typed', text: signature.text.trim() },
    },
  };
}

/**
 * A 400's details put back on the fields they name, for the body that was sent: `lines.3.reason`
 * is the reason of the fourth line sent, `signer.signature.png` the signature; a detail about the
 * answer as a whole (`lines`) or that names nothing the page shows goes to the form.
 */
export function problemsFromServer(sent: Pick<SignDonationInput, 'lines'>, details: readonly ErrorDetail[]): Problems {
  const problems: Problems = {};
  const put = (field: Field, message: string) => {
    const before = problems[field];
    problems[field] = {
      code: 'refused_by_server',
      serverMessage: before?.serverMessage ? `${before.serverMessage}; ${message}` : message,
    };
  };
  for (const detail of details) {
    const message = detail.path ? `${detail.path}: ${detail.message}` : detail.message;
    const line = /^lines\.(\d+)(?:\.(\w+))?/.exec(detail.path);
    const lineId = line ? sent.lines[Number(line[1])]?.line_id : undefined;
    if (lineId) put(line?.[2] === 'reason' ? `detail:${lineId}` : `decision:${lineId}`, message);
    else if (detail.path === 'signer.name') put('name', message);
    else if (detail.path === 'signer.id_document') put('id_document', message);
    else if (detail.path.startsWith('signer.signature')) put('signature', message);
    else put('form', message);
  }
  if (details.length === 0) put('form', '');
  return problems;
}
