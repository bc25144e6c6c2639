import { Alert, Box, Button, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { OutboxItem } from '../store.ts';
import type { Labels } from '../useLabels.ts';
import type { StationState } from '../useStation.ts';

/** Fields whose refusal the station explains in its own words (what the cook can do about it). */
const EXPLAINED = ['session_id', 'causa_id', 'destino_id', 'weight_kg', 'occurred_at'] as const;

export function Refused({ station, labels, onCorrect }: { station: StationState; labels: Labels; onCorrect: (item: OutboxItem) => void }) {
  const { t } = useTranslation('station');
  const refused = station.status.refused;
  if (!refused.length) return null;
  // The server's words where the station has none of its own (they name the field and the reason).
  const refusal = (item: OutboxItem) => {
    if (item.error?.photo) return t('station.refused.because.photo');
    const field = EXPLAINED.find((f) => item.error?.details.some((d) => d.path === f));
    return field ? t(`station.refused.because.${field}`) : item.error?.message;
  };
  return (
    <Alert color="red" variant="light" title={t('station.refused.title', { count: refused.length })} role="alert">
      <Text size="sm" mb="sm">
        {t('station.refused.intro')}
      </Text>
      <Stack gap="sm">
        {refused.map((item) => (
          <Box key={item.seq}>
            {item.kind === 'record' && (
              <Text fw={700}>
                {labels.kg(item.body.weight_kg)} · {labels.category(item.body.food_category)}
              </Text>
            )}
            <Text size="sm">{refusal(item)}</Text>
            <Group gap="xs" mt={4}>
              {item.kind === 'record' && (
                <Button size="md" h={48} onClick={() => onCorrect(item)}>
                  {t('station.refused.correct')}
                </Button>
              )}
              <Button size="md" h={48} variant="default" onClick={() => void station.outbox.discard(item.seq as number)}>
                {t('station.refused.discard')}
              </Button>
            </Group>
          </Box>
        ))}
      </Stack>
    </Alert>
  );
}
