#!/usr/bin/env node
// @ts-check
/**
 * The nightly waste report: yesterday's figures, the last 30 days and the sector benchmark as plain
 * text (for a cron mail or a chat message), and the 30-day trend as a PNG chart.
 *
 *   MERMA_API_KEY=svc_test_… node src/report.mjs [--date 2026-11-22] [--out trend.png]
 *
 * "Yesterday" is the day before today in the establishment's time zone. Uses 2 of the 10 analytics
 * calls per hour a key has by default.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Merma } from '@merma/sdk';
import { trendPng } from './chart.mjs';

/** @typedef {import('@merma/sdk').AnalyticsResult} AnalyticsResult */
/** @typedef {import('@merma/sdk').BenchmarkResult} BenchmarkResult */

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
export const TREND_DAYS = 30;

/**
 * Today's date (`YYYY-MM-DD`) in `timeZone`.
 * @param {string} timeZone
 * @param {Date} [now]
 */
export function todayIn(timeZone, now = new Date()) {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/**
 * @param {string} day `YYYY-MM-DD`
 * @param {number} days may be negative
 */
export function addDays(day, days) {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * True for a real calendar date `YYYY-MM-DD`.
 * @param {string} s
 */
export function isDate(s) {
  const d = new Date(`${s}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** @param {number} v */
const kg = (v) => `${v.toLocaleString('en-GB', { maximumFractionDigits: 3 })} kg`;
/** @param {number} v */
const pct = (v) => `${Number((v * 100).toFixed(1))} %`;

/**
 * `name 3 kg · other 1 kg`, largest first.
 * @param {Record<string, number>} totals
 * @param {(key: string) => string} [name]
 */
function breakdown(totals, name = (k) => k) {
  const parts = Object.entries(totals)
    .filter(([, v]) => v > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([k, v]) => `${name(k)} ${kg(v)}`);
  return parts.length ? parts.join(' · ') : '—';
}

/**
 * The report's text.
 * @param {object} r
 * @param {string} r.establishment
 * @param {string} r.timezone
 * @param {string} r.date
 * @param {AnalyticsResult} r.day
 * @param {AnalyticsResult} r.trend
 * @param {BenchmarkResult} r.benchmark
 * @param {Map<string, string>} r.names destination and cause names by id
 * @param {string} [r.chart] where the chart was written
 */
export function formatReport({ establishment, timezone, date, day, trend, benchmark, names, chart }) {
  const weekday = new Intl.DateTimeFormat('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${date}T12:00:00Z`));
  const name = (/** @type {string} */ id) => (id === 'none' ? '(not given)' : (names.get(id) ?? id));
  const average = trend.total_kg / TREND_DAYS;
  const peak = trend.trend.reduce((best, p) => (p.total_kg > best.total_kg ? p : best), { period: '', total_kg: 0 });
  const lines = [
    `Merma nightly report: ${establishment}, ${weekday} (${timezone})`,
    '',
    `${date}  ${kg(day.total_kg)} in ${day.total_records} record${day.total_records === 1 ? '' : 's'}` +
      (day.recovery_rate === null ? '' : ` · recovered ${pct(day.recovery_rate)}`),
    `  by category     ${breakdown(day.by_category)}`,
    `  by destination  ${breakdown(day.by_destino, name)}`,
    `  by cause        ${breakdown(day.by_cause, name)}`,
    '',
    `Last ${TREND_DAYS} days (${trend.from} to ${trend.to})  ${kg(trend.total_kg)} in ${trend.total_records} records · ${kg(average)} a day` +
      (average > 0
        ? ` · ${date} ${day.total_kg >= average ? '+' : '-'}${Math.round(Math.abs(day.total_kg / average - 1) * 100)} % against that`
        : ''),
    ...(peak.total_kg > 0 ? [`  highest day     ${peak.period} with ${kg(peak.total_kg)}`] : []),
    `  recovered       ${trend.recovery_rate === null ? '—' : pct(trend.recovery_rate)}`,
    '',
    `Sector benchmark (${benchmark.sector}, last ${benchmark.window_days} days)`,
    `  you             ${kg(benchmark.your_avg_kg_per_day)} a day`,
    benchmark.sector_avg_kg_per_day === null
      ? `  sector          withheld: ${benchmark.note ?? 'not enough establishments'}`
      : `  sector          ${kg(benchmark.sector_avg_kg_per_day)} a day over ${benchmark.sample_size} establishments · ` +
        `percentile ${benchmark.percentile}: that share of them wastes less a day than you`,
  ];
  if (chart) lines.push('', `Trend chart: ${chart}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Fetches everything and renders the report (and the chart unless `out` is null).
 * @param {object} options
 * @param {Merma} options.merma
 * @param {string} [options.date] the day to report on; default yesterday in the establishment's zone
 * @param {string | null} [options.out] the PNG's path; null for none
 * @param {Date} [options.now]
 */
export async function buildReport({ merma, date, out, now = new Date() }) {
  const establishments = await merma.establishments.list();
  // A key lists its own establishment (an Enterprise Multi key, every one of the organisation's).
  const own = establishments.length === 1 ? establishments[0] : undefined;
  const timezone = own?.timezone ?? 'Europe/Madrid';
  const day = date ?? addDays(todayIn(timezone, now), -1);
  const first = addDays(day, -(TREND_DAYS - 1));
  const [dayStats, trend, benchmark, destinos, causas] = await Promise.all([
    merma.analytics.get({ from: day, to: day, group_by: 'day' }),
    merma.analytics.get({ from: first, to: day, group_by: 'day' }),
    merma.benchmarking.get(),
    merma.destinos.list(),
    merma.causas.list(),
  ]);
  const names = new Map([...destinos, ...causas].map((e) => [e.id, e.nombre]));
  let chart;
  if (out !== null) {
    chart = path.resolve(out ?? `merma-trend-${day}.png`);
    const title = `${own?.name ?? 'Food waste'}: kg per day, ${first} to ${day}`;
    await writeFile(chart, await trendPng(trend.trend, day, title));
  }
  const text = formatReport({
    establishment: own ? `${own.name} (${own.sector})` : `${establishments.length} establishments`,
    timezone,
    date: day,
    day: dayStats,
    trend,
    benchmark,
    names,
    ...(chart ? { chart } : {}),
  });
  return { text, chart, date: day, day: dayStats, trend, benchmark };
}

const USAGE = `usage: node src/report.mjs [--date YYYY-MM-DD] [--out trend.png] [--no-chart]
  --date          the day to report on (default: yesterday in the establishment's time zone)
  --out           where to write the PNG chart of the ${TREND_DAYS} days up to that day (default ./merma-trend-<date>.png)
  MERMA_API_KEY   the API key (required), e.g. the svc_test_ key printed by \`pnpm admin quickstart\`
  MERMA_BASE_URL  the API (default ${DEFAULT_BASE_URL})`;

/** @param {string[]} argv */
export async function main(argv) {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        date: { type: 'string' },
        out: { type: 'string' },
        'no-chart': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`${/** @type {Error} */ (err).message}\n${USAGE}\n`);
    return 1;
  }
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { date } = args.values;
  if (date !== undefined && !isDate(date)) {
    process.stderr.write(`--date "${date}" is not a date YYYY-MM-DD\n`);
    return 1;
  }
  try {
    const merma = new Merma({ apiKey: process.env.MERMA_API_KEY, baseUrl: process.env.MERMA_BASE_URL || DEFAULT_BASE_URL });
    const report = await buildReport({ merma, date, out: args.values['no-chart'] ? null : args.values.out });
    process.stdout.write(report.text);
    return 0;
  } catch (err) {
    process.stderr.write(`report failed: ${/** @type {Error} */ (err).message}\n`);
    return 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
