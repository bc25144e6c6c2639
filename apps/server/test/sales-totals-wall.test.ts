import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The daily sales totals (`sale_day_totals`) are written by the sales module and read through
 * modules/sales/totals.ts: no other file of src/ writes SQL that names the table (the Prisma client
 * under generated/ and the migrations under prisma/ aside). A reader elsewhere would be a second
 * copy of the statements the forecast was measured with, free to drift from them.
 */
const SRC = join(__dirname, '../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'generated' ? [] : sources(path);
    return d.name.endsWith('.ts') ? [path] : [];
  });
}

/** The table named where SQL names a table: after FROM, JOIN, INTO, UPDATE or TABLE (any case). */
const SQL_NAMING_TABLE = /\b(?:from|join|into|update|table)\s+"?sale_day_totals\b/i;

/** `text` without its JavaScript comments (block comments, and line comments on a line of their own). */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

describe('the daily sales totals', () => {
  it('are named in SQL only by the sales module', () => {
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(40);
    const readers = files
      .map((file) => relative(SRC, file).replaceAll('\\', '/'))
      .filter((path) => !path.startsWith('modules/sales/'))
      .filter((path) => SQL_NAMING_TABLE.test(withoutComments(readFileSync(join(SRC, path), 'utf8'))));
    expect(readers).toEqual([]);
  });

  it('are read by the sales module, where the scan looks', () => {
    // The scan above finds what it is meant to find: the module's own statements.
    const totals = readFileSync(join(SRC, 'modules/sales/totals.ts'), 'utf8');
    expect(SQL_NAMING_TABLE.test(withoutComments(totals))).toBe(true);
  });
});
