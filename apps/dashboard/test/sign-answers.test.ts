import { MAX_REFUSAL_REASON_LENGTH, MAX_SIGNATURE_PNG_BYTES, SignDonationInput } from '@merma/schema';
import { describe, expect, it } from 'vitest';
import {
  emptyForm,
  firstProblem,
  MAX_REASON_LENGTH,
  problemsFromServer,
  reasonText,
  type SignForm,
  signatureBody,
  validate,
} from '../src/sign/answers.ts';
import { idDocumentProblem, MAX_SIGNATURE_DATA_URL_LENGTH } from '../src/sign/signer.ts';

/**
 * The signing page's rules (src/sign/answers.ts): what must be answered before anything is sent,
 * the body sent (checked against the server's own schema), the reason recorded for a refusal, the
 * DNI/NIE control letter, and a 400's details put back on the fields they name.
 */

const A = '5f0e8a4e-1b7c-4c3a-9d8e-000000000001';
const B = '5f0e8a4e-1b7c-4c3a-9d8e-000000000002';
const note = { lines: [{ id: A }, { id: B }] } as Parameters<typeof validate>[0];
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const complete = (): SignForm => ({
  lines: { [A]: { decision: 'accepted' }, [B]: { decision: 'refused', reason: 'packaging_damaged', detail: '' } },
  name: '  Lucía Pérez ',
  idDocument: '12.345.678-z',
  signature: { kind: 'drawn', png: PNG },
  consent: true,
});

describe('validate', () => {
  it('asks for every answer, the signer, a signature and the consent on an empty form', () => {
    expect(validate(note, emptyForm())).toEqual({
      [`decision:${A}`]: { code: 'choose_decision' },
      [`decision:${B}`]: { code: 'choose_decision' },
      name: { code: 'name_required' },
      id_document: { code: 'id_required' },
      signature: { code: 'signature_missing' },
      consent: { code: 'consent_required' },
    });
  });

  it('passes a complete form', () => {
    expect(validate(note, complete())).toEqual({});
  });

  it('asks a refusal for its reason, and "another reason" for its words', () => {
    const form = complete();
    form.lines[B] = { decision: 'refused', reason: null, detail: 'roto' };
    expect(validate(note, form)).toEqual({ [`reason:${B}`]: { code: 'choose_reason' } });
    form.lines[B] = { decision: 'refused', reason: 'other', detail: '   ' };
    expect(validate(note, form)).toEqual({ [`detail:${B}`]: { code: 'detail_required' } });
    form.lines[B] = { decision: 'refused', reason: 'other', detail: 'x'.repeat(MAX_REASON_LENGTH + 1) };
    expect(validate(note, form)).toEqual({ [`detail:${B}`]: { code: 'detail_too_long' } });
  });

  it('asks a typed signature for at least two characters, and refuses a drawing larger than the server takes', () => {
    expect(validate(note, { ...complete(), signature: { kind: 'typed', text: ' L ' } })).toEqual({
      signature: { code: 'signature_too_short' },
    });
    expect(validate(note, { ...complete(), signature: { kind: 'typed', text: 'Lucía Pérez' } })).toEqual({});
    const huge = `data:image/png;base64,${'A'.repeat(MAX_SIGNATURE_DATA_URL_LENGTH)}`;
    expect(validate(note, { ...complete(), signature: { kind: 'drawn', png: huge } })).toEqual({
      signature: { code: 'signature_too_large' },
    });
  });

  it('keeps the limits the server keeps', () => {
    expect(MAX_REASON_LENGTH).toBe(MAX_REFUSAL_REASON_LENGTH);
    expect(MAX_SIGNATURE_DATA_URL_LENGTH).toBe(Math.ceil((MAX_SIGNATURE_PNG_BYTES * 4) / 3) + 32);
  });

  it('names first the first field on the page with a problem', () => {
    const form = complete();
    form.lines[A] = undefined;
    form.consent = false;
    expect(firstProblem(note, validate(note, form))).toBe(`decision:${A}`);
    expect(firstProblem(note, { consent: { code: 'consent_required' }, name: { code: 'name_required' } })).toBe('name');
    expect(firstProblem(note, {})).toBeUndefined();
  });
});

