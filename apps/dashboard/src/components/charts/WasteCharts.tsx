import { scaleLinear } from 'd3-scale';
import { area, curveMonotoneX, line } from 'd3-shape';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../../lib/format.ts';
import { AXIS_FONT_SIZE, ChartFrame, COLORS, Legend, labelsWidth, pointX, TimeAxis, ValueAxis } from './frame.tsx';
import { BAR_ROW, barChartHeight, TREND_HEIGHT } from './sizes.ts';

/**
 * The overview's charts, as SVG (frame.tsx): a module of its own, loaded through `./index.tsx`
 * once the page's figures are on screen, so the page never waits for it. Each chart's SVG is an
 * image whose name states every figure it draws; the card's "Show as: table" gives the same as a
 * table.
 */

type KgPoint = { label: string; kg: number };

/** A bar's printed figure: on one line (no break at its space on a narrow bar), nothing for 0. */
function useBarLabel() {
  const format = useFormat();
  return (v: number) => (v > 0 ? format.kg(v).replaceAll(' ', '\u00a0') : '');
}

/** kg per period, as an area under a smooth line, a point (with its figure on hover) per period. */
export function TrendChart({ data }: { data: KgPoint[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  const name = t('overview.kgWasted');
  return (
    <ChartFrame chart="trend" height={TREND_HEIGHT} label={`${name}: ${data.map((p) => `${p.label} ${format.kg(p.kg)}`).join(', ')}`}>
      {(width) => {
        const top = 8;
        const bottom = TREND_HEIGHT - 24;
        const y = scaleLinear()
          .domain([0, Math.max(...data.map((p) => p.kg), 0) || 1])
          .nice(4)
          .range([bottom, top]);
        const left = labelsWidth(y.ticks(4).map(format.kg));
        const right = width - 12;
        const x = pointX(data.length, left, right);
        const shape = area<KgPoint>()
          .x((_, i) => x(i))
          .y0(bottom)
          .y1((p) => y(p.kg))
          .curve(curveMonotoneX);
        const edge = line<KgPoint>()
          .x((_, i) => x(i))
          .y((p) => y(p.kg))
          .curve(curveMonotoneX);
        return (
          <>
            <ValueAxis y={y} left={left} right={right} format={format.kg} />
            <path data-series="kg" d={shape(data) ?? ''} fill={COLORS.fill} fillOpacity={0.2} />
            <path d={edge(data) ?? ''} fill="none" stroke={COLORS.fill} strokeWidth={2} />
            {data.map((p, i) => (
              <circle key={p.label} cx={x(i)} cy={y(p.kg)} r={data.length > 40 ? 2 : 3} fill={COLORS.fill}>
                <title>{`${p.label}: ${format.kg(p.kg)}`}</title>
              </circle>
            ))}
            <TimeAxis labels={data.map((p) => p.label)} x={x} top={bottom} />
          </>
        );
      }}
    </ChartFrame>
  );
}

type Bar = { label: string; parts: { value: number; color: string }[] };

/**
 * Horizontal bars, a row per entry: its name on a line, its bar under it (stacked parts), and its
 * figure printed right of the bar, on one line. The longest bar leaves room for its figure.
 */
function HorizontalBars({
  bars,
  chart,
  label,
  legend,
}: {
  bars: Bar[];
  chart: string;
  label: string;
  legend?: { label: string; color: string }[];
}) {
  const barLabel = useBarLabel();
  const height = barChartHeight(bars.length);
  const top = legend ? 24 : 4;
  const total = (b: Bar) => b.parts.reduce((sum, p) => sum + p.value, 0);
  return (
    <ChartFrame chart={chart} height={height} label={label}>
      {(width) => {
        const figures = bars.map((b) => barLabel(total(b)));
        const room = labelsWidth(figures) + 4;
        const x = scaleLinear()
          .domain([0, Math.max(...bars.map(total), 0) || 1])
          .range([0, Math.max(width - room, 1)]);
        return (
          <>
            {legend && <Legend entries={legend} x={0} y={14} />}
            {bars.map((b, i) => {
              const rowTop = top + i * BAR_ROW;
              let at = 0;
              return (
                <g key={b.label} data-bar={b.label}>
                  <text x={0} y={rowTop + AXIS_FONT_SIZE} fill={COLORS.label}>
                    {b.label}
                  </text>
                  {b.parts.map((part, j) => {
                    const start = at;
                    at += x(part.value);
                    return part.value > 0 ? (
                      // biome-ignore lint/suspicious/noArrayIndexKey: a bar's parts are fixed in number and order
                      <rect key={j} x={start} y={rowTop + 17} width={x(part.value)} height={14} rx={2} fill={part.color} />
                    ) : null;
                  })}
                  <text x={at + 6} y={rowTop + 28} fill={COLORS.label}>
                    {figures[i]}
                  </text>
                </g>
              );
            })}
          </>
        );
      }}
    </ChartFrame>
  );
}

/** kg per row (category, cause, stage), as horizontal bars with their figure printed. */
export function KgBars({ data }: { data: KgPoint[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  return (
    <HorizontalBars
      chart="bars"
      bars={data.map((p) => ({ label: p.label, parts: [{ value: p.kg, color: COLORS.fill }] }))}
      label={`${t('overview.kgWasted')}: ${data.map((p) => `${p.label} ${format.kg(p.kg)}`).join(', ')}`}
    />
  );
}

/** kg per destination, recovered and not recovered stacked, in the hierarchy's order (each destination's kg beside its bar). */
export function DestinationBars({ data }: { data: { label: string; recovered: number; lost: number }[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  const recovered = t('overview.recovered');
  const lost = t('overview.notRecovered');
  return (
    <HorizontalBars
      chart="destinations"
      bars={data.map((d) => ({
        label: d.label,
        parts: [
          { value: d.recovered, color: COLORS.fill },
          { value: d.lost, color: COLORS.lost },
        ],
      }))}
      legend={[
        { label: recovered, color: COLORS.fill },
        { label: lost, color: COLORS.lost },
      ]}
      label={`${t('overview.kgWasted')}: ${data
        .map((d) => `${d.label} ${format.kg(d.recovered + d.lost)} (${d.recovered > 0 ? recovered : lost})`)
        .join(', ')}`}
    />
  );
}
