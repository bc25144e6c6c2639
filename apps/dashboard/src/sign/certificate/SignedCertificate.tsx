import { Paper, Stack, Text, Title } from '@mantine/core';
import type { CertificateToSign } from '@merma/schema';
import type { CertificateClient } from '../client.ts';
import { formatEuros, formatMoment, formatNumber } from '../format.ts';
import { useSignI18n } from '../i18n.ts';
import { Fingerprint } from '../parts/Fingerprint.tsx';
import { SignedTitle } from '../parts/SignedTitle.tsx';
import { TestMark } from './CertificateSheet.tsx';

export type SignedCertificateToSign = CertificateToSign & { signed: NonNullable<CertificateToSign['signed']> };

/** The PDF's name when saved: the year, the donor company and the entity, as the donor's files name it. */
export const certificateFilename = (c: CertificateToSign): string =>
  `certificado-donaciones-${c.year}-${c.donor.cif}-${c.entity.nif}${c.livemode ? '' : '-prueba'}.pdf`;

/**
 * The signed certificate: who signed, in what position and when; what was certified (the year,
 * the donor, the deliveries' count and totals); the PDF's SHA-256 and the PDF to download.
 */
export function SignedCertificate({
  certificate,
  alreadySigned,
  client,
}: {
  certificate: SignedCertificateToSign;
  alreadySigned: boolean;
  client: CertificateClient;
}) {
  const { t, locale } = useSignI18n();
  const { signed, donor, totals } = certificate;
  return (
    <Stack gap="lg">
      <SignedTitle
        title={t('sign.certificate.signed.title')}
        signedBy={t('sign.certificate.signed.by', { name: signed.name, role: signed.role, date: formatMoment(locale, signed.signed_at) })}
        already={alreadySigned ? t('sign.certificate.signed.already') : null}
      />

      <Paper component="section" aria-labelledby="certified-title" withBorder p="md" radius="md">
        <Title order={2} size="h3" id="certified-title">
          {t('sign.certificate.signed.summaryTitle')}
        </Title>
        <Text mt="xs">
          {t('sign.certificate.signed.totals', {
            year: certificate.year,
            count: certificate.deliveries.length,
            donor: donor.name,
            kg: formatNumber(locale, totals.net_kg),
            value: formatEuros(locale, totals.value),
          })}
        </Text>
        {!certificate.livemode && <TestMark t={t} />}
      </Paper>

      <Fingerprint
        title={t('sign.certificate.signed.hash')}
        sha256={signed.sha256}
        testId="certificate-sha256"
        files={[
          {
            label: t('sign.signed.downloadPdf'),
            filename: certificateFilename(certificate),
            fetch: client.download,
            primary: true,
          },
        ]}
        gone={t('sign.certificate.signed.downloadGone')}
      >
        {t('sign.certificate.signed.keep', { donor: donor.name, date: formatMoment(locale, certificate.expires_at) })}
      </Fingerprint>
    </Stack>
  );
}
