import { Center, Loader, Stack } from '@mantine/core';
import type { StationSetup } from '@merma/schema/dashboard';
import { type Dispatch, type SetStateAction, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { counting, type Flow, higherStep, NO_DETAILS, STATION_REASONS, stepOf } from '../flow.ts';
import { Keypad, typedOf } from '../Keypad.tsx';
import type { Labels } from '../useLabels.ts';
import { Choices } from './Choices.tsx';
import { MoreDetails } from './MoreDetails.tsx';
import { PhotoButton } from './PhotoButton.tsx';
import { ScaleButton } from './ScaleButton.tsx';

/** The step the record is at: the category's, cause's or destination's choices, then the keypad. */
export function CurrentStep({
  setup,
  flow,
  onFlow,
  labels,
  saving,
  onSave,
}: {
  setup: StationSetup | undefined;
  flow: Flow;
  onFlow: Dispatch<SetStateAction<Flow>>;
  labels: Labels;
  saving: boolean;
  onSave: () => void;
}) {
  const { t } = useTranslation('station');
  const { t: dashboard } = useTranslation();
  // A photo being prepared holds Save back: the record is not saved without the photo just taken.
  const [photoBusy, setPhotoBusy] = useState(false);
  if (!setup) {
    return (
      <Center py="xl">
        <Loader />
      </Center>
    );
  }
  const step = stepOf(flow);
  if (step === 'category') {
    const categories = (
      <Choices
        title={t('station.steps.category')}
        items={setup.categories.map((c) => ({ value: c.food_category, label: labels.category(c.food_category) }))}
        onPick={(category) => onFlow((f) => ({ ...f, category }))}
      />
    );
    if (setup.quick_products.length === 0) return categories;
    // The products thrown most, counted: a tap gives the category and a keypad of units.
    return (
      <Stack gap="lg">
        <Choices
          title={t('station.steps.quick')}
          items={setup.quick_products.map((p) => ({ value: p.id, label: p.name }))}
          onPick={(id) => {
            const product = setup.quick_products.find((p) => p.id === id);
            if (product) onFlow((f) => ({ ...f, category: product.food_category, product }));
          }}
        />
        {categories}
      </Stack>
    );
  }
  if (step === 'cause') {
    return (
      <Choices
        title={t('station.steps.cause')}
        items={[...setup.causes.map((c) => ({ value: c.id, label: labels.cause(c.id) })), { value: '', label: t('station.steps.noCause') }]}
        onPick={(cause) => onFlow((f) => ({ ...f, cause: cause || null }))}
      />
    );
  }
  if (step === 'destination') {
    return (
      <Choices
        title={t('station.steps.destination')}
        items={setup.destinations.map((d) => ({ value: d.id, label: labels.destination(d.id) }))}
        // Not lower than the category's best step this year: nothing to ask.
        onPick={(destination) =>
          onFlow((f) => ({ ...f, destination, ...(higherStep(setup, f.category, destination) ? {} : { reason: null }) }))
        }
      />
    );
  }
  if (step === 'reason') {
    const higher = higherStep(setup, flow.category, flow.destination as string);
    return (
      <Choices
        title={t('station.steps.reason', { best: higher ? labels.destination(higher) : '' })}
        items={[
          ...STATION_REASONS.map((r) => ({ value: r, label: dashboard(`hierarchyReasons.${r}`) })),
          { value: '', label: t('station.steps.reasonLater') },
        ]}
        onPick={(reason) => onFlow((f) => ({ ...f, reason: reason || null }))}
      />
    );
  }
  const counted = counting(flow);
  return (
    <Keypad
      title={counted ? t('station.steps.count', { product: flow.product?.name }) : t('station.steps.weight')}
      {...(counting(flow) ? { count: { unitKg: flow.product.unit_weight_kg, weight: labels.kg } } : {})}
      typed={flow.typed}
      onChange={(typed) => onFlow(({ scale: _typedOver, ...f }) => ({ ...f, typed }))}
      onSave={() => {
        if (!photoBusy) onSave();
      }}
      saving={saving || photoBusy}
      extra={
        <>
          <ScaleButton onWeight={({ kg, scaleId }) => onFlow((f) => ({ ...f, typed: typedOf(kg), scale: { id: scaleId } }))} />
          <MoreDetails
            details={flow.details ?? NO_DETAILS}
            presets={setup.tare_presets}
            onChange={(details) => onFlow((f) => ({ ...f, details }))}
          />
          <PhotoButton
            photo={flow.photo}
            onChange={(photo) => onFlow(({ photo: _replaced, ...f }) => (photo ? { ...f, photo } : f))}
            onBusy={setPhotoBusy}
          />
        </>
      }
    />
  );
}
