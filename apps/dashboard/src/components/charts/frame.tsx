import { useElementSize } from '@mantine/hooks';
import type { ScaleLinear } from 'd3-scale';
import type { ReactNode } from 'react';

/**
 * What the dashboard's charts share: plain SVG drawn by React, its geometry from d3-scale and
 * d3-shape (a few kB), not a charting framework. Recharts and Mantine Charts cost ~130 kB
 * compressed and the longest tasks of the overview on a phone, for five charts a page already
 * states as text.
 *
 * A chart draws at its container's measured width (a ResizeObserver through Mantine's
 * `useElementSize`) and at the height it was given, which is the placeholder's while its module
 * loads (sizes.ts): nothing around it moves when it appears or when the window is resized.
 */

export const AXIS_FONT_SIZE = 12;
/** Mantine's colours as CSS variables: the charts follow the theme (and its dark scheme). */
export const COLORS = {
  fill: 'var(--mantine-color-teal-6)',
  line: 'var(--mantine-color-teal-8)',
  band: 'var(--mantine-color-teal-2)',
  lost: 'var(--mantine-color-orange-6)',
  grid: 'var(--mantine-color-gray-3)',
  text: 'var(--mantine-color-dimmed)',
  label: 'var(--mantine-color-text)',
};

/**
 * A chart's box: a block of the given height whose SVG is drawn once its width is known (the first
 * frame after mounting). `data-chart` names what is drawn, for the browser tests and for styling.
 */
export function ChartFrame({
  height,
  chart,
  label,
  children,
}: {
  height: number;
  /** What the chart is (`trend`, `bars`, `destinations`, `forecast`): its `data-chart`. */
  chart: string;
  /** Its accessible name with every figure in it, or undefined when the page states them beside it (the SVG is then hidden from assistive technology). */
  label: string | undefined;
  children: (width: number) => ReactNode;
}) {
  const { ref, width } = useElementSize();
  const drawing = {
    className: 'merma-chart',
    'data-chart': chart,
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    fontSize: AXIS_FONT_SIZE,
    style: { display: 'block', overflow: 'visible' },
  } as const;
  return (
    <div ref={ref} style={{ width: '100%', height }}>
      {width > 0 &&
        (label === undefined ? (
          <svg {...drawing} aria-hidden>
            {children(width)}
          </svg>
        ) : (
          <svg {...drawing} role="img" aria-label={label}>
            {children(width)}
          </svg>
        ))}
    </div>
  );
}

/** Room for the widest of these labels at the axis's font size (an estimate: 0.6 em a character). */
export const labelsWidth = (labels: string[]) => Math.ceil(Math.max(0, ...labels.map((l) => l.length)) * AXIS_FONT_SIZE * 0.6) + 10;

/** Where the i-th of `count` points stands between `left` and `right` (a lone point in the middle). */
export const pointX = (count: number, left: number, right: number) => (i: number) =>
  count > 1 ? left + ((right - left) * i) / (count - 1) : (left + right) / 2;

/** Horizontal grid lines and their figures at the left, at the scale's round ticks. */
export function ValueAxis({
  y,
  left,
  right,
  format,
  ticks = 4,
}: {
  y: ScaleLinear<number, number>;
  left: number;
  right: number;
  format: (v: number) => string;
  ticks?: number;
}) {
  return (
    <g data-axis="value">
      {y.ticks(ticks).map((v) => (
        <g key={v}>
          <line x1={left} x2={right} y1={y(v)} y2={y(v)} stroke={COLORS.grid} strokeDasharray="3 3" />
          <text x={left - 6} y={y(v)} dy="0.32em" textAnchor="end" fill={COLORS.text}>
            {format(v)}
          </text>
        </g>
      ))}
    </g>
  );
}

/**
 * Labels under the points of a time axis, as many as fit without overlapping: every k-th, with the
 * last one always shown (the most recent day is the one a reader looks for).
 */
export function TimeAxis({ labels, x, top }: { labels: string[]; x: (i: number) => number; top: number }) {
  const widest = Math.max(1, ...labels.map((l) => l.length)) * AXIS_FONT_SIZE * 0.6 + 8;
  const span = labels.length > 1 ? Math.abs(x(labels.length - 1) - x(0)) / (labels.length - 1) : widest;
  const every = Math.max(1, Math.ceil(widest / span));
  const shown = labels.map((_, i) => i).filter((i) => (labels.length - 1 - i) % every === 0);
  return (
    <g data-axis="time">
      {shown.map((i) => (
        <text key={i} x={x(i)} y={top + AXIS_FONT_SIZE + 4} textAnchor="middle" fill={COLORS.text}>
          {labels[i]}
        </text>
      ))}
    </g>
  );
}

/** A legend's entries, a swatch and its name each, in a row from `x`. */
export function Legend({ entries, x, y }: { entries: { label: string; color: string }[]; x: number; y: number }) {
  let at = x;
  return (
    <g data-legend>
      {entries.map((e) => {
        const start = at;
        at += 18 + e.label.length * AXIS_FONT_SIZE * 0.6 + 16;
        return (
          <g key={e.label}>
            <rect x={start} y={y - 9} width={12} height={12} rx={2} fill={e.color} />
            <text x={start + 18} y={y} dy="-0.1em" fill={COLORS.label}>
              {e.label}
            </text>
          </g>
        );
      })}
    </g>
  );
}
