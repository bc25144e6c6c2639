import { Box, Button, Group, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import type { TarePreset } from '@merma/schema/dashboard';
import { EDIBLE_PARTS } from '@merma/schema/station';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDecimal } from '../../lib/decimal.ts';
import { type Details, STAGES } from '../flow.ts';
import { bigClose, TALL_SEGMENTS } from './targets.ts';

/**
 * Stage, product, notes, the container's tare and whether it was edible: optional, behind one button
 * so the four taps stay four. The kitchen's named containers (the Stations page's) are a tap each:
 * one puts its empty weight in the tare, which stays editable.
 */
export function MoreDetails({
  details,
  presets,
  onChange,
}: {
  details: Details;
  presets: readonly TarePreset[];
  onChange: (details: Details) => void;
}) {
  const { t, i18n } = useTranslation('station');
  const tareOf = (preset: TarePreset) => formatDecimal(preset.tare_kg, i18n.language, 3);
  const { t: dashboard } = useTranslation();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState(details);
  const given = [
    details.waste_stage ? dashboard(`stages.${details.waste_stage}` as 'stages.storage') : null,
    details.product_name.trim() || null,
    details.tare.trim() ? t('station.details.tareGiven', { kg: details.tare.trim() }) : null,
    details.edible ? dashboard(`edibleParts.${details.edible}` as 'edibleParts.edible') : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <>
      <Button
        variant="default"
        size="lg"
        h={56}
        onClick={() => {
          setDraft(details);
          setOpen(true);
        }}
      >
        {given ? `${t('station.details.title')}: ${given}` : t('station.details.title')}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={t('station.details.title')}
        centered
        size="lg"
        closeButtonProps={bigClose(t('station.close'))}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onChange(draft);
            setOpen(false);
          }}
        >
          <Stack>
            <Box>
              <Text fw={600} mb={4} id="station-stage">
                {t('station.details.stage')}
              </Text>
              <SegmentedControl
                aria-labelledby="station-stage"
                fullWidth
                size="md"
                orientation="vertical"
                styles={TALL_SEGMENTS}
                value={draft.waste_stage ?? ''}
                onChange={(v) => setDraft((d) => ({ ...d, waste_stage: v || null }))}
                data={[
                  { value: '', label: t('station.details.noStage') },
                  ...STAGES.map((s) => ({ value: s, label: dashboard(`stages.${s}`) })),
                ]}
              />
            </Box>
            <TextInput
              size="lg"
              label={t('station.details.product')}
              value={draft.product_name}
              maxLength={200}
              onChange={(e) => {
                const product_name = e.currentTarget.value;
                setDraft((d) => ({ ...d, product_name }));
              }}
            />
            <TextInput
              size="lg"
              label={t('station.details.notes')}
              value={draft.notes}
              maxLength={500}
              onChange={(e) => {
                const notes = e.currentTarget.value;
                setDraft((d) => ({ ...d, notes }));
              }}
            />
            {presets.length > 0 && (
              <Box>
                <Text fw={600} mb={4} id="station-containers">
                  {t('station.details.containers')}
                </Text>
                <Group gap="xs" role="group" aria-labelledby="station-containers">
                  {presets.map((preset) => {
                    const chosen = draft.tare.trim() === tareOf(preset);
                    return (
                      <Button
                        key={preset.id}
                        size="lg"
                        h={56}
                        variant={chosen ? 'filled' : 'default'}
                        aria-pressed={chosen}
                        onClick={() => setDraft((d) => ({ ...d, tare: chosen ? '' : tareOf(preset) }))}
                      >
                        {t('station.details.container', { name: preset.name, kg: tareOf(preset) })}
                      </Button>
                    );
                  })}
                </Group>
              </Box>
            )}
            <TextInput
              size="lg"
              inputMode="decimal"
              label={t('station.details.tare')}
              description={t('station.details.tareHint')}
              value={draft.tare}
              maxLength={12}
              onChange={(e) => {
                const tare = e.currentTarget.value;
                setDraft((d) => ({ ...d, tare }));
              }}
            />
            <Box>
              <Text fw={600} mb={4} id="station-edible">
                {t('station.details.edible')}
              </Text>
              <SegmentedControl
                aria-labelledby="station-edible"
                fullWidth
                size="md"
                orientation="vertical"
                styles={TALL_SEGMENTS}
                value={draft.edible ?? ''}
                onChange={(v) => setDraft((d) => ({ ...d, edible: v || null }))}
                data={[
                  { value: '', label: t('station.details.edibleUnknown') },
                  ...EDIBLE_PARTS.map((e) => ({ value: e, label: dashboard(`edibleParts.${e}`) })),
                ]}
              />
            </Box>
            <Button type="submit" size="lg" h={56}>
              {t('station.details.done')}
            </Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
