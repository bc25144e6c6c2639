import { useTranslation } from 'react-i18next';
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useFormat } from '../../lib/format.ts';
import { FORECAST_HEIGHT } from './sizes.ts';

/**
 * The waste forecast day by day: the expected kg as a line inside its 95 % interval as a band.
 * Hidden from assistive technology: the forecast page's table below it carries the same figures.
 */
export function ForecastBand({ data }: { data: { day: string; predicted: number; interval: [number, number] }[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  return (
    <div style={{ width: '100%', height: FORECAST_HEIGHT }} aria-hidden>
      <ResponsiveContainer>
        <ComposedChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" fontSize={12} />
          <YAxis fontSize={12} tickFormatter={(v: number) => format.kg(v)} width={80} />
          <Tooltip
            formatter={(value) => (Array.isArray(value) ? value.map((v) => format.kg(Number(v))).join(' – ') : format.kg(Number(value)))}
          />
          <Legend />
          <Area
            dataKey="interval"
            name={t('forecast.interval')}
            stroke="none"
            fill="var(--mantine-color-teal-2)"
            isAnimationActive={false}
          />
          <Line
            dataKey="predicted"
            name={t('forecast.predicted')}
            stroke="var(--mantine-color-teal-8)"
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
