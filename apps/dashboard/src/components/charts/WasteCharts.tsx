import '@mantine/charts/styles.css';
import { AreaChart, BarChart } from '@mantine/charts';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../../lib/format.ts';
import { barChartHeight, TREND_HEIGHT } from './sizes.ts';

/**
 * The overview's charts (Mantine Charts over Recharts, ~100 kB compressed): a module of its own,
 * loaded through `./index.tsx` once the page's figures are on screen, so the page never waits for it.
 */

type KgPoint = { label: string; kg: number };

function useBarLabel() {
  const format = useFormat();
  // A bar's printed figure stays on one line (the chart breaks a label at its spaces when the bar is short, as on a phone).
  return (v: unknown) => (typeof v === 'number' && v > 0 ? format.kg(v).replaceAll(' ', '\u00a0') : '');
}

// Room right of the longest bar for its printed figure.
const withRoomForLabels = { domain: [0, (max: number) => max * 1.3] as [number, (max: number) => number] };

/** kg per period, as an area. */
export function TrendChart({ data }: { data: KgPoint[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  return (
    <AreaChart
      h={TREND_HEIGHT}
      data={data}
      dataKey="label"
      series={[{ name: 'kg', label: t('overview.kgWasted'), color: 'teal.6' }]}
      valueFormatter={format.kg}
      curveType="monotone"
    />
  );
}

/**
 * What every horizontal bar chart here shares: a bar per row named by `label`, its kg printed
 * beside it on one line, room right of the longest bar for that figure, no grid.
 */
function useHorizontalBars(rows: number) {
  const format = useFormat();
  const barLabel = useBarLabel();
  return {
    h: barChartHeight(rows),
    dataKey: 'label',
    orientation: 'vertical',
    valueFormatter: format.kg,
    withBarValueLabel: true,
    valueLabelProps: { formatter: barLabel },
    xAxisProps: withRoomForLabels,
    gridAxis: 'none',
  } as const;
}

/** kg per row (category, cause, stage), as horizontal bars with their figure printed. */
export function KgBars({ data }: { data: KgPoint[] }) {
  const { t } = useTranslation();
  const bars = useHorizontalBars(data.length);
  return (
    <BarChart {...bars} data={data} series={[{ name: 'kg', label: t('overview.kgWasted'), color: 'teal.6' }]} yAxisProps={{ width: 150 }} />
  );
}

/** kg per destination, recovered and not recovered stacked, in the hierarchy's order (each destination's kg beside its bar). */
export function DestinationBars({ data }: { data: { label: string; recovered: number; lost: number }[] }) {
  const { t } = useTranslation();
  const bars = useHorizontalBars(data.length);
  return (
    <BarChart
      {...bars}
      data={data}
      type="stacked"
      series={[
        { name: 'recovered', label: t('overview.recovered'), color: 'teal.6' },
        { name: 'lost', label: t('overview.notRecovered'), color: 'orange.6' },
      ]}
      yAxisProps={{ width: 170 }}
      withLegend
    />
  );
}
