import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import classes from '../station.module.css';
import type { Labels } from '../useLabels.ts';
import type { StationState } from '../useStation.ts';
import { Panel } from './Panel.tsx';

export function Today({ station, labels }: { station: StationState; labels: Labels }) {
  const { t } = useTranslation('station');
  // The server's figures for today, plus what waits on this tablet to be sent.
  const waiting = station.items.filter((i) => i.kind === 'record' && i.state === 'waiting');
  const kg = (station.recent?.today.kg ?? 0) + waiting.reduce((s, i) => s + (i.kind === 'record' ? i.body.weight_kg : 0), 0);
  const count = (station.recent?.today.records ?? 0) + waiting.length;
  return (
    <Panel title={t('station.today.title')}>
      <Text className={classes.total} data-testid="today-total">
        {t('station.today.total', { kg: labels.totalKg(kg), count })}
      </Text>
    </Panel>
  );
}
