import { Skeleton } from '@mantine/core';
import { type ComponentProps, lazy, Suspense } from 'react';
import { barChartHeight, FORECAST_HEIGHT, TREND_HEIGHT } from './sizes.ts';

/**
 * The dashboard's charts, each loaded when first drawn: a page shows its figures, tables and text
 * first, with a placeholder of the chart's own height, and the chart fills it when its module has
 * arrived. Every chart's figures are also on the page as text (the overview's "Show as: table", the
 * forecast's table), so nothing is only in a chart that is still loading. The charts are SVG drawn
 * by React with d3-scale and d3-shape (frame.tsx): a few kB, against the ~130 kB of Recharts and
 * Mantine Charts they replaced, whose first drawing was the overview's longest task on a phone.
 */
const waste = () => import('./WasteCharts.tsx');
const Trend = lazy(() => waste().then((m) => ({ default: m.TrendChart })));
const Bars = lazy(() => waste().then((m) => ({ default: m.KgBars })));
const Destinations = lazy(() => waste().then((m) => ({ default: m.DestinationBars })));
const Band = lazy(() => import('./ForecastBand.tsx').then((m) => ({ default: m.ForecastBand })));

const Placeholder = ({ h }: { h: number }) => <Skeleton h={h} animate={false} aria-hidden />;

export function TrendChart(props: ComponentProps<typeof Trend>) {
  return (
    <Suspense fallback={<Placeholder h={TREND_HEIGHT} />}>
      <Trend {...props} />
    </Suspense>
  );
}

export function KgBars(props: ComponentProps<typeof Bars>) {
  return (
    <Suspense fallback={<Placeholder h={barChartHeight(props.data.length)} />}>
      <Bars {...props} />
    </Suspense>
  );
}

export function DestinationBars(props: ComponentProps<typeof Destinations>) {
  return (
    <Suspense fallback={<Placeholder h={barChartHeight(props.data.length)} />}>
      <Destinations {...props} />
    </Suspense>
  );
}

export function ForecastBand(props: ComponentProps<typeof Band>) {
  return (
    <Suspense fallback={<Placeholder h={FORECAST_HEIGHT} />}>
      <Band {...props} />
    </Suspense>
  );
}
