import { Group, Select, Table, Text } from '@mantine/core';
import { REDUCTION_BASELINES, type ReductionBaseline } from '@merma/schema';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../../lib/format.ts';
import { useScope } from '../../lib/scope.ts';
import { trpc } from '../../trpc.ts';
import { YearCard } from './YearCard.tsx';

/**
 * A year's food waste against a baseline, in the terms of the EU's 2030 targets
 * (apps/server/src/modules/compliance/reduction.ts): what the year left as food waste and how it was
 * measured, the baseline chosen (the 2021–2023 average, 2020, or the first full year), the change,
 * the Directive's reduction for the establishment's stage as a target, and kg per €1,000 of sales
 * where sales reach Merma.
 */
export function ReductionCard({ establishmentId, currentYear }: { establishmentId: string; currentYear: number }) {
  const { t } = useTranslation('plan');
  const { livemode } = useScope();
  const format = useFormat();
  const [year, setYear] = useState(currentYear);
  const [baseline, setBaseline] = useState<ReductionBaseline>('2021-2023');
  const { data } = useQuery(trpc.compliance.reduction.queryOptions({ establishment_id: establishmentId, livemode, year, baseline }));
  const kg = new Intl.NumberFormat(format.language, { maximumFractionDigits: 1 });
  const pct = new Intl.NumberFormat(format.language, { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' });
  const rows: [string, string][] = data
    ? [
        [t('plan.reduction.stage'), data.stage ? t(`plan.obligations.stages.${data.stage}`) : t('plan.reduction.noStage')],
        [
          data.year.complete
            ? t('plan.reduction.waste', { year: data.year.year })
            : t('plan.reduction.wasteToDate', { year: data.year.year }),
          t('plan.reduction.kgMeasured', {
            kg: kg.format(data.year.waste_kg),
            measured: kg.format(data.year.measured_kg),
            estimated: kg.format(data.year.estimated_kg),
          }),
        ],
        [
          t('plan.reduction.baselineKg'),
          data.baseline.waste_kg === null
            ? t('plan.reduction.noBaseline')
            : t('plan.reduction.baselineValue', {
                kg: kg.format(data.baseline.waste_kg),
                years: data.baseline.years_with_records.join(', '),
              }),
        ],
        [t('plan.reduction.change'), data.change_share === null ? '—' : pct.format(data.change_share)],
        [
          t('plan.reduction.target'),
          data.target === null
            ? t('plan.reduction.noTarget')
            : data.target.target_kg === null
              ? t('plan.reduction.targetShare', { share: pct.format(-data.target.reduction) })
              : t('plan.reduction.targetKg', { share: pct.format(-data.target.reduction), kg: kg.format(data.target.target_kg) }),
        ],
        [
          t('plan.reduction.perSales'),
          data.sales?.waste_kg_per_1000_eur == null ? t('plan.reduction.noSales') : `${kg.format(data.sales.waste_kg_per_1000_eur)} kg`,
        ],
      ]
    : [];
  return (
    <YearCard
      id="reduction-title"
      testId="reduction"
      title={t('plan.reduction.title')}
      yearLabel={t('plan.reduction.year')}
      year={year}
      currentYear={currentYear}
      onYear={setYear}
      printHide
    >
      <BaselineSelect value={baseline} onChange={setBaseline} />
      <Table withTableBorder aria-labelledby="reduction-title">
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" fw={400}>
                {label}
              </Table.Th>
              <Table.Td ta="right">{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed">
        {t('plan.reduction.note')}
      </Text>
    </YearCard>
  );
}

/** The baseline a year is compared with: the 2021–2023 average, 2020, or the first full year. */
export function BaselineSelect({ value, onChange }: { value: ReductionBaseline; onChange: (baseline: ReductionBaseline) => void }) {
  const { t } = useTranslation('plan');
  return (
    <Group>
      <Select
        label={t('plan.reduction.baseline')}
        data={REDUCTION_BASELINES.map((b) => ({ value: b, label: t(`plan.reduction.baselines.${b}`) }))}
        value={value}
        onChange={(v) => v && onChange(v as ReductionBaseline)}
        allowDeselect={false}
        w={280}
      />
    </Group>
  );
}
