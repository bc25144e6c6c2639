import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { type Flow, START } from '../flow.ts';
import type { Labels } from '../useLabels.ts';

export function FlowSummary({ flow, labels, onChange }: { flow: Flow; labels: Labels; onChange: (f: Flow) => void }) {
  const { t } = useTranslation('station');
  const { t: dashboard } = useTranslation();
  const chips: { key: string; label: string; step: string; back: Flow }[] = [];
  if (flow.category !== undefined)
    chips.push({
      key: 'category',
      label: flow.product ? flow.product.name : labels.category(flow.category),
      step: t('station.steps.category'),
      back: { ...START },
    });
  if (flow.cause !== undefined)
    chips.push({
      key: 'cause',
      label: labels.cause(flow.cause),
      step: t('station.steps.cause'),
      back: { ...START, category: flow.category, ...(flow.product ? { product: flow.product } : {}) },
    });
  if (flow.destination !== undefined)
    chips.push({
      key: 'destination',
      label: labels.destination(flow.destination),
      step: t('station.steps.destination'),
      back: { ...START, category: flow.category, cause: flow.cause, ...(flow.product ? { product: flow.product } : {}) },
    });
  if (flow.reason)
    chips.push({
      key: 'reason',
      label: dashboard(`hierarchyReasons.${flow.reason}` as 'hierarchyReasons.no_taker'),
      step: t('station.steps.reasonStep'),
      back: {
        ...START,
        category: flow.category,
        cause: flow.cause,
        destination: flow.destination,
        ...(flow.product ? { product: flow.product } : {}),
      },
    });
  if (!chips.length) return null;
  return (
    <Group gap="xs" mb="md">
      <Button variant="default" size="md" h={48} onClick={() => onChange(START)}>
        {t('station.steps.startOver')}
      </Button>
      {chips.map((c) => (
        <Button
          key={c.key}
          variant="light"
          size="md"
          h={48}
          // The visible name first (WCAG 2.5.3, label in name), then what tapping it does.
          aria-label={`${c.label} — ${t('station.steps.change', { step: c.step })}`}
          // The weight typed and the photo taken stay: both are of the food, whatever choice changes.
          onClick={() =>
            onChange({
              ...c.back,
              typed: flow.typed,
              ...(flow.correcting !== undefined ? { correcting: flow.correcting } : {}),
              ...(flow.photo ? { photo: flow.photo } : {}),
            })
          }
        >
          {c.label}
        </Button>
      ))}
    </Group>
  );
}
