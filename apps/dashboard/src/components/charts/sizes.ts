/**
 * The charts' heights, known before their module loads: the placeholder that stands in while it
 * loads takes the same room, so nothing below moves when the chart arrives (no layout shift).
 */
export const TREND_HEIGHT = 260;
export const FORECAST_HEIGHT = 300;
/** A horizontal bar chart of `rows` bars. */
export const barChartHeight = (rows: number) => Math.max(120, rows * 36 + 40);
