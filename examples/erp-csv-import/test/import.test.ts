import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Merma } from '@merma/sdk';
import { CAUSA_CADUCIDAD, DESTINO_DONATION, DESTINO_LANDFILL, startTestServer, type TestServer } from '@merma/test-server';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { occurredAt, parseDate, parseWeight } from '../src/import.mjs';

/**
 * The importer run as a user runs it (`node src/import.mjs file.csv`, a child process) against the
 * real built server (@merma/test-server) on a loopback port; assertions read its database with SQL.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, '../src/import.mjs');
const fixture = (name: string) => path.join(here, '../fixtures', name);

/**
 * The fixtures' days, 20–22 November 2026, moved to the three days before yesterday: the server
 * takes `occurred_at` at most 400 days back, so the files are imported as if exported this week.
 */
function recent(day: number): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() - (24 - day));
  return d.toISOString().slice(0, 10);
}

/** A copy of a fixture with its November 2026 dates moved by `recent` (each in its own format). */
async function datedCopy(name: string): Promise<string> {
  const text = (await readFile(fixture(name), 'utf8'))
    .replace(/2026-11-(2[0-2])/g, (_m, day: string) => recent(Number(day)))
    .replace(/\b(2[0-2])\/11\/2026\b/g, (_m, day: string) => recent(Number(day)).split('-').reverse().join('/'));
  const file = path.join(dir, `dated-${name}`);
  await writeFile(file, text);
  return file;
}

let t: TestServer;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  t = await startTestServer();
  baseUrl = t.url;
  dir = await mkdtemp(path.join(tmpdir(), 'merma-erp-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Run = { code: number | null; stdout: string; stderr: string };

function start(args: string[], key: string): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, MERMA_API_KEY: key, MERMA_BASE_URL: baseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c;
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c;
  });
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

const run = (args: string[], key: string) => start(args, key).done;

type StoredRecord = {
  product_name: string | null;
  food_category: string;
  weight_kg: string;
  destino_id: string;
  causa_id: string | null;
  notes: string | null;
  occurred_at: Date;
  created_at: Date;
};

async function records(establishmentId: string) {
  const { rows } = await t.sql.query<StoredRecord>('SELECT * FROM records WHERE establishment_id = $1 ORDER BY chain_seq ASC', [
    establishmentId,
  ]);
  return rows;
}

async function countRecords(establishmentId: string) {
  const { rows } = await t.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM records WHERE establishment_id = $1', [
    establishmentId,
  ]);
  return rows[0]?.n;
}

describe('parsing', () => {
  it('reads Spanish and English number and date formats', () => {
    expect(['1,5', '1.5', '3,2 kg', '1.250,5', '1,250.5', '1.234.567', '1,500', '12'].map(parseWeight)).toEqual([
      1.5, 1.5, 3.2, 1250.5, 1250.5, 1234567, 1.5, 12,
    ]);
    expect(['-1', '1,2,3,4', '1.2.3,4', 'abc', '1,', ''].map(parseWeight).every(Number.isNaN)).toBe(true);
    expect(['2026-11-20', '20/11/2026', '1-2-2026', '31/11/2026'].map(parseDate)).toEqual([
      '2026-11-20',
      '2026-11-20',
      '2026-02-01',
      undefined,
    ]);
  });
});

