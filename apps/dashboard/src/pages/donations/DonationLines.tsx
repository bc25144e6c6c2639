import { Badge, Button, Stack, Text } from '@mantine/core';
import type { Destination, DonationLine } from '@merma/schema';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { useFormat } from '../../lib/format.ts';
import { WHOLE_BADGE } from './badges.ts';

const LINE_STATUS_COLOR = { offered: 'blue', accepted: 'teal', refused: 'red' } as const;

type Props = {
  lines: DonationLine[];
  destinations: Destination[];
  timezone: string;
  /** Offered to send a refused line elsewhere (null: the reader may not). */
  onReroute: ((line: DonationLine) => void) | null;
};

/**
 * A donation's lines: what, how much, its lot, dates, storage and allergens, and its state — the
 * entity's answer, the reason of a refusal and where a refused line went, or the button to send it
 * elsewhere while it waits.
 */
export function DonationLines({ lines, destinations, timezone, onReroute }: Props) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const format = useFormat(timezone);
  const destinationName = (id: string) => destinations.find((d) => d.id === id)?.nombre ?? id;
  const small = (text: string) => (
    <Text size="xs" c="dimmed">
      {text}
    </Text>
  );

  const columns: Column<DonationLine>[] = [
    { key: 'position', header: t('donations.detail.columns.position'), render: (l) => l.position },
    {
      key: 'description',
      header: t('donations.detail.columns.description'),
      render: (l) => (
        <Stack gap={0}>
          <Text size="sm">{l.description}</Text>
          {small(
            [
              common(`categories.${l.food_category}`),
              t(`donations.storage.${l.storage}`),
              l.cooked ? t('donations.detail.cooked') : null,
              l.temperature_c === null ? null : t('donations.detail.temperature', { value: format.number(l.temperature_c) }),
            ]
              .filter(Boolean)
              .join(' · '),
          )}
          {l.allergens.length > 0 &&
            small(t('donations.detail.allergensList', { list: l.allergens.map((a) => t(`donations.allergens.${a}`)).join(', ') }))}
        </Stack>
      ),
    },
    {
      key: 'quantity',
      header: t('donations.detail.columns.quantity'),
      render: (l) => (
        <Stack gap={0}>
          <Text size="sm">{`${format.number(l.quantity)} ${t(`donations.units.${l.unit}`)}`}</Text>
          {small(format.kgPrecise(l.net_kg))}
        </Stack>
      ),
    },
    {
      key: 'dates',
      header: t('donations.detail.columns.dates'),
      render: (l) => (
        <Stack gap={0}>
          {l.lot && small(t('donations.detail.lot', { lot: l.lot }))}
          {l.best_before && small(t('donations.detail.bestBefore', { date: format.date(l.best_before) }))}
          {l.use_by && small(t('donations.detail.useBy', { date: format.date(l.use_by) }))}
          {!l.lot && !l.best_before && !l.use_by && small(common('common.emptyCell'))}
        </Stack>
      ),
    },
    {
      key: 'status',
      header: t('donations.detail.columns.status'),
      render: (l) => (
        <Stack gap={4} align="flex-start">
          <Badge styles={WHOLE_BADGE} variant="light" color={LINE_STATUS_COLOR[l.status]}>
            {t(`donations.lineStatus.${l.status}`)}
          </Badge>
          {l.refusal_reason && small(t('donations.detail.reason', { reason: l.refusal_reason }))}
          {l.rerouted && small(t('donations.detail.reroutedTo', { destination: destinationName(l.rerouted.destino_id) }))}
          {l.status === 'refused' && !l.rerouted && onReroute && (
            <Button
              size="xs"
              variant="default"
              onClick={() => onReroute(l)}
              aria-label={t('donations.detail.rerouteLabel', { n: l.position, description: l.description })}
            >
              {t('donations.detail.reroute')}
            </Button>
          )}
        </Stack>
      ),
    },
  ];
  return (
    <DataTable
      caption={t('donations.detail.linesTitle')}
      columns={columns}
      rows={lines}
      rowKey={(l) => l.id}
      empty={common('common.emptyCell')}
      minWidth={720}
    />
  );
}
