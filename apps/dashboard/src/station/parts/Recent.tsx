import { Box, Button, Group, Stack, Text } from '@mantine/core';
import { STATION_UNDO_SECONDS } from '@merma/schema/station';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OutboxItem } from '../store.ts';
import type { Labels } from '../useLabels.ts';
import type { StationState } from '../useStation.ts';
import { Panel } from './Panel.tsx';

type Row = {
  key: string;
  record: { food_category: string; weight_kg: number; occurred_at: string };
  waiting?: number;
  undo?: () => void;
  undone?: boolean;
};

export function Recent({ station, labels }: { station: StationState; labels: Labels }) {
  const { t, i18n } = useTranslation('station');
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 10_000);
    return () => clearInterval(timer);
  }, []);
  const zone = station.pairing?.identity.establishment.timezone;
  const time = new Intl.DateTimeFormat(i18n.resolvedLanguage, { hour: '2-digit', minute: '2-digit', ...(zone ? { timeZone: zone } : {}) });
  const sentById = new Map(station.sent.map((s) => [s.id, s]));
  const rows: Row[] = [
    ...station.items
      .filter((i): i is OutboxItem & { kind: 'record' } => i.kind === 'record' && i.state === 'waiting')
      .reverse()
      .map((i) => ({
        key: `q${i.seq}`,
        record: i.body,
        waiting: i.seq,
        undo: () => void station.outbox.discard(i.seq as number),
      })),
    ...(station.recent?.records ?? []).map((r) => {
      const mine = sentById.get(r.id);
      const open = mine && !mine.undone && now - Date.parse(r.created_at) < STATION_UNDO_SECONDS * 1000;
      return {
        key: r.id,
        record: r,
        ...(mine?.undone ? { undone: true } : {}),
        ...(open ? { undo: () => void station.outbox.undo(r.id) } : {}),
      };
    }),
  ].slice(0, 10);
  return (
    <Panel title={t('station.recent.title')}>
      {rows.length === 0 ? (
        <Text c="dimmed">{t('station.recent.empty')}</Text>
      ) : (
        <Stack gap="xs" component="ol" p={0} m={0} style={{ listStyle: 'none' }}>
          {rows.map((row) => {
            const weight = labels.kg(row.record.weight_kg);
            const category = labels.category(row.record.food_category);
            return (
              <Group key={row.key} component="li" justify="space-between" wrap="nowrap" gap="xs" mih={48}>
                <Box style={{ flex: 1, minWidth: 0 }}>
                  <Text fw={700} td={row.undone ? 'line-through' : undefined}>
                    {weight} · {category}
                  </Text>
                  <Text size="sm" c="dimmed">
                    {time.format(new Date(row.record.occurred_at))}
                    {row.waiting !== undefined && ` · ${t('station.recent.waiting')}`}
                    {row.undone && ` · ${t('station.recent.undone')}`}
                  </Text>
                </Box>
                {row.undo && (
                  <Button
                    variant="default"
                    size="md"
                    h={48}
                    style={{ flexShrink: 0 }}
                    onClick={row.undo}
                    aria-label={t('station.recent.undoLabel', { weight, category })}
                  >
                    {t('station.recent.undo')}
                  </Button>
                )}
              </Group>
            );
          })}
        </Stack>
      )}
    </Panel>
  );
}
