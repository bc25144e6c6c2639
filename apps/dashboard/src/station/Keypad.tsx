import { Alert, Button, Grid, SimpleGrid, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { STATION_MAX_WEIGHT_KG, WEIGHT_DECIMALS } from '@merma/schema/station';
import { IconBackspace } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { decimalMark } from '../lib/decimal.ts';
import classes from './station.module.css';

/**
 * The weight as typed on the keypad: whole kilos and, after the decimal key, up to three decimals
 * (grams). Kept as text so that "1," and "0,050" show as typed; `weightOf` reads the number.
 */
export type TypedWeight = { whole: string; fraction: string | null };
export const EMPTY_WEIGHT: TypedWeight = { whole: '', fraction: null };

export function weightOf(typed: TypedWeight): number | null {
  if (!typed.whole && !typed.fraction) return null;
  const value = Number(`${typed.whole || '0'}.${typed.fraction ?? ''}`);
  return Number.isFinite(value) ? value : null;
}

/** A weight read from a scale, as the keypad shows it (to the gram, trailing zeros kept off). */
export function typedOf(kg: number): TypedWeight {
  const [whole, fraction] = kg
    .toFixed(WEIGHT_DECIMALS)
    .replace(/\.?0+$/, '')
    .split('.');
  return { whole: whole ?? '', fraction: fraction ?? null };
}

/** Why the typed weight cannot be saved (a message key), or null when it can; counted, the units' weight. */
export function weightProblem(typed: TypedWeight, unitKg?: number): 'empty' | 'tooHeavy' | null {
  if (unitKg !== undefined) {
    const units = Number(typed.whole || '0');
    if (units <= 0) return 'empty';
    return units * unitKg > STATION_MAX_WEIGHT_KG ? 'tooHeavy' : null;
  }
  const kg = weightOf(typed);
  if (kg === null || kg <= 0) return 'empty';
  if (kg > STATION_MAX_WEIGHT_KG) return 'tooHeavy';
  return null;
}

/** A key's effect on the typed weight; keys that would make it unreadable do nothing. */
export function press(typed: TypedWeight, key: string): TypedWeight {
  if (key === 'clear') return EMPTY_WEIGHT;
  if (key === 'delete') {
    if (typed.fraction !== null) return typed.fraction ? { ...typed, fraction: typed.fraction.slice(0, -1) } : { ...typed, fraction: null };
    return { ...typed, whole: typed.whole.slice(0, -1) };
  }
  if (key === 'decimal') return typed.fraction === null ? { whole: typed.whole || '0', fraction: '' } : typed;
  if (!/^\d$/.test(key)) return typed;
  if (typed.fraction !== null) return typed.fraction.length < WEIGHT_DECIMALS ? { ...typed, fraction: typed.fraction + key } : typed;
  // No leading zeros, and never more digits than the station's maximum has.
  const whole = typed.whole === '0' ? key : typed.whole + key;
  return whole.length > String(STATION_MAX_WEIGHT_KG).length ? typed : { ...typed, whole };
}

/**
 * The large keypad: the weight shown big in kg with the language's decimal mark, digits in the
 * telephone's layout, the decimal mark, delete, and Save. Every key at least 64 px high, for wet
 * fingers; a physical keyboard types too (digits, `,`/`.`, Backspace, Enter).
 */
export function Keypad({
  title,
  typed,
  onChange,
  onSave,
  saving,
  extra,
  count,
}: {
  title: string;
  typed: TypedWeight;
  onChange: (typed: TypedWeight) => void;
  onSave: () => void;
  saving: boolean;
  extra?: React.ReactNode;
  /** Units are counted, not kilos typed: whole numbers only, and the weight they make shown below. */
  count?: { unitKg: number; weight: (kg: number) => string };
}) {
  const { t, i18n } = useTranslation('station');
  // The language's decimal mark, from the reader every numeric field of the dashboard uses.
  const mark = decimalMark(i18n.resolvedLanguage ?? 'es');
  const problem = weightProblem(typed, count?.unitKg);
  const shown = count ? typed.whole || '0' : `${typed.whole || '0'}${typed.fraction !== null ? mark + typed.fraction : ''}`;
  // Counting takes whole units: the decimal key does nothing.
  const pressed = (value: string) => (count && value === 'decimal' ? typed : press(count ? { ...typed, fraction: null } : typed, value));
  const key = (label: React.ReactNode, value: string, aria?: string) => (
    <UnstyledButton key={value} className={classes.key} onClick={() => onChange(pressed(value))} aria-label={aria}>
      {label}
    </UnstyledButton>
  );

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the keys are buttons; this only lets a keyboard type too
    <div
      onKeyDown={(e) => {
        if (/^\d$/.test(e.key)) onChange(pressed(e.key));
        else if (e.key === ',' || e.key === '.') onChange(pressed('decimal'));
        else if (e.key === 'Backspace') onChange(pressed('delete'));
        else if (e.key === 'Enter' && !problem) onSave();
        else return;
        e.preventDefault();
      }}
    >
      {/* The weight and Save beside the keys: both in view on a tablet, landscape or portrait. */}
      <Grid gap="md">
        <Grid.Col span={5}>
          <Stack gap="sm" h="100%">
            <Title order={2} size="h3">
              {title}
            </Title>
            <output
              className={classes.weight}
              aria-label={t(count ? 'station.keypad.countLabel' : 'station.keypad.label')}
              aria-live="polite"
            >
              {shown}
              <Text span inherit c="dimmed" ml={8}>
                {t(count ? 'station.keypad.units' : 'station.keypad.unit')}
              </Text>
            </output>
            {count && (
              <Text size="lg" data-testid="counted-weight">
                {t('station.keypad.counted', { weight: count.weight(Math.round(Number(typed.whole || '0') * count.unitKg * 1000) / 1000) })}
              </Text>
            )}
            {problem === 'tooHeavy' && (
              <Alert color="red" variant="light" role="alert">
                {t('station.keypad.tooHeavy', { max: STATION_MAX_WEIGHT_KG })}
              </Alert>
            )}
            {problem === 'empty' && typed.whole === '' && typed.fraction === null && (
              <Text size="md" c="dimmed">
                {t(count ? 'station.keypad.emptyCount' : 'station.keypad.empty')}
              </Text>
            )}
            {extra}
            <Button
              fullWidth
              size="xl"
              h={80}
              mt="auto"
              onClick={onSave}
              disabled={problem !== null}
              loading={saving}
              className={classes.save}
            >
              {t('station.keypad.save')}
            </Button>
          </Stack>
        </Grid.Col>
        <Grid.Col span={7}>
          <SimpleGrid cols={3} spacing="xs">
            {['7', '8', '9', '4', '5', '6', '1', '2', '3'].map((d) => key(d, d))}
            {count ? <span /> : key(mark, 'decimal', t('station.keypad.decimal'))}
            {key('0', '0')}
            {key(<IconBackspace size={32} aria-hidden />, 'delete', t('station.keypad.delete'))}
          </SimpleGrid>
        </Grid.Col>
      </Grid>
    </div>
  );
}
