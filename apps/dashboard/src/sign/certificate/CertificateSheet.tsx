import { Alert, Paper, Stack, Text, Title } from '@mantine/core';
import type { CertificateToSign } from '@merma/schema';
import { IconAlertTriangle, IconFlask } from '@tabler/icons-react';
import type { Ref } from 'react';
import { formatDayOfYear, formatEuros, formatMoment, formatNumber } from '../format.ts';
import type { SignLanguage, SignT } from '../i18n.ts';
import classes from '../sign.module.css';

type Words = { t: SignT; locale: string };

/**
 * The certificate of Ley 49/2002 art. 24 as its signer reads it before signing, saying what the
 * signed PDF says (apps/server/src/modules/donations/tax-pdf.ts, `certificatePdf`): who gives and
 * who receives, a test certificate said as such, an entity outside the regime said to give no
 * deduction, every delivery of the year with its total, and what the entity certifies by signing.
 */
export function CertificateSheet({
  certificate,
  t,
  locale,
  language,
  headingRef,
}: Words & { certificate: CertificateToSign; language: SignLanguage; headingRef?: Ref<HTMLHeadingElement> }) {
  return (
    <>
      <Parties certificate={certificate} t={t} locale={locale} headingRef={headingRef} />
      <Deliveries certificate={certificate} t={t} locale={locale} />
      <Paper component="section" aria-labelledby="declaration-title" withBorder p="md" radius="md">
        <Title order={2} id="declaration-title" size="h3">
          {t('sign.certificate.declaration.title')}
        </Title>
        <Stack gap="xs" mt="xs">
          <Text>{t('sign.certificate.declaration.received', { year: certificate.year })}</Text>
          <Text>{t('sign.certificate.declaration.use')}</Text>
          <Text>{t('sign.certificate.declaration.purpose')}</Text>
          {language !== 'es' && (
            <Text size="sm" c="dimmed">
              {t('sign.certificate.declaration.spanish')}
            </Text>
          )}
        </Stack>
      </Paper>
    </>
  );
}

/** A test certificate said as such (the PDF says it on every page). */
export function TestMark({ t }: { t: SignT }) {
  return (
    <Alert mt="sm" role="note" color="yellow" variant="light" icon={<IconFlask aria-hidden />} title={t('sign.certificate.test.title')}>
      {t('sign.certificate.test.body')}
    </Alert>
  );
}

/** The heading, the law, a test certificate's mark, who receives and who gives, and an entity outside the regime. */
function Parties({ certificate, t, locale, headingRef }: Words & { certificate: CertificateToSign; headingRef?: Ref<HTMLHeadingElement> }) {
  const { entity, donor } = certificate;
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={1} size="h2" ref={headingRef} tabIndex={-1}>
        {t('sign.certificate.title', { year: certificate.year })}
      </Title>
      <Text size="sm" c="dimmed" mt={4}>
        {t('sign.certificate.law')}
      </Text>
      {!certificate.livemode && <TestMark t={t} />}
      <Text mt="sm">{t('sign.certificate.lead', { entity: entity.name, donor: donor.name, year: certificate.year })}</Text>
      <dl className={classes.facts}>
        <div>
          <dt>{t('sign.certificate.entity')}</dt>
          <dd>
            <div>{entity.name}</div>
            <div>{t('sign.certificate.nif', { nif: entity.nif })}</div>
          </dd>
        </div>
        <div>
          <dt>{t('sign.certificate.donor')}</dt>
          <dd>
            <div>{donor.name}</div>
            <div>{t('sign.certificate.cif', { cif: donor.cif })}</div>
          </dd>
        </div>
        {donor.establishments.length > 0 && (
          <div>
            <dt>{t('sign.certificate.establishments')}</dt>
            <dd>{donor.establishments.join(', ')}</dd>
          </div>
        )}
        <div>
          <dt>{t('sign.certificate.expiresAt')}</dt>
          <dd>{formatMoment(locale, certificate.expires_at)}</dd>
        </div>
      </dl>
      {!entity.regime_opted_in && (
        <Alert
          role="note"
          color="orange"
          variant="light"
          icon={<IconAlertTriangle aria-hidden />}
          title={t('sign.certificate.noRegime.title')}
        >
          {t('sign.certificate.noRegime.body')}
        </Alert>
      )}
    </Paper>
  );
}

/**
 * Every delivery of the year (day of handover, goods, kilos, value under art. 18) and the total.
 * Narrow enough for a phone held upright: the day without its year (the heading says it, and each
 * cell's `<time>` holds the whole date), the kilos as a number under their column's unit. A plain
 * table: Mantine's would bring its scroll area (about 20 kB) to the page's first load.
 */
function Deliveries({ certificate, t, locale }: Words & { certificate: CertificateToSign }) {
  return (
    <Paper component="section" aria-labelledby="deliveries-title" withBorder p={{ base: 'sm', xs: 'md' }} radius="md">
      <Title order={2} id="deliveries-title" size="h3">
        {t('sign.certificate.deliveries.title', { count: certificate.deliveries.length })}
      </Title>
      <table className={classes.deliveries} aria-labelledby="deliveries-title">
        <thead>
          <tr>
            <th scope="col">{t('sign.certificate.deliveries.date')}</th>
            <th scope="col">{t('sign.certificate.deliveries.goods')}</th>
            <th scope="col" data-figure>
              {t('sign.certificate.deliveries.kg')}
            </th>
            <th scope="col" data-figure>
              {t('sign.certificate.deliveries.value')}
            </th>
          </tr>
        </thead>
        <tbody>
          {certificate.deliveries.map((d, i) => (
            // The same goods may be handed over twice on one day: a row is its place in the list.
            // biome-ignore lint/suspicious/noArrayIndexKey: the list is read once and never reordered
            <tr key={i}>
              <td>
                <time dateTime={d.handed_over_on}>{formatDayOfYear(locale, d.handed_over_on)}</time>
              </td>
              <td>{d.description}</td>
              <td data-figure>{formatNumber(locale, d.net_kg)}</td>
              <td data-figure>{formatEuros(locale, d.value)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              {t('sign.certificate.deliveries.total')}
            </th>
            <td data-figure>{formatNumber(locale, certificate.totals.net_kg)}</td>
            <td data-figure>{formatEuros(locale, certificate.totals.value)}</td>
          </tr>
        </tfoot>
      </table>
      <Text size="sm" c="dimmed" mt="xs">
        {t('sign.certificate.deliveries.valueNote')}
      </Text>
    </Paper>
  );
}
