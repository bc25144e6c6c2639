// Puts the data sets that `pnpm bench:forecast` may read but this repository may not hold into
// bench/data/external/ (gitignored).
//
// Kaggle's "French Bakery Daily Sales" (matthieugimbert) says "Data files © Original Authors": no
// licence to redistribute, so it is not committed. Get its transaction file "Bakery sales.csv"
// (,date,time,ticket_number,article,Quantity,unit_price; about 14 MB, 234,005 rows) one of two ways:
// - from Kaggle (an account is needed): download the data set and unzip it;
// - from the public GitHub repository Juli27co/French-bakery-daily-sales, which holds a copy:
//   clone it (`git clone --depth 1 <its address>`).
// Then: `node bench/fetch-forecast-data.mjs french-bakery <the file, or the clone's directory>`
// checks the file's header and row count and copies it to bench/data/external/bakery-sales.csv,
// where `FORECAST_SET=french-bakery pnpm bench:forecast` reads it.
//
// The second real data set, the Italian grocery store's pasta (UCI "Hierarchical Sales Data",
// CC BY 4.0), is small and committed: bench/data/forecast-italian-pasta.csv.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXTERNAL = join(dirname(fileURLToPath(import.meta.url)), 'data', 'external');
const HEADER = ',date,time,ticket_number,article,Quantity,unit_price';
const ROWS = 234_005;

/** The file's text: the file itself, or `Bakery sales.csv` at the head of a git clone (bare or not). */
function readSource(source) {
  if (!statSync(source).isDirectory()) return readFileSync(source, 'utf8');
  try {
    return readFileSync(join(source, 'Bakery sales.csv'), 'utf8');
  } catch {
    return execFileSync('git', ['--git-dir', source, 'show', 'HEAD:Bakery sales.csv'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  }
}

function frenchBakery(source) {
  const text = readSource(source).replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines[0] !== HEADER) throw new Error(`unexpected header ${JSON.stringify(lines[0])}, expected ${JSON.stringify(HEADER)}`);
  if (lines.length - 1 !== ROWS) console.warn(`${lines.length - 1} rows, the data set's page says ${ROWS}: another version?`);
  mkdirSync(EXTERNAL, { recursive: true });
  const out = join(EXTERNAL, 'bakery-sales.csv');
  writeFileSync(out, text);
  console.log(`wrote ${out} (${lines.length - 1} rows, ${lines[1].split(',')[1]} … ${lines.at(-1).split(',')[1]})`);
}

const [set, source] = process.argv.slice(2);
if (set !== 'french-bakery' || !source) {
  console.error('usage: node bench/fetch-forecast-data.mjs french-bakery <Bakery sales.csv | a clone of the repository>');
  process.exit(2);
}
frenchBakery(source);
