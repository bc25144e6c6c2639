import { Alert, Badge, Button, Group, List, Loader, Select, Stack, Text, Title } from '@mantine/core';
import type { DonationTaxPack } from '@merma/schema';
import { TAX_PACK_MIN_YEAR } from '@merma/schema';
import { IconDownload, IconLink, IconUpload } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormat } from '../../lib/format.ts';
import { defaultTaxYear, taxPackOptions } from '../../queries.ts';
import { WHOLE_BADGE } from './badges.ts';
import { CertificateLinkModal } from './CertificateLinkModal.tsx';
import { SignedCertificateModal, type SignedCertificateTarget } from './SignedCertificateModal.tsx';
import { certificateUrl, taxPackFileUrl } from './tax-pack.ts';

type Taxpayer = DonationTaxPack['taxpayers'][number];
type Entity = Taxpayer['entities'][number];
type NoteCode = Entity['notes'][number]['code'];

/** The rate's own notes, which the rate column words; every other note is listed under Notes. */
const RATE_NOTES: readonly NoteCode[] = ['rate_general', 'rate_recurrence'];

/** The years offered: this year and the nine before it (the ten years an excess may be carried to), and the one shown. */
function yearChoices(shown: number): number[] {
  const last = defaultTaxYear() + 1;
  const years = Array.from({ length: 10 }, (_, i) => last - i).filter((y) => y >= TAX_PACK_MIN_YEAR);
  return years.includes(shown) ? years : [...years, shown].sort((a, b) => b - a);
}

type Props = {
  year: number;
  livemode: boolean;
  /** Owners and admins make the entities' signing links and upload the signed certificates. */
  manage: boolean;
  onYearChange: (year: number) => void;
};

/**
 * The donations' tax pack of a year (`donations.taxPack`, the organisation's, in the mode shown):
 * per company (CIF), each social entity given to with its Ley 49/2002 status, the art. 18 base
 * (book value capped at market value), the rate (40 %, 50 % on recurrence, with the two previous
 * years that decided it), the deduction and the notes — VAT included — in the reader's language by
 * their codes; the pack as CSV and PDF, each entity's certificate pre-filled to sign, and the one it
 * signed, to download or (owners and admins) upload, or to have signed through the entity's link
 * (owners and admins make it). The server decides who may upload or make a link whatever this page
 * shows.
 */
