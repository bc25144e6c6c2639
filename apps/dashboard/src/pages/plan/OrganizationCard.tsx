import { Text } from '@mantine/core';
import type { OrganizationFigures, ReductionBaseline } from '@merma/schema';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { useFormat } from '../../lib/format.ts';
import { useScope } from '../../lib/scope.ts';
import { trpc } from '../../trpc.ts';
import { BaselineSelect } from './ReductionCard.tsx';
import { YearCard } from './YearCard.tsx';

type Line = OrganizationFigures['by_stage'][number];
/** A stage's words begin a table cell here, not a sentence's middle as in the obligations card. */
const capitalized = (words: string) => words.charAt(0).toLocaleUpperCase() + words.slice(1);
type Row = Line & { key: string; label: string; total: boolean };

/**
 * The whole organisation's year (apps/server/src/modules/compliance/organization.ts), for a company
 * with more than one establishment: each stage of the food supply chain its establishments are in,
 * with their food waste, how it was measured, against their own baselines, and the Directive's 2030
 * reduction for the stage; then the organisation in all, and its ESRS E5-5 shares. Any member reads it.
 */
export function OrganizationCard({ currentYear }: { currentYear: number }) {
  const { t } = useTranslation('plan');
  const { livemode } = useScope();
  const format = useFormat();
  const [year, setYear] = useState(currentYear);
  const [baseline, setBaseline] = useState<ReductionBaseline>('2021-2023');
  const { data } = useQuery(trpc.compliance.organization.queryOptions({ livemode, year, baseline }));
  const kg = new Intl.NumberFormat(format.language, { maximumFractionDigits: 1 });
  const pct = new Intl.NumberFormat(format.language, { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' });
  const share = new Intl.NumberFormat(format.language, { style: 'percent', maximumFractionDigits: 1 });
  const rows: Row[] = data
    ? [
        ...data.by_stage.map((s) => ({
          ...s,
          key: s.stage ?? 'none',
          label: s.stage ? capitalized(t(`plan.obligations.stages.${s.stage}`)) : t('plan.organization.noStage'),
          total: false,
        })),
        {
          ...data.total,
          stage: null,
          establishments: data.by_stage.reduce((n, s) => n + s.establishments, 0),
          target: null,
          key: 'total',
          label: t('plan.organization.total'),
          total: true,
        },
      ]
    : [];
  const columns: Column<Row>[] = [
    {
      key: 'stage',
      header: t('plan.organization.columns.stage'),
      render: (r) => (
        <Text size="sm" fw={r.total ? 700 : 400}>
          {r.label}
        </Text>
      ),
    },
    { key: 'establishments', header: t('plan.organization.columns.establishments'), render: (r) => r.establishments },
    {
      key: 'waste',
      header: t('plan.organization.columns.waste'),
      render: (r) => (
        <Text size="sm">
          {format.kg(r.waste_kg)}
          <Text span size="xs" c="dimmed">
            {' '}
            {t('plan.organization.measured', { measured: kg.format(r.measured_kg), estimated: kg.format(r.estimated_kg) })}
          </Text>
        </Text>
      ),
    },
    {
      key: 'baseline',
      header: t('plan.organization.columns.baseline'),
      render: (r) => (r.baseline_kg === null ? t('plan.organization.noBaseline') : `${kg.format(r.baseline_kg)} kg`),
    },
    {
      key: 'change',
      header: t('plan.organization.columns.change'),
      render: (r) => (r.change_share === null ? '—' : pct.format(r.change_share)),
    },
    {
      key: 'target',
      header: t('plan.organization.columns.target'),
      render: (r) =>
        r.total
          ? '—'
          : r.target === null
            ? t('plan.reduction.noTarget')
            : r.target.target_kg === null
              ? pct.format(-r.target.reduction)
              : `${pct.format(-r.target.reduction)}: ${kg.format(r.target.target_kg)} kg`,
    },
  ];
  return (
    <YearCard
      id="organization-title"
      testId="organization-figures"
      title={t('plan.organization.title')}
      yearLabel={t('plan.organization.year')}
      year={year}
      currentYear={currentYear}
      onYear={setYear}
      printHide
    >
      <BaselineSelect value={baseline} onChange={setBaseline} />
      <DataTable
        caption={t('plan.organization.title')}
        columns={columns}
        rows={rows}
        rowKey={(r) => r.key}
        empty={t('plan.organization.loading')}
        minWidth={760}
      />
      {data && (
        <Text size="sm" data-testid="organization-esrs">
          {t('plan.organization.esrs', {
            waste: kg.format(data.esrs.waste_kg),
            nonRecycled: data.esrs.non_recycled_share === null ? '—' : share.format(data.esrs.non_recycled_share),
            measured: data.esrs.measured_share === null ? '—' : share.format(data.esrs.measured_share),
          })}
        </Text>
      )}
      <Text size="xs" c="dimmed">
        {t('plan.organization.note')}
      </Text>
    </YearCard>
  );
}