describe('erp-csv-import against the server', () => {
  it('--dry-run maps every line and reports the bad ones by line number, storing nothing', async () => {
    const tenant = await t.createTenant();
    const res = await run([fixture('erp-export.csv'), '--dry-run'], tenant.key);
    expect(res.stdout).toContain('erp-export.csv: 13 rows, 8 valid');
    expect(res.stdout).toContain('dry run: nothing was sent');
    expect(res.stdout).toContain('failed: 5');
    expect(res.stdout).toContain('line 10: categoria "Chucherías" is not a food category');
    expect(res.stdout).toContain('line 11: destino "Contenedor azul" is unknown');
    expect(res.stdout).toContain('line 12: peso_kg "-1"');
    expect(res.stdout).toMatch(/line 13: fecha "31\/11\/2026" is not a date.*; causa "Inventada" is unknown/);
    expect(res.stdout).toContain('line 15: expected 7 fields separated by ";", found 3');
    expect(res.code).toBe(2);
    expect(await records(tenant.establishmentId)).toHaveLength(0);
  });

  it('imports a ;-separated export with decimal commas, names matched without case or accents', async () => {
    const tenant = await t.createTenant();
    const res = await run([await datedCopy('erp-export.csv'), '--json'], tenant.key);
    expect(res.code).toBe(2);
    const summary = JSON.parse(res.stdout);
    expect(summary).toMatchObject({ rows: 13, valid: 8, inserted: 8, failed: 5, dry_run: false });
    expect(summary.errors.map((e: { line: number }) => e.line)).toEqual([10, 11, 12, 13, 15]);
    expect(res.stderr).toContain('progress 8/8 rows (inserted 8, already stored 0, failed 0)');

    const stored = await records(tenant.establishmentId);
    expect(stored.map((r) => [r.product_name, r.food_category, Number(r.weight_kg)])).toEqual([
      ['Barra de pan', 'bakery', 3.2],
      ['Pechuga de pollo', 'meat', 1.5],
      ['Tomate pera', 'fruit_veg', 12.75],
      ['Yogur natural', 'dairy', 0.5],
      ['Menú del día; segundo plato', 'prepared_meals', 4],
      ['Merluza', 'fish', 2.125],
      ['Zumo de naranja', 'beverages', 1250.5],
      ['Bolsa mixta', 'others', 0.8],
    ]);
    expect(stored[0]).toMatchObject({ destino_id: DESTINO_DONATION, causa_id: CAUSA_CADUCIDAD, notes: 'ref ALB-1001' });
    // The ERP's date is when the waste happened: noon of that day in Madrid.
    expect(stored[0]?.occurred_at).toEqual(new Date(occurredAt(recent(20), 'Europe/Madrid')));
    const madrid = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Europe/Madrid',
      dateStyle: 'short',
      timeStyle: 'short',
      hourCycle: 'h23',
    });
    expect(madrid.format(stored[0]?.occurred_at)).toBe(`${recent(20)}, 12:00`);
    expect(stored[0]?.created_at.getTime()).toBeGreaterThan(stored[0]?.occurred_at.getTime() ?? 0);
    expect(stored[1]).toMatchObject({ destino_id: DESTINO_LANDFILL });
    expect(stored[3]).toMatchObject({ destino_id: DESTINO_DONATION, causa_id: CAUSA_CADUCIDAD });
    expect(stored[5]).toMatchObject({ causa_id: null, notes: 'ref ALB-1006' });
    expect(stored[5]?.occurred_at).toEqual(new Date(occurredAt(recent(21), 'Europe/Madrid')));
    expect(stored[7]).toMatchObject({ destino_id: DESTINO_DONATION, causa_id: CAUSA_CADUCIDAD });
  });

  it('imports a ,-separated export with English headers and codes', async () => {
    const tenant = await t.createTenant();
    const res = await run([await datedCopy('erp-export-comma.csv'), '--timezone', 'Atlantic/Canary'], tenant.key);
    expect(res.stdout).toContain('inserted: 3');
    expect(res.stdout).toContain('failed: 0');
    expect(res.code).toBe(0);
    const stored = await records(tenant.establishmentId);
    expect(stored.map((r) => [r.product_name, r.food_category, Number(r.weight_kg), r.destino_id])).toEqual([
      ['Croissant, mantequilla', 'bakery', 2.5, DESTINO_DONATION],
      ['Lechuga', 'fruit_veg', 1.5, '51a096c6-196d-41dd-a02a-968cbfa9803f'],
      ['Albóndigas', 'meat', 0.75, DESTINO_LANDFILL],
    ]);
    // --timezone: the Canaries' noon.
    expect(stored[0]?.occurred_at).toEqual(new Date(occurredAt(recent(22), 'Atlantic/Canary')));
  });

  it('stores nothing twice when an import killed half-way is run again, and again', async () => {
    const tenant = await t.createTenant();
    const lines = ['fecha;categoria;peso_kg;destino;causa;producto;ref'];
    for (let i = 0; i < 1_200; i++) {
      const destino = i === 999 ? 'Contenedor azul' : i % 2 ? 'Donación' : 'Compostaje';
      lines.push(
        `${recent(20 + (i % 3))};${['Panadería', 'Carne', 'Lácteos'][i % 3]};${(i % 17) + 1},${i % 10};${destino};Caducidad;Artículo ${i};L-${i}`,
      );
    }
    const file = path.join(dir, 'big-export.csv');
    await writeFile(file, `${lines.join('\r\n')}\r\n`);

    // First run: killed (SIGKILL, no chance to clean up) as soon as its first chunk of 500 is
    // committed, possibly before the answer reached it.
    const first = start([file], tenant.key);
    const count = async () => (await countRecords(tenant.establishmentId)) ?? 0;
    const giveUpAt = Date.now() + deadline(30_000);
    while ((await count()) < 500 && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 10));
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.code).toBeNull();
    const afterCrash = await count();
    expect(afterCrash).toBeGreaterThanOrEqual(500);
    expect(afterCrash).toBeLessThan(1_199);

    for (let attempt = 0; attempt < 2; attempt++) {
      const again = await run([file, '--json'], tenant.key);
      const summary = JSON.parse(again.stdout);
      // The first rerun stores what the killed run had not, and the chunks it had stored are
      // replayed: at least those counted after the kill (a chunk in flight when the client died
      // may still commit afterwards), whole chunks of 500 either way. The second stores nothing.
      const { replayed } = summary;
      if (attempt === 0) {
        expect([500, 1_000]).toContain(replayed);
        expect(replayed).toBeGreaterThanOrEqual(afterCrash);
      } else expect(replayed).toBe(1_199);
      expect(summary).toMatchObject({ rows: 1_200, valid: 1_199, inserted: 1_199 - replayed, failed: 1 });
      expect(summary.errors).toEqual([{ line: 1_001, message: 'destino "Contenedor azul" is unknown (see GET /api/v1/destinos)' }]);
      expect(await countRecords(tenant.establishmentId)).toBe(1_199);
    }
    const merma = new Merma({ apiKey: tenant.key, baseUrl });
    expect(await merma.records.verify()).toMatchObject({ valid: true, checked: 1_199 });
  });

  it('fails clearly without a key, a file or the required columns', async () => {
    const tenant = await t.createTenant();
    const bad = path.join(dir, 'bad-header.csv');
    await writeFile(bad, 'fecha;kilos;destino\n2026-11-20;1;Donación\n');
    const res = await run([bad], tenant.key);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('The header lacks the column(s) categoria, peso_kg');
    expect((await run([path.join(dir, 'missing.csv')], tenant.key)).stderr).toMatch(/import failed: ENOENT/);
    const noKey = await run([fixture('erp-export.csv')], '');
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('Missing API key');
  });
});
