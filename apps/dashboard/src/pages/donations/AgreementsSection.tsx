import { Badge, Button, Code, Group, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { SocialEntity } from '@merma/schema';
import type { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { IconAlertTriangle, IconDownload } from '@tabler/icons-react';
import { useNavigate } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { useFormat } from '../../lib/format.ts';
import { useScope } from '../../lib/scope.ts';
import type { DonationsSearch } from '../../lib/search.ts';
import { WHOLE_BADGE } from './badges.ts';
import { documentUrl } from './document.ts';

type Agreement = DashboardDonationAgreement;

/** The filters' "all" choice (a Select's value is a string). */
const ALL = 'all';

const STATUS_COLOR = { draft: 'gray', active: 'teal', expiring: 'orange', expired: 'red' } as const;

type Props = {
  agreements: Agreement[];
  entities: SocialEntity[];
  search: DonationsSearch;
  manage: boolean;
  onEdit: (agreement: Agreement | 'new') => void;
  onDocument: (agreement: Agreement) => void;
};

/**
 * The agreements, the latest ending first, filtered by entity and by establishment covered (in the
 * URL): each with its validity, its status and, when it ends within 30 days, how many days it has
 * left; the signed PDF to download, or that there is none yet. A row opens to all its terms and the
 * document's SHA-256.
 */
export function AgreementsSection({ agreements, entities, search, manage, onEdit, onDocument }: Props) {
  const { t } = useTranslation('donations');
  const { me } = useScope();
  const format = useFormat();
  const navigate = useNavigate({ from: '/donations' });
  const establishmentName = (id: string) => me.establishments.find((e) => e.id === id)?.name ?? id;
  const filter = (changes: Partial<DonationsSearch>) => void navigate({ search: (prev) => ({ ...prev, ...changes }) });

  const columns: Column<Agreement>[] = [
    { key: 'entity', header: t('donations.agreements.columns.entity'), render: (a) => a.entity_name },
    { key: 'status', header: t('donations.agreements.columns.status'), render: (a) => <AgreementStatus agreement={a} /> },
    {
      key: 'establishments',
      header: t('donations.agreements.columns.establishments'),
      render: (a) => a.establishment_ids.map(establishmentName).join(', '),
    },
    {
      key: 'validity',
      header: t('donations.agreements.columns.validity'),
      render: (a) => (
        <Stack gap={0}>
          <Text size="sm">
            {t('donations.agreements.validity', { from: format.date(a.valid_from), until: format.date(a.valid_until) })}
          </Text>
          {a.renewal === 'automatic_yearly' && (
            <Text size="xs" c="dimmed">
              {t('donations.agreements.renewal.automatic_yearly')}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'document',
      header: t('donations.agreements.columns.document'),
      render: (a) =>
        a.document ? (
          <Button
            component="a"
            href={documentUrl(a.id)}
            download
            size="xs"
            variant="subtle"
            leftSection={<IconDownload size={16} aria-hidden />}
            aria-label={t('donations.document.downloadLabel', { entity: a.entity_name })}
          >
            {t('donations.document.download')}
          </Button>
        ) : (
          <Text size="sm" c="dimmed">
            {t('donations.document.none')}
          </Text>
        ),
    },
    ...(manage
      ? [
          {
            key: 'actions',
            header: t('donations.agreements.columns.actions'),
            render: (a: Agreement) => (
              <Group gap="xs" wrap="nowrap">
                <Button
                  size="xs"
                  variant="default"
                  onClick={() => onEdit(a)}
                  aria-label={t('donations.agreements.editLabel', { entity: a.entity_name })}
                >
                  {t('donations.agreements.edit')}
                </Button>
                <Button
                  size="xs"
                  variant="default"
                  onClick={() => onDocument(a)}
                  aria-label={t(a.document ? 'donations.document.replaceLabel' : 'donations.document.uploadLabel', {
                    entity: a.entity_name,
                  })}
                >
                  {t(a.document ? 'donations.document.replace' : 'donations.document.upload')}
                </Button>
              </Group>
            ),
          },
        ]
      : []),
  ];

  return (
    <Stack gap="sm" component="section" aria-labelledby="agreements-heading">
      <Title order={2} size="h3" id="agreements-heading">
        {t('donations.agreements.title')}
      </Title>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <Select
          label={t('donations.agreements.filterEntity')}
          data={[{ value: ALL, label: t('donations.agreements.allEntities') }, ...entities.map((e) => ({ value: e.id, label: e.name }))]}
          value={search.entity ?? ALL}
          onChange={(value) => filter({ entity: value === ALL ? undefined : (value ?? undefined) })}
          allowDeselect={false}
          w={260}
        />
        <Select
          label={t('donations.agreements.filterEstablishment')}
          data={[
            { value: ALL, label: t('donations.agreements.allEstablishments') },
            ...me.establishments.map((e) => ({ value: e.id, label: e.name })),
          ]}
          value={search.covers ?? ALL}
          onChange={(value) => filter({ covers: value === ALL ? undefined : (value ?? undefined) })}
          allowDeselect={false}
          w={260}
        />
      </Group>
      <DataTable
        caption={t('donations.agreements.title')}
        columns={columns}
        rows={agreements}
        rowKey={(a) => a.id}
        rowLabel={(a) => a.entity_name}
        renderExpanded={(a) => <AgreementTerms agreement={a} />}
        empty={t(entities.length === 0 ? 'donations.agreements.emptyNoEntities' : 'donations.agreements.empty')}
        minWidth={manage ? 1000 : 820}
      />
    </Stack>
  );
}

/** The status, and the days left of one that ends within 30 days, as a flag that cannot be missed. */
export function AgreementStatus({ agreement }: { agreement: Agreement }) {
  const { t } = useTranslation('donations');
  const days = agreement.expires_in_days;
  return (
    <Group gap={4} wrap="wrap">
      <Badge styles={WHOLE_BADGE} variant="light" color={STATUS_COLOR[agreement.status]}>
        {t(`donations.agreements.status.${agreement.status}`)}
      </Badge>
      {days !== null && (
        <Badge
          styles={WHOLE_BADGE}
          variant="light"
          color="orange"
          leftSection={<IconAlertTriangle size={14} aria-hidden />}
          data-testid="expires-in"
        >
          {days === 0 ? t('donations.agreements.expiresToday') : t('donations.agreements.expiresIn', { count: days })}
        </Badge>
      )}
    </Group>
  );
}

/** Everything the agreement says (art. 7), and its signed document's SHA-256. */
function AgreementTerms({ agreement: a }: { agreement: Agreement }) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const format = useFormat();
  const yes = (on: boolean) => (on ? t('donations.yes') : t('donations.no'));
  const term = (label: string, value: string) => (
    <div>
      <Text size="xs" fw={600}>
        {label}
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
        {value}
      </Text>
    </div>
  );
  return (
    <Stack gap="sm" py="xs">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {term(t('donations.agreementForm.categories'), a.accepted_food_categories.map((c) => common(`categories.${c}`)).join(', '))}
        {term(
          t('donations.agreementForm.conditions'),
          (['chilled', 'frozen', 'cooked', 'near_best_before'] as const)
            .map((c) => `${t(`donations.agreementForm.condition.${c}`)}: ${yes(a.conditions[c])}`)
            .join(' · '),
        )}
        {term(t('donations.agreementForm.schedule'), a.collection.schedule)}
        {term(
          t('donations.agreementForm.weekdays'),
          a.collection.weekdays.map((d) => common(`opening.weekdays.names.${d}`)).join(', ') || common('common.emptyCell'),
        )}
        {term(t('donations.agreementForm.transport'), t(`donations.agreementForm.transports.${a.collection.transport}`))}
        {term(t('donations.agreementForm.renewal'), t(`donations.agreements.renewal.${a.renewal}`))}
      </SimpleGrid>
      {term(t('donations.agreementForm.storage'), a.storage_conditions)}
      {term(t('donations.agreementForm.safety'), a.safety_responsibility_clause)}
      {term(t('donations.agreementForm.refusal'), a.refusal_procedure)}
      <div>
        <Text size="xs" fw={600}>
          {t('donations.document.sha256')}
        </Text>
        {a.document ? (
          <>
            <Code block data-testid="document-sha256" style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>
              {a.document.sha256}
            </Code>
            <Text size="xs" c="dimmed">
              {t('donations.document.stored', {
                date: format.dateTime(a.document.uploaded_at),
                size: format.number(a.document.size_bytes),
              })}
            </Text>
          </>
        ) : (
          <Text size="sm" c="dimmed">
            {t('donations.document.none')}
          </Text>
        )}
      </div>
    </Stack>
  );
}
