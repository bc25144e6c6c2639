import type { DonationNote, ErrorDetail, SignDonationInput } from '@merma/schema';
import spanish from '../i18n/sign.es.json';
import {
  idDocumentProblem,
  nameProblem,
  normalizeIdDocument,
  type Problem,
  problemsFromDetails,
  type SignatureAnswer,
  signatureProblem,
  signatureSent,
  signerFieldOf,
} from './signer.ts';

/**
 * The signing form's state and its rules, kept apart from the screens so they can be tested alone:
 * what the volunteer answered per line, who signs and how, what is missing, the body sent to the
 * door (`POST …/signature`, @merma/schema's SignDonationInput), and the server's refusal (a 400's
 * `details`) put back on the fields it names.
 */

/** The common reasons to refuse a line, and `other` (said in the volunteer's words). */
export const REFUSAL_REASONS = ['no_cold_storage', 'packaging_damaged', 'too_close_to_date', 'not_needed', 'other'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Longest reason the server takes (@merma/schema: MAX_REFUSAL_REASON_LENGTH). */
export const MAX_REASON_LENGTH = 1000;

export type LineAnswer = { decision: 'accepted' } | { decision: 'refused'; reason: RefusalReason | null; detail: string };

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
  const name = nameProblem(form.name);
  if (name) problems.name = { code: name };
  const id = idDocumentProblem(form.idDocument);
  if (id) problems.id_document = { code: id };
  const signature = signatureProblem(form.signature);
  if (signature) problems.signature = { code: signature };
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
  return {
    lines,
    signer: { name: form.name.trim(), id_document: normalizeIdDocument(form.idDocument), signature: signatureSent(form.signature) },
  };
}

/**
 * A 400's details put back on the fields they name, for the body that was sent: `lines.3.reason`
 * is the reason of the fourth line sent, `signer.signature.png` the signature; a detail about the
 * answer as a whole (`lines`) or that names nothing the page shows goes to the form.
 */
export function problemsFromServer(sent: Pick<SignDonationInput, 'lines'>, details: readonly ErrorDetail[]): Problems {
  return problemsFromDetails<Field>(
    details,
    (path) => {
      const line = /^lines\.(\d+)(?:\.(\w+))?/.exec(path);
      const lineId = line ? sent.lines[Number(line[1])]?.line_id : undefined;
      if (lineId) return line?.[2] === 'reason' ? `detail:${lineId}` : `decision:${lineId}`;
      return signerFieldOf(path);
    },
    'form',
  );
}