export function TaxPackSection({ year, livemode, manage, onYearChange }: Props) {
  const { t } = useTranslation('donations');
  const { data: pack, error, isPending } = useQuery(taxPackOptions(year, livemode));
  const [signing, setSigning] = useState<SignedCertificateTarget | null>(null);
  const [linking, setLinking] = useState<SignedCertificateTarget | null>(null);
  const of = { year, livemode };

  return (
    <Stack gap="sm" component="section" aria-labelledby="tax-pack-heading">
      <Title order={2} size="h3" id="tax-pack-heading">
        {t('donations.taxPack.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('donations.taxPack.description')}
      </Text>
      {!livemode && (
        <Alert color="blue" variant="light">
          {t('donations.taxPack.testMode')}
        </Alert>
      )}
      <Group gap="sm" align="flex-end" wrap="wrap">
        <Select
          label={t('donations.taxPack.year')}
          data={yearChoices(year).map(String)}
          value={String(year)}
          onChange={(value) => value && onYearChange(Number(value))}
          allowDeselect={false}
          w={140}
        />
        <Button
          component="a"
          href={taxPackFileUrl('csv', of)}
          download
          variant="default"
          leftSection={<IconDownload size={16} aria-hidden />}
          aria-label={t('donations.taxPack.downloadCsvLabel', { year })}
        >
          {t('donations.taxPack.downloadCsv')}
        </Button>
        <Button
          component="a"
          href={taxPackFileUrl('pdf', of)}
          download
          variant="default"
          leftSection={<IconDownload size={16} aria-hidden />}
          aria-label={t('donations.taxPack.downloadPdfLabel', { year })}
        >
          {t('donations.taxPack.downloadPdf')}
        </Button>
      </Group>
      {isPending ? (
        <Group gap="xs" role="status">
          <Loader size="sm" aria-hidden />
          <Text size="sm">{t('donations.taxPack.loading')}</Text>
        </Group>
      ) : error ? (
        <ErrorAlert error={error} />
      ) : (
        <>
          {!pack.rules.computed && (
            <Alert color="orange" variant="light">
              {t('donations.taxPack.notComputed')}
            </Alert>
          )}
          {pack.taxpayers.length === 0 && (
            <Text size="sm" c="dimmed" data-testid="tax-pack-empty">
              {t('donations.taxPack.empty', { year })}
            </Text>
          )}
          {pack.taxpayers.map((taxpayer) => (
            <TaxpayerTable
              key={taxpayer.cif}
              taxpayer={taxpayer}
              year={year}
              livemode={livemode}
              manage={manage}
              onSign={(entity) => setSigning({ entity, cif: taxpayer.cif, year, livemode })}
              onLink={(entity) => setLinking({ entity, cif: taxpayer.cif, year, livemode })}
            />
          ))}
        </>
      )}
      {!manage && (
        <Text size="sm" c="dimmed">
          {t('donations.taxPack.readOnly')}
        </Text>
      )}
      {signing && <SignedCertificateModal target={signing} onClose={() => setSigning(null)} />}
      {linking && <CertificateLinkModal target={linking} onClose={() => setLinking(null)} />}
    </Stack>
  );
}

/** A note by its code, in the reader's language. */
function useNoteText() {
  const { t } = useTranslation('donations');
  return (code: NoteCode) => t(`donations.taxPack.notes.${code}`);
}

/** One company's entities of the year, with its totals and its own notes. */
function TaxpayerTable({
  taxpayer,
  year,
  livemode,
  manage,
  onSign,
  onLink,
}: {
  taxpayer: Taxpayer;
  year: number;
  livemode: boolean;
  manage: boolean;
  onSign: (entity: Entity) => void;
  onLink: (entity: Entity) => void;
}) {
  const { t } = useTranslation('donations');
  const format = useFormat();
  const noteText = useNoteText();
  const of = { year, livemode };
  const { cif } = taxpayer;
  const labelOf = (e: Entity) => ({ entity: e.name, year, cif });
  // A single establishment's share (never on the dashboard, which reads the organisation) when a company's total is absent.
  const base = (e: Entity) => e.totals?.base ?? e.establishments.reduce((sum, s) => sum + s.base, 0);
  const deduction = (e: Entity) => e.totals?.deduction ?? e.establishments.reduce((sum, s) => sum + s.deduction, 0);
  /** The entity's notes and its donations' (their VAT), each once, but the rate's. */
  const notesOf = (e: Entity): NoteCode[] => {
    const codes = [...e.notes, ...taxpayer.donations.filter((d) => d.entity_id === e.entity_id).flatMap((d) => d.notes)].map((n) => n.code);
    return [...new Set(codes)].filter((code) => !RATE_NOTES.includes(code));
  };

  const columns: Column<Entity>[] = [
    {
      key: 'entity',
      header: t('donations.taxPack.columns.entity'),
      render: (e) => (
        <Stack gap={0}>
          <Text size="sm">{e.name}</Text>
          <Text size="xs" c="dimmed">
            {e.nif}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'status',
      header: t('donations.taxPack.columns.status'),
      render: (e) =>
        e.ley_49_2002.art2_entity || e.ley_49_2002.regime_opted_in ? (
          <Group gap={4}>
            {e.ley_49_2002.art2_entity && (
              <Badge styles={WHOLE_BADGE} variant="light" color="teal">
                {t('donations.taxPack.status.art2')}
              </Badge>
            )}
            {e.ley_49_2002.regime_opted_in && (
              <Badge styles={WHOLE_BADGE} variant="light" color="teal">
                {t('donations.taxPack.status.regime')}
              </Badge>
            )}
          </Group>
        ) : (
          <Text size="sm">{t('donations.taxPack.status.outside')}</Text>
        ),
    },
    {
      key: 'base',
      header: t('donations.taxPack.columns.base'),
      render: (e) => (
        <Stack gap={0}>
          <Text size="sm">{format.euros(base(e))}</Text>
          {e.totals && e.totals.market_value_cap > 0 && (
            <Text size="xs" c="dimmed">
              {t('donations.taxPack.bookValue', { book: format.euros(e.totals.book_value) })} ·{' '}
              {t('donations.taxPack.capped', { cap: format.euros(e.totals.market_value_cap) })}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'rate',
      header: t('donations.taxPack.columns.rate'),
      render: (e) => <Rate entity={e} />,
    },
    { key: 'deduction', header: t('donations.taxPack.columns.deduction'), render: (e) => format.euros(deduction(e)) },
    {
      key: 'notes',
      header: t('donations.taxPack.columns.notes'),
      render: (e) => {
        const codes = notesOf(e);
        return codes.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('donations.taxPack.noNotes')}
          </Text>
        ) : (
          <List size="xs" spacing={2}>
            {codes.map((code) => (
              <List.Item key={code} data-note={code}>
                {noteText(code)}
              </List.Item>
            ))}
          </List>
        );
      },
    },
    {
      key: 'certificate',
      header: t('donations.taxPack.columns.certificate'),
      render: (e) => (
        <Stack gap={4} align="flex-start">
          <Button
            component="a"
            href={certificateUrl('prefilled', e.entity_id, cif, of)}
            download
            size="xs"
            variant="subtle"
            leftSection={<IconDownload size={16} aria-hidden />}
            aria-label={t('donations.taxPack.prefilledLabel', labelOf(e))}
          >
            {t('donations.taxPack.prefilled')}
          </Button>
          {e.signed_certificate ? (
            <>
              <Text size="xs" data-testid="signed-received">
                {t('donations.taxPack.signedReceived', { date: format.dateTime(e.signed_certificate.uploaded_at) })}
              </Text>
              <Button
                component="a"
                href={certificateUrl('signed', e.entity_id, cif, of)}
                download
                size="xs"
                variant="subtle"
                leftSection={<IconDownload size={16} aria-hidden />}
                aria-label={t('donations.taxPack.downloadSignedLabel', labelOf(e))}
              >
                {t('donations.taxPack.downloadSigned')}
              </Button>
            </>
          ) : (
            <Text size="xs" c="dimmed">
              {t('donations.taxPack.signedNone')}
            </Text>
          )}
          {manage && (
            <>
              <Button
                size="xs"
                variant="default"
                leftSection={<IconUpload size={16} aria-hidden />}
                onClick={() => onSign(e)}
                aria-label={t(
                  e.signed_certificate ? 'donations.taxPack.replaceSignedLabel' : 'donations.taxPack.uploadSignedLabel',
                  labelOf(e),
                )}
              >
                {t(e.signed_certificate ? 'donations.taxPack.replaceSigned' : 'donations.taxPack.uploadSigned')}
              </Button>
              <Button
                size="xs"
                variant="default"
                leftSection={<IconLink size={16} aria-hidden />}
                onClick={() => onLink(e)}
                aria-label={t('donations.taxPack.link.actionLabel', labelOf(e))}
              >
                {t('donations.taxPack.link.action')}
              </Button>
            </>
          )}
        </Stack>
      ),
    },
  ];

  return (
    <Stack gap="xs">
      <Title order={3} size="h4">
        {t('donations.taxPack.company', { cif })}
      </Title>
      {taxpayer.totals && (
        <Text size="sm">
          {t('donations.taxPack.companyTotals', {
            base: format.euros(taxpayer.totals.base),
            deduction: format.euros(taxpayer.totals.deduction),
          })}
        </Text>
      )}
      {taxpayer.totals && taxpayer.totals.notes.length > 0 && (
        <List size="xs" spacing={2}>
          {taxpayer.totals.notes.map((n) => (
            <List.Item key={n.code} data-note={n.code}>
              {noteText(n.code)}
            </List.Item>
          ))}
        </List>
      )}
      <DataTable
        caption={t('donations.taxPack.caption', { cif, year })}
        columns={columns}
        rows={taxpayer.entities}
        rowKey={(e) => e.entity_id}
        empty={t('donations.taxPack.empty', { year })}
        minWidth={1100}
      />
    </Stack>
  );
}

/** The entity's rate and why: the company's gifts to it in the two previous years, or why there is none. */
function Rate({ entity }: { entity: Entity }) {
  const { t } = useTranslation('donations');
  const format = useFormat();
  if (entity.rate_pct === null) return <Text size="sm">{t('donations.taxPack.rate.notComputed')}</Text>;
  const [first, second] = entity.recurrence.years;
  const reason =
    entity.rate_pct === 0
      ? t('donations.taxPack.rate.notInRegime')
      : first && second
        ? t(entity.recurrence.met ? 'donations.taxPack.rate.recurrence' : 'donations.taxPack.rate.general', {
            first: format.euros(first.base),
            firstYear: first.year,
            second: format.euros(second.base),
            secondYear: second.year,
          })
        : null;
  return (
    <Stack gap={0}>
      <Text size="sm" fw={600}>
        {format.percent(entity.rate_pct / 100)}
      </Text>
      {reason && (
        <Text size="xs" c="dimmed">
          {reason}
        </Text>
      )}
    </Stack>
  );
}
