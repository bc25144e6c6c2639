import { Button, Stack, Text } from '@mantine/core';
import { IconScale } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { hasSerial, readScale, type ScaleWeight } from '../serial.ts';

export function ScaleButton({ onWeight }: { onWeight: (weight: ScaleWeight) => void }) {
  const { t } = useTranslation('station');
  const [state, setState] = useState<'idle' | 'reading' | 'failed'>('idle');
  if (!hasSerial()) return null;
  return (
    <Stack gap={4}>
      <Button
        variant="default"
        size="lg"
        h={56}
        leftSection={<IconScale size={22} aria-hidden />}
        loading={state === 'reading'}
        onClick={() => {
          setState('reading');
          readScale().then(
            (weight) => {
              if (weight !== null) onWeight(weight);
              setState(weight === null ? 'failed' : 'idle');
            },
            () => setState('failed'),
          );
        }}
      >
        {t('station.keypad.scale')}
      </Button>
      {state === 'reading' && <Text size="sm">{t('station.keypad.scaleWaiting')}</Text>}
      {state === 'failed' && (
        <Text size="sm" c="red.9">
          {t('station.keypad.scaleUnavailable')}
        </Text>
      )}
    </Stack>
  );
}
