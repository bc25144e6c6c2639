import { scaleLinear } from 'd3-scale';
import { area, curveMonotoneX, line } from 'd3-shape';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../../lib/format.ts';
import { ChartFrame, COLORS, Legend, labelsWidth, pointX, TimeAxis, ValueAxis } from './frame.tsx';
import { FORECAST_HEIGHT } from './sizes.ts';

type Day = { day: string; predicted: number; interval: [number, number] };

/**
 * The waste forecast day by day: the expected kg as a line inside its 95 % interval as a band, as
 * SVG (frame.tsx). Hidden from assistive technology: the forecast page's table below it carries
 * the same figures. Each day's figures are also its hover title.
 */
export function ForecastBand({ data }: { data: Day[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  const legend = [
    { label: t('forecast.interval'), color: COLORS.band },
    { label: t('forecast.predicted'), color: COLORS.line },
  ];
  return (
    <ChartFrame chart="forecast" height={FORECAST_HEIGHT} label={undefined}>
      {(width) => {
        const top = 28;
        const bottom = FORECAST_HEIGHT - 24;
        const y = scaleLinear()
          .domain([0, Math.max(...data.flatMap((d) => [d.predicted, d.interval[1]]), 0) || 1])
          .nice(5)
          .range([bottom, top]);
        const ticks = y.ticks(5).map(format.kg);
        const left = labelsWidth(ticks);
        const right = width - 16;
        const x = pointX(data.length, left, right);
        const step = data.length > 1 ? (right - left) / (data.length - 1) : right - left;
        const band = area<Day>()
          .x((_, i) => x(i))
          .y0((d) => y(d.interval[0]))
          .y1((d) => y(d.interval[1]))
          .curve(curveMonotoneX);
        const expected = line<Day>()
          .x((_, i) => x(i))
          .y((d) => y(d.predicted))
          .curve(curveMonotoneX);
        return (
          <>
            <Legend entries={legend} x={left} y={14} />
            <ValueAxis y={y} left={left} right={right} format={format.kg} ticks={5} />
            <path data-series="interval" d={band(data) ?? ''} fill={COLORS.band} />
            <path data-series="predicted" d={expected(data) ?? ''} fill="none" stroke={COLORS.line} strokeWidth={2} />
            {data.map((d, i) => (
              <rect key={d.day} x={x(i) - step / 2} y={top} width={step} height={bottom - top} fill="transparent">
                <title>{`${d.day}: ${format.kg(d.predicted)} (${format.kg(d.interval[0])} – ${format.kg(d.interval[1])})`}</title>
              </rect>
            ))}
            <TimeAxis labels={data.map((d) => d.day)} x={x} top={bottom} />
          </>
        );
      }}
    </ChartFrame>
  );
}
