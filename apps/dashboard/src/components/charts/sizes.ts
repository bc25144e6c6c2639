/**
 * The charts' heights, known before their module loads: the placeholder that stands in while it
 * loads takes the same room, so nothing below moves when the chart arrives (no layout shift).
 */
export const TREND_HEIGHT = 260;
export const FORECAST_HEIGHT = 300;
/** One row of a horizontal bar chart: its name on a line, its bar under it. */
export const BAR_ROW = 36;
/** A horizontal bar chart of `rows` bars (and room for a legend above them). */
export const barChartHeight = (rows: number) => Math.max(120, rows * BAR_ROW + 40);
