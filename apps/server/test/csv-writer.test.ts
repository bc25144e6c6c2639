import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, CSV_HEADERS_ES, csvStringifier } from '../src/modules/records/export.js';
import { assertNoFormula, DIALECTS, expectedCell, parseCsv } from './csv.js';

/**
 * The CSV writer of the records export (records/export.ts) on its own: any text, however hostile,
 * is one cell of one row, read back as the text with its formula guard. csv-injection.test.ts
 * tests the export end to end.
 */

describe('the export writer, as a property', () => {
  // Text biased towards what breaks CSV and starts formulas, mixed with any other character.
  const hostileChar = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', ',', ';', '"', "'", ' ', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'),
    },
    { weight: 2, arbitrary: fc.constantFrom('a', 'Z', '1', 'ñ', '€') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  );
  const hostileText = fc.array(hostileChar, { maxLength: 24 }).map((cs) => cs.join('').replaceAll('\u0000', ''));
  const rowOf = fc.array(hostileText, { minLength: CSV_COLUMNS.length, maxLength: CSV_COLUMNS.length });

  const write = async (dialect: 'es' | 'plain', rows: string[][]) => {
    const csv = csvStringifier(dialect);
    const chunks: Buffer[] = [];
    csv.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
    const done = new Promise<void>((resolve, reject) => {
      csv.on('end', resolve);
      csv.on('error', reject);
    });
    for (const r of rows) csv.write(r);
    csv.end();
    await done;
    return Buffer.concat(chunks).toString('utf8');
  };

  it.each(DIALECTS)(
    'any texts: one row each, read back as the guarded text, no cell starting a formula ($dialect)',
    async ({ dialect, delimiter }) => {
      await fc.assert(
        fc.asyncProperty(fc.array(rowOf, { minLength: 1, maxLength: 5 }), async (rows) => {
          const parsed = parseCsv(await write(dialect, rows), delimiter);
          expect(parsed).toHaveLength(rows.length);
          parsed.forEach((row, i) => {
            expect(Object.values(row)).toEqual((rows[i] as string[]).map(expectedCell));
            for (const cell of Object.values(row)) assertNoFormula(cell);
          });
        }),
        { seed: 20261123, numRuns: 300 },
      );
    },
  );

  it('heads the Spanish file with the Spanish names after a BOM, and the plain one with the field names', async () => {
    const es = await write('es', []);
    expect(es.startsWith('\uFEFF')).toBe(true);
    expect(es.slice(1).split('\r\n')[0]).toBe(CSV_COLUMNS.map((key) => CSV_HEADERS_ES[key]).join(';'));
    expect(es).toContain('Fecha y hora (UTC)');
    const plain = await write('plain', []);
    expect(plain.split('\r\n')[0]).toBe(CSV_COLUMNS.join(','));
  });
});
