import { Button, Stack, Text, TextInput, Title } from '@mantine/core';
import type { CertificateToSign, SignCertificateInput } from '@merma/schema';
import { IconSignature } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { useSignI18n } from '../i18n.ts';
import { FormSummary } from '../parts/FormSummary.tsx';
import { SignatureField } from '../parts/SignatureField.tsx';
import { SignerFields } from '../parts/SignerFields.tsx';
import { problemText } from '../signer.ts';
import { useSignForm } from '../use-sign-form.ts';
import {
  CERTIFICATE_FIELDS,
  type CertificateField,
  certificateBody,
  certificateProblemsFromServer,
  emptyCertificateForm,
  type CertificateForm as Form,
  MAX_PLACE_LENGTH,
  MAX_ROLE_LENGTH,
  validateCertificate,
} from './answers.ts';
import { CertificateSheet } from './CertificateSheet.tsx';

/**
 * The certificate and the form to sign it: who signs (name, identity document, position in the
 * entity), where it is issued, the signature, Sign. Nothing is sent until the form is complete;
 * then the first field with a problem takes focus and the count of problems is announced; a
 * refusal from the server (400) is put back on the fields it names the same way (use-sign-form.ts).
 */
export function CertificateForm({
  certificate,
  onSign,
}: {
  certificate: CertificateToSign;
  onSign: (body: SignCertificateInput) => Promise<void>;
}) {
  const { t, locale, language } = useSignI18n();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { form, update, problems, count, focusTarget, submit, busy, sendProblem, alertRef } = useSignForm<
    Form,
    CertificateField,
    SignCertificateInput
  >({
    initial: emptyCertificateForm,
    validate: validateCertificate,
    order: CERTIFICATE_FIELDS,
    body: certificateBody,
    fromServer: certificateProblemsFromServer,
    onSign,
  });

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  return (
    <form onSubmit={submit} noValidate aria-busy={busy}>
      <Stack gap="lg">
        <CertificateSheet certificate={certificate} t={t} locale={locale} language={language} headingRef={headingRef} />

        <Stack component="section" aria-labelledby="signer-title" gap="sm">
          <Title order={2} id="signer-title" size="h3">
            {t('sign.certificate.signer.title')}
          </Title>
          <SignerFields
            name={form.name}
            idDocument={form.idDocument}
            onChange={(change) => update((f) => ({ ...f, ...change }))}
            problems={problems}
            focusTarget={focusTarget}
            t={t}
          />
          <TextInput
            ref={focusTarget('role')}
            id="signer-role"
            size="lg"
            label={t('sign.certificate.signer.role')}
            description={t('sign.certificate.signer.roleHint')}
            autoComplete="organization-title"
            maxLength={MAX_ROLE_LENGTH}
            value={form.role}
            onChange={(e) => {
              const role = e.currentTarget.value;
              update((f) => ({ ...f, role }));
            }}
            error={problemText(t, problems.role)}
            required
          />
          <TextInput
            ref={focusTarget('place')}
            id="certificate-place"
            size="lg"
            label={t('sign.certificate.signer.place')}
            description={t('sign.certificate.signer.placeHint')}
            autoComplete="address-level2"
            maxLength={MAX_PLACE_LENGTH}
            value={form.place}
            onChange={(e) => {
              const place = e.currentTarget.value;
              update((f) => ({ ...f, place }));
            }}
            error={problemText(t, problems.place)}
            required
          />
        </Stack>

        <Stack component="section" aria-labelledby="signature-title" gap="sm">
          <Title order={2} id="signature-title" size="h3">
            {t('sign.certificate.signatureTitle')}
          </Title>
          <SignatureField
            value={form.signature}
            onChange={(signature) => update((f) => ({ ...f, signature }))}
            problem={problems.signature}
            focusTarget={focusTarget('signature')}
            t={t}
          />
        </Stack>

        <Text>{t('sign.certificate.statement', { entity: certificate.entity.name })}</Text>

        <FormSummary count={count} sendProblem={sendProblem} formProblem={problems.form} alertRef={alertRef} t={t} />

        <Button type="submit" size="xl" fullWidth loading={busy} leftSection={<IconSignature aria-hidden />}>
          {busy ? t('sign.submitting') : t('sign.certificate.submit')}
        </Button>
      </Stack>
    </form>
  );
}