describe('idDocumentProblem', () => {
  it.each([
    ['12345678Z', null],
    ['12.345.678-z', null],
    ['1234567L', null], // an old 7-digit DNI: 1234567 % 23 = 19 → L
    ['X1234567L', null],
    ['Y1234567X', null],
    ['Z1234567R', null],
    ['PAB123456', null], // a passport
    ['12345678Y', 'dni_letter'],
    ['X1234567T', 'nie_letter'],
    ['12345678', 'id_letter_missing'],
    ['', 'id_required'],
    ['AB', 'id_too_short'],
    ['A'.repeat(31), 'id_too_long'],
  ])('%s → %s', (id, problem) => {
    expect(idDocumentProblem(id)).toBe(problem);
  });
});

describe('reasonText', () => {
  it('records a common reason in Spanish, the note’s language, with the volunteer’s words after it', () => {
    expect(reasonText({ decision: 'refused', reason: 'no_cold_storage', detail: '' })).toBe('Sin espacio en frío');
    expect(reasonText({ decision: 'refused', reason: 'packaging_damaged', detail: ' dos cajas ' })).toBe('Envase dañado: dos cajas');
    expect(reasonText({ decision: 'refused', reason: 'other', detail: ' No tenemos furgoneta ' })).toBe('No tenemos furgoneta');
  });
});

describe('signatureBody', () => {
  it('is what the server’s schema takes: every line once, in order, the signer trimmed, the document normalised', () => {
    const body = signatureBody(note, complete());
    expect(body).toEqual({
      lines: [
        { line_id: A, decision: 'accepted' },
        { line_id: B, decision: 'refused', reason: 'Envase dañado' },
      ],
      signer: { name: 'Lucía Pérez', id_document: '12345678Z', signature: { kind: 'drawn', png: PNG } },
    });
    expect(SignDonationInput.safeParse(body).success).toBe(true);
    const typed = signatureBody(note, { ...complete(), signature: { kind: 'typed', text: ' Lucía ' } });
    expect(typed.signer.signature).toEqual({ kind: 'typed', text: 'Lucía' });
    expect(SignDonationInput.safeParse(typed).success).toBe(true);
  });
});

describe('problemsFromServer', () => {
  const sent = signatureBody(note, complete());

  it('puts each detail on the field it names, by the line’s place in the body sent', () => {
    expect(
      problemsFromServer(sent, [
        { path: 'lines.1.reason', message: 'Too small: expected string to have >=1 characters' },
        { path: 'lines.0.line_id', message: 'is not a line of this donation' },
        { path: 'signer.name', message: 'too short' },
        { path: 'signer.id_document', message: 'bad' },
        { path: 'signer.signature.png', message: 'is not a PNG image' },
        { path: 'lines', message: 'every line needs an answer; missing: line 3' },
      ]),
    ).toEqual({
      [`detail:${B}`]: { code: 'refused_by_server', serverMessage: 'lines.1.reason: Too small: expected string to have >=1 characters' },
      [`decision:${A}`]: { code: 'refused_by_server', serverMessage: 'lines.0.line_id: is not a line of this donation' },
      name: { code: 'refused_by_server', serverMessage: 'signer.name: too short' },
      id_document: { code: 'refused_by_server', serverMessage: 'signer.id_document: bad' },
      signature: { code: 'refused_by_server', serverMessage: 'signer.signature.png: is not a PNG image' },
      form: { code: 'refused_by_server', serverMessage: 'lines: every line needs an answer; missing: line 3' },
    });
  });

  it('sends to the form a detail on a line that was not sent, or none at all', () => {
    expect(problemsFromServer(sent, [{ path: 'lines.7.reason', message: 'x' }])).toEqual({
      form: { code: 'refused_by_server', serverMessage: 'lines.7.reason: x' },
    });
    expect(problemsFromServer(sent, [])).toEqual({ form: { code: 'refused_by_server', serverMessage: '' } });
  });
});
