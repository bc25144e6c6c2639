import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CAUSA_CADUCIDAD,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  recordAt,
  startTestServer,
  type Tenant,
  type TestServer,
} from '@merma/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, todayIn } from '../src/report.mjs';

/**
 * The report run as cron would run it (a child process) against the real built server
 * (@merma/test-server), on records seeded at known times around yesterday (Europe/Madrid, the
 * establishment's zone): each created through the API, then dated with SQL (see recordAt).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, '../src/report.mjs');
const COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let t: TestServer;
let baseUrl: string;
let dir: string;
let tenant: Tenant;
let yesterday: string;

beforeAll(async () => {
  t = await startTestServer();
  baseUrl = t.url;
  dir = await mkdtemp(path.join(tmpdir(), 'merma-report-'));

  tenant = await t.createTenant();
  yesterday = addDays(todayIn('Europe/Madrid'), -1);
  // Times in UTC between 09:00 and 20:00: the same calendar day in Madrid, summer or winter.
  const at = (day: string, hour: number) => `${day}T${String(hour).padStart(2, '0')}:00:00.000Z`;
  await recordAt(t, tenant, at(yesterday, 9), { food_category: 'bakery', weight_kg: 2.5, causa_id: CAUSA_CADUCIDAD });
  await recordAt(t, tenant, at(yesterday, 13), { food_category: 'meat', weight_kg: 1.25, destino_id: DESTINO_LANDFILL });
  await recordAt(t, tenant, at(yesterday, 20), {
    food_category: 'dairy',
    weight_kg: 4,
    destino_id: COMPOSTING,
    causa_id: CAUSA_CADUCIDAD,
  });
  await recordAt(t, tenant, at(addDays(yesterday, -3), 12), { food_category: 'fish', weight_kg: 6, destino_id: DESTINO_DONATION });
  await recordAt(t, tenant, at(addDays(yesterday, -10), 12), { food_category: 'bakery', weight_kg: 3, destino_id: DESTINO_LANDFILL });
  await recordAt(t, tenant, at(addDays(yesterday, -40), 12), { food_category: 'meat', weight_kg: 50 }); // benchmark only
  // Four more establishments of the sector, so that the benchmark is not withheld. Each one's rate is
  // its kg over the days from its first record in the window to today: 9, 18, 45 and 90 kg over 7 days.
  for (const total of [9, 18, 45, 90]) {
    await recordAt(t, await t.createTenant(), at(addDays(yesterday, -5), 12), { weight_kg: total });
  }
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: dir,
      env: { ...process.env, MERMA_API_KEY: tenant.key, MERMA_BASE_URL: baseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('nightly-report against the server', () => {
  it('reports yesterday, the last 30 days and the benchmark, and draws the trend as a PNG', async () => {
    const res = await run([]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const text = res.stdout;
    expect(text).toMatch(/^Merma nightly report: Cocina \d+ \(horeca\), \w+, \d+ \w+ \d{4} \(Europe\/Madrid\)\n/);
    expect(text).toContain(`${yesterday}  7.75 kg in 3 records · recovered 83.9 %`);
    expect(text).toContain('by category     dairy 4 kg · bakery 2.5 kg · meat 1.25 kg');
    expect(text).toContain(
      'by destination  Compostaje o digestato 4 kg · Donación para consumo humano 2.5 kg · Eliminación en vertedero 1.25 kg',
    );
    expect(text).toContain('by cause        Caducidad 6.5 kg · (not given) 1.25 kg');
    expect(text).toContain(
      `Last 30 days (${addDays(yesterday, -29)} to ${yesterday})  16.75 kg in 5 records · 0.558 kg a day · ${yesterday} +1288 % against that`,
    );
    expect(text).toContain(`highest day     ${yesterday} with 7.75 kg`);
    expect(text).toContain('Sector benchmark (horeca, last 90 days)');
    // You: 66.75 kg from 40 days before yesterday to today, 42 days. The sector: the mean of the five
    // rates, (1.589 + 1.286 + 2.571 + 6.429 + 12.857) / 5; one establishment wastes less a day than
    // you (and half of yourself): percentile 30.
    expect(text).toContain('you             1.589 kg a day');
    expect(text).toContain('sector          4.946 kg a day over 5 establishments · percentile 30');

    const chart = path.join(dir, `merma-trend-${yesterday}.png`);
    expect(text).toContain(`Trend chart: ${chart}`);
    const png = await readFile(chart);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    expect(width).toBeGreaterThan(1_200); // 640 px of plot, axes and padding, at 2x
    expect(height).toBeGreaterThan(500);
    expect(png.length).toBeGreaterThan(10_000);
    expect(png.length).toBeLessThan(2_000_000);
  });

  it('reports another day with --date, to another file with --out, or without a chart', async () => {
    const day = addDays(yesterday, -3);
    const out = path.join(dir, 'custom.png');
    const res = await run(['--date', day, '--out', out]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`${day}  6 kg in 1 record · recovered 100 %`);
    expect(res.stdout).toContain(`Last 30 days (${addDays(day, -29)} to ${day})  9 kg in 2 records`);
    expect((await stat(out)).size).toBeGreaterThan(10_000);

    const bare = await run(['--date', day, '--no-chart']);
    expect(bare.stdout).not.toContain('Trend chart');
    const bad = await run(['--date', '2026-02-30']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--date "2026-02-30" is not a date YYYY-MM-DD');
  });
});
