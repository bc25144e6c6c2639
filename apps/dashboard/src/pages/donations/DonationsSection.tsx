import { Alert, Badge, Button, Checkbox, Group, Select, Stack, Text, Title } from '@mantine/core';
import { DONATION_STATUSES, type Donation } from '@merma/schema';
import type { DashboardDonationsPage } from '@merma/schema/dashboard';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useNavigate } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Pager } from '../../components/Pager.tsx';
import { useFormat } from '../../lib/format.ts';
import type { DonationsSearch } from '../../lib/search.ts';
import { DONATIONS_PAGE_SIZE } from '../../queries.ts';
import { WHOLE_BADGE } from './badges.ts';

/** The filters' "all" choice (a Select's value is a string). */
const ALL = 'all';

export const DONATION_STATUS_COLOR = { offered: 'blue', accepted: 'teal', refused: 'red', collected: 'violet', received: 'green' } as const;

/** A donation's status, as a badge read whole. */
export function DonationStatusBadge({ status }: { status: Donation['status'] }) {
  const { t } = useTranslation('donations');
  return (
    <Badge styles={WHOLE_BADGE} variant="light" color={DONATION_STATUS_COLOR[status]}>
      {t(`donations.status.${status}`)}
    </Badge>
  );
}

/** Refused lines not yet sent elsewhere, as a flag that cannot be missed. */
export function WaitingBadge({ count }: { count: number }) {
  const { t } = useTranslation('donations');
  return (
    <Badge styles={WHOLE_BADGE} variant="light" color="orange" leftSection={<IconAlertTriangle size={14} aria-hidden />}>
      {t('donations.offers.waitingBadge', { count })}
    </Badge>
  );
}

type Props = { page: DashboardDonationsPage; search: DonationsSearch; timezone: string };

/**
 * The establishment's donations in the mode shown, the latest offered first: when, to whom, how many
 * lines and kilograms, the status; filtered by status and to those with a refused line waiting for a
 * destination (in the URL). Refused lines still waiting are counted above the table, whatever the
 * filter, with the way to list them. A row opens the donation (`?donation=`).
 */
export function DonationsSection({ page, search, timezone }: Props) {
  const { t } = useTranslation('donations');
  const format = useFormat(timezone);
  const navigate = useNavigate({ from: '/donations' });
  const filter = (changes: Partial<DonationsSearch>) => void navigate({ search: (prev) => ({ ...prev, page: undefined, ...changes }) });
  const open = (id: string) => void navigate({ search: (prev) => ({ ...prev, donation: id }) });
  const waiting = page.awaiting_reroute;
  const offset = ((search.page ?? 1) - 1) * DONATIONS_PAGE_SIZE;

  const columns: Column<Donation>[] = [
    { key: 'offered', header: t('donations.offers.columns.offeredAt'), render: (d) => format.dateTime(d.offered_at) },
    { key: 'entity', header: t('donations.offers.columns.entity'), render: (d) => d.entity_name },
    {
      key: 'lines',
      header: t('donations.offers.columns.lines'),
      render: (d) => t('donations.offers.linesCount', { count: d.lines.length }),
    },
    {
      key: 'kg',
      header: t('donations.offers.columns.kg'),
      render: (d) => (
        <Stack gap={0}>
          <Text size="sm">{format.kgPrecise(d.totals.net_kg)}</Text>
          {d.status !== 'offered' && (
            <Text size="xs" c="dimmed">
              {t('donations.offers.acceptedKg', { kg: format.kgPrecise(d.totals.accepted_kg) })}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'status',
      header: t('donations.offers.columns.status'),
      render: (d) => (
        <Group gap={4} wrap="wrap">
          <DonationStatusBadge status={d.status} />
          {d.awaiting_reroute > 0 && <WaitingBadge count={d.awaiting_reroute} />}
        </Group>
      ),
    },
    {
      key: 'actions',
      header: t('donations.offers.columns.actions'),
      hideHeader: true,
      render: (d) => (
        <Button
          size="xs"
          variant="default"
          onClick={() => open(d.id)}
          aria-label={t('donations.offers.openLabel', { entity: d.entity_name, date: format.dateTime(d.offered_at) })}
        >
          {t('donations.offers.open')}
        </Button>
      ),
    },
  ];

  return (
    <Stack gap="sm" component="section" aria-labelledby="donations-heading">
      <Title order={2} size="h3" id="donations-heading">
        {t('donations.offers.title')}
      </Title>
      <Text size="sm" c="dimmed" maw={720}>
        {t('donations.offers.description')}
      </Text>
      {waiting.lines > 0 && (
        <Alert
          color="orange"
          variant="light"
          icon={<IconAlertTriangle aria-hidden />}
          title={t('donations.offers.waiting.title', { count: waiting.lines })}
          data-testid="awaiting-reroute"
        >
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{t('donations.offers.waiting.text', { count: waiting.donations })}</Text>
            {!search.waiting && (
              <Button size="xs" variant="default" onClick={() => filter({ waiting: true, status: undefined })}>
                {t('donations.offers.waiting.show')}
              </Button>
            )}
          </Stack>
        </Alert>
      )}
      <Group gap="sm" align="flex-end" wrap="wrap">
        <Select
          label={t('donations.offers.filterStatus')}
          data={[
            { value: ALL, label: t('donations.offers.allStatuses') },
            ...DONATION_STATUSES.map((s) => ({ value: s, label: t(`donations.status.${s}`) })),
          ]}
          value={search.status ?? ALL}
          onChange={(value) => filter({ status: value === ALL || !value ? undefined : (value as Donation['status']) })}
          allowDeselect={false}
          w={200}
        />
        <Checkbox
          label={t('donations.offers.onlyWaiting')}
          checked={search.waiting === true}
          onChange={(event) => filter({ waiting: event.currentTarget.checked || undefined })}
          mb={8}
        />
      </Group>
      <DataTable
        caption={t('donations.offers.title')}
        columns={columns}
        rows={page.items}
        rowKey={(d) => d.id}
        empty={t(search.status || search.waiting ? 'donations.offers.emptyFiltered' : 'donations.offers.empty')}
        minWidth={760}
      />
      <Pager
        offset={offset}
        limit={DONATIONS_PAGE_SIZE}
        total={page.total}
        hasMore={offset + page.items.length < page.total}
        onChange={(next) => filter({ page: next / DONATIONS_PAGE_SIZE + 1 })}
      />
    </Stack>
  );
}
