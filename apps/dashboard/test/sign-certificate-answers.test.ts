import { SignCertificateInput } from '@merma/schema';
import { describe, expect, it } from 'vitest';
import {
  type CertificateForm,
  certificateBody,
  certificateProblemsFromServer,
  emptyCertificateForm,
  MAX_PLACE_LENGTH,
  MAX_ROLE_LENGTH,
  validateCertificate,
} from '../src/sign/certificate/answers.ts';

/**
 * The certificate's signing rules (src/sign/certificate/answers.ts): what must be given before
 * anything is sent, the body sent (checked against the server's own schema, SignCertificateInput),
 * and a 400's details put back on the fields they name.
 */

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const complete = (): CertificateForm => ({
  name: '  Ana García ',
  idDocument: 'x-1234567-l',
  role: ' Presidenta ',
  place: ' Madrid ',
  signature: { kind: 'drawn', png: PNG },
});

describe('validateCertificate', () => {
  it('asks for who signs, their position, the place and a signature on an empty form', () => {
    expect(validateCertificate(emptyCertificateForm())).toEqual({
      name: { code: 'name_required' },
      id_document: { code: 'id_required' },
      role: { code: 'role_required' },
      place: { code: 'place_required' },
      signature: { code: 'signature_missing' },
    });
  });

  it('passes a complete form, and checks the document’s control letter', () => {
    expect(validateCertificate(complete())).toEqual({});
    expect(validateCertificate({ ...complete(), idDocument: '12345678Y' })).toEqual({ id_document: { code: 'dni_letter' } });
  });

  it('keeps the position and the place between 2 and 120 characters, as the server does', () => {
    expect(validateCertificate({ ...complete(), role: ' P ', place: 'M' })).toEqual({
      role: { code: 'role_required' },
      place: { code: 'place_required' },
    });
    expect(validateCertificate({ ...complete(), role: 'x'.repeat(MAX_ROLE_LENGTH + 1), place: 'y'.repeat(MAX_PLACE_LENGTH + 1) })).toEqual({
      role: { code: 'role_too_long' },
      place: { code: 'place_too_long' },
    });
    const longest = { ...complete(), role: 'x'.repeat(MAX_ROLE_LENGTH), place: 'y'.repeat(MAX_PLACE_LENGTH) };
    expect(validateCertificate(longest)).toEqual({});
    expect(SignCertificateInput.safeParse(certificateBody(longest)).success).toBe(true);
    expect(SignCertificateInput.safeParse(certificateBody({ ...longest, role: 'x'.repeat(MAX_ROLE_LENGTH + 1) })).success).toBe(false);
  });
});

describe('certificateBody', () => {
  it('is what the server’s schema takes: the signer and the place trimmed, the document normalised', () => {
    const body = certificateBody(complete());
    expect(body).toEqual({
      signer: { name: 'Ana García', id_document: 'X1234567L', role: 'Presidenta', signature: { kind: 'drawn', png: PNG } },
      place: 'Madrid',
    });
    expect(SignCertificateInput.safeParse(body).success).toBe(true);
    const typed = certificateBody({ ...complete(), signature: { kind: 'typed', text: ' Ana ' } });
    expect(typed.signer.signature).toEqual({ kind: 'typed', text: 'Ana' });
    expect(SignCertificateInput.safeParse(typed).success).toBe(true);
  });
});

describe('certificateProblemsFromServer', () => {
  const sent = certificateBody(complete());

  it('puts each detail on the field it names, and the rest on the form', () => {
    expect(
      certificateProblemsFromServer(sent, [
        { path: 'signer.role', message: 'too short' },
        { path: 'place', message: 'too short' },
        { path: 'signer.name', message: 'bad' },
        { path: 'signer.id_document', message: 'bad' },
        { path: 'signer.signature.png', message: 'is not a PNG image' },
        { path: 'signer.signature.png', message: 'too large' },
        { path: 'year', message: 'unrecognized key' },
      ]),
    ).toEqual({
      role: { code: 'refused_by_server', serverMessage: 'signer.role: too short' },
      place: { code: 'refused_by_server', serverMessage: 'place: too short' },
      name: { code: 'refused_by_server', serverMessage: 'signer.name: bad' },
      id_document: { code: 'refused_by_server', serverMessage: 'signer.id_document: bad' },
      signature: { code: 'refused_by_server', serverMessage: 'signer.signature.png: is not a PNG image; signer.signature.png: too large' },
      form: { code: 'refused_by_server', serverMessage: 'year: unrecognized key' },
    });
    expect(certificateProblemsFromServer(sent, [])).toEqual({ form: { code: 'refused_by_server', serverMessage: '' } });
  });
});
