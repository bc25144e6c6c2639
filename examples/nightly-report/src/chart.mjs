// @ts-check
/**
 * The 30-day trend as a PNG, rendered on the server: Vega-Lite compiles the chart to Vega, Vega
 * renders it to SVG with no browser and no canvas, and resvg (a Rust renderer shipped as a
 * prebuilt binary inside its npm package) turns the SVG into PNG with the system's fonts.
 */
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile } from 'vega-lite';

/**
 * The Vega-Lite spec: one bar per day, the report's day highlighted, and the period's daily mean
 * as a dashed rule.
 * @param {{ period: string, total_kg: number }[]} trend days `YYYY-MM-DD`, oldest first
 * @param {string} highlight the report's day
 * @param {string} title
 * @returns {import('vega-lite').TopLevelSpec}
 */
export function trendSpec(trend, highlight, title) {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle: 'orange: the report’s day · dashed line: the daily mean', anchor: 'start', fontSize: 14 },
    width: 640,
    height: 240,
    background: 'white',
    padding: 12,
    // Days as labels (`22/11`), not as dates: nothing to shift with the machine's time zone.
    data: { values: trend.map((p) => ({ day: p.period, label: `${p.period.slice(8, 10)}/${p.period.slice(5, 7)}`, kg: p.total_kg })) },
    layer: [
      {
        mark: { type: 'bar', cornerRadiusTopLeft: 2, cornerRadiusTopRight: 2 },
        encoding: {
          x: { field: 'label', type: 'ordinal', sort: null, title: null, axis: { labelAngle: -60 } },
          y: { field: 'kg', type: 'quantitative', title: 'kg' },
          color: { condition: { test: `datum.day === '${highlight}'`, value: '#d9822b' }, value: '#4c8c5a' },
        },
      },
      {
        mark: { type: 'rule', color: '#555555', strokeDash: [4, 4] },
        encoding: { y: { aggregate: 'mean', field: 'kg', type: 'quantitative' } },
      },
    ],
  };
}

/**
 * @param {import('vega-lite').TopLevelSpec} spec
 * @returns {Promise<string>} the SVG document
 */
export async function renderSvg(spec) {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * @param {string} svg
 * @param {number} [scale] 2 gives a sharp image on high-density screens and in e-mail
 * @returns {Buffer} the PNG file's bytes
 */
export function svgToPng(svg, scale = 2) {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    background: 'white',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}

/**
 * @param {{ period: string, total_kg: number }[]} trend
 * @param {string} highlight
 * @param {string} title
 */
export async function trendPng(trend, highlight, title) {
  return svgToPng(await renderSvg(trendSpec(trend, highlight, title)));
}
