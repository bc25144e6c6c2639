import { FOOD_CATEGORIES } from '@merma/schema';
import { describe, expect, it } from 'vitest';
import { parseProductCsv, toProduct } from '../src/modules/catalog/products.js';

/**
 * The product CSV's reading (`parseProductCsv`, before `importProductCsv` writes anything): the
 * delimiter the header uses, the columns it names, each line's checks with the file's line number,
 * decimal commas, repeated EANs and POS references, prices that contradict each other. Every
 * problem is returned, none thrown; one problem and the import writes nothing (products-api.test.ts
 * runs it end to end on a database). Also a stored row as the API answers it (`toProduct`).
 */
const EAN = '4006381333931';
const EAN2 = '96385074';
const EAN3 = '036000291452';
const HEADER = 'name,food_category,ean';
const CATEGORIES = FOOD_CATEGORIES.join(', ');

/** A product as a line without the optional columns reads. */
const plain = (line: number, name: string, food_category: string, ean: string) => ({
  line,
  name,
  food_category,
  ean,
  pos_ref: null,
  unit_weight_kg: null,
  density_kg_per_l: null,
  price: null,
  unit_cost: null,
  salvage_value: null,
});

/** A `;` file (decimal commas need no quotes) of one product with one optional column. */
const withColumn = (column: string, value: string) => `name;food_category;ean;${column}\nPan;bakery;${EAN};${value}\n`;

const messages = (csv: string) => parseProductCsv(csv).problems.map((p) => p.message);

describe('reading the file', () => {
  it('reads a comma-separated file, each product with its line', () => {
    const { products, problems } = parseProductCsv(`${HEADER}\nPan,bakery,${EAN}\nLeche,dairy,${EAN2}\n`);
    expect(problems).toEqual([]);
    expect(products).toEqual([plain(2, 'Pan', 'bakery', EAN), plain(3, 'Leche', 'dairy', EAN2)]);
  });

  it("uses the header's delimiter for the whole file: a `;` file keeps commas inside names, a `,` file semicolons", () => {
    const semi = parseProductCsv(`name;food_category;ean\nPan, integral;bakery;${EAN}\n`);
    expect(semi.problems).toEqual([]);
    expect(semi.products).toEqual([plain(2, 'Pan, integral', 'bakery', EAN)]);
    // Only the header line decides: a later `;` in a comma file is part of a name.
    const comma = parseProductCsv(`${HEADER}\nPan; integral,bakery,${EAN}\n`);
    expect(comma.problems).toEqual([]);
    expect(comma.products).toEqual([plain(2, 'Pan; integral', 'bakery', EAN)]);
  });

  it('reads Windows line ends, a byte-order mark, header names in any case and spacing, and trims every field', () => {
    const { products, problems } = parseProductCsv(`\uFEFF Name , FOOD_CATEGORY ,Ean\r\n  Pan  , bakery ,  ${EAN} \r\n`);
    expect(problems).toEqual([]);
    expect(products).toEqual([plain(2, 'Pan', 'bakery', EAN)]);
  });

  it('skips blank lines without renumbering the lines after them', () => {
    const { products, problems } = parseProductCsv(`${HEADER}\n\nPan,bakery,${EAN}\n\n\nLeche,dairy,${EAN2}\n`);
    expect(problems).toEqual([]);
    expect(products.map((p) => p.line)).toEqual([3, 6]);
  });

  it('reads the optional columns in any order, a decimal comma as a point (quoted in a comma-separated file)', () => {
    const csv = [
      'ean;unit_cost;name;price;food_category;salvage_value;pos_ref;unit_weight_kg;density_kg_per_l',
      `${EAN};0,8;Leche;1,25;dairy;0,1;SKU-1;1,03;1,03456`,
      `${EAN2};;Pan;;bakery;;;;`,
    ].join('\n');
    const { products, problems } = parseProductCsv(csv);
    expect(problems).toEqual([]);
    expect(products).toEqual([
      {
        line: 2,
        name: 'Leche',
        food_category: 'dairy',
        ean: EAN,
        pos_ref: 'SKU-1',
        unit_weight_kg: 1.03,
        // Kept to four decimals, as the column stores it.
        density_kg_per_l: 1.0346,
        price: 1.25,
        unit_cost: 0.8,
        salvage_value: 0.1,
      },
      plain(3, 'Pan', 'bakery', EAN2),
    ]);
    // Quoted in a comma-separated file.
    const quoted = parseProductCsv(`${HEADER},price,unit_weight_kg\nPan,bakery,${EAN},"2,5","0,25"\n`);
    expect(quoted.problems).toEqual([]);
    expect(quoted.products[0]).toMatchObject({ price: 2.5, unit_weight_kg: 0.25 });
  });

  it('answers a file csv-parse cannot read as one problem, and no product', () => {
    for (const csv of [`${HEADER}\n"Pan,bakery,${EAN}\n`, `${HEADER}\nPan,bakery,${EAN},extra\n`]) {
      const result = parseProductCsv(csv);
      expect(result.products).toEqual([]);
      expect(result.problems).toEqual([
        { path: 'csv', message: expect.stringMatching(/^the CSV cannot be read: .+/), code: 'csv_unreadable' },
      ]);
    }
    expect(parseProductCsv(`${HEADER}\nPan,bakery,${EAN},extra\n`).problems[0]?.message).toMatch(/Invalid Record Length/);
  });

  it('names the columns a header lacks, once, and reads no product from it', () => {
    expect(parseProductCsv('name,ean\nPan,4006381333931\n').problems[0]).toEqual({
      path: 'csv',
      message: 'the header lacks food_category (expected name,food_category,ean)',
      code: 'csv_header',
      params: { columns: 'food_category' },
    });
    const none = parseProductCsv('product,kind\nPan,bakery\n');
    expect(none.problems[0]).toEqual({
      path: 'csv',
      message: 'the header lacks name, food_category, ean (expected name,food_category,ean)',
      code: 'csv_header',
      params: { columns: 'name, food_category, ean' },
    });
    // A header alone that lacks columns says that, not that the file is empty.
    expect(parseProductCsv('name,food_category\n').problems).toEqual([
      {
        path: 'csv',
        message: 'the header lacks ean (expected name,food_category,ean)',
        code: 'csv_header',
        params: { columns: 'ean' },
      },
    ]);
  });

  it('still checks each line of a header that lacks columns, a missing column read as empty', () => {
    expect(messages('product,kind\nPan,bakery\n')).toEqual([
      'the header lacks name, food_category, ean (expected name,food_category,ean)',
      'line 2: name is empty',
      `line 2: food_category "" is not one of ${CATEGORIES}`,
      'line 2: ean "" is not a valid EAN/GTIN',
    ]);
    const { products } = parseProductCsv('product,kind\nPan,bakery\n');
    expect(products).toEqual([plain(2, '', '', '')]);
  });

  it('wants each required column by its name, not inside another name (product_name, ean13)', () => {
    expect(messages('product_name,food_category,ean13\nPan,bakery,4006381333931\n')[0]).toBe(
      'the header lacks name, ean (expected name,food_category,ean)',
    );
    // Spaces and case around a name are not part of it.
    expect(messages(' Name ; FOOD_CATEGORY ;EAN\nPan;bakery;4006381333931\n')).toEqual([]);
  });

  it('reads the header from the first line only (a later line naming a column does not complete it)', () => {
    expect(messages('name,food_category\nBean soup,prepared_meals\n')[0]).toBe('the header lacks ean (expected name,food_category,ean)');
  });

  it('says a file with a header and no product row has none', () => {
    for (const csv of [`${HEADER}\n`, HEADER, `${HEADER}\n\n\n`]) {
      expect(parseProductCsv(csv)).toEqual({
        products: [],
        problems: [{ path: 'csv', message: 'the file has no product rows (expected a header name,food_category,ean)', code: 'csv_empty' }],
      });
    }
  });
});

describe("each line's checks", () => {
  it('an empty name, and one longer than 200 characters (200 is fine)', () => {
    const long = 'x'.repeat(201);
    const { problems } = parseProductCsv(`${HEADER}\n,bakery,${EAN}\n${long},bakery,${EAN2}\n${'y'.repeat(200)},bakery,${EAN3}\n`);
    expect(problems).toEqual([
      { path: 'csv', message: 'line 2: name is empty', code: 'required', params: { line: 2, field: 'name' } },
      {
        path: 'csv',
        message: 'line 3: name is longer than 200 characters',
        code: 'too_long',
        params: { line: 3, field: 'name', max: 200 },
      },
    ]);
  });

  it('a food category not in the list, naming the list', () => {
    const { problems } = parseProductCsv(`${HEADER}\nPan,Bakery,${EAN}\nPan,,${EAN2}\n`);
    expect(problems).toEqual([
      {
        path: 'csv',
        message: `line 2: food_category "Bakery" is not one of ${CATEGORIES}`,
        code: 'not_one_of',
        params: { line: 2, field: 'food_category', value: 'Bakery' },
      },
      {
        path: 'csv',
        message: `line 3: food_category "" is not one of ${CATEGORIES}`,
        code: 'not_one_of',
        params: { line: 3, field: 'food_category', value: '' },
      },
    ]);
    // Every category of the list is one.
    const eans = [
      '4006381333931',
      '96385074',
      '036000291452',
      '10012345678902',
      '12345670',
      '5901234123457',
      '0000000000000',
      '04006381333931',
      '00000000',
    ];
    const every = FOOD_CATEGORIES.map((category, i) => `P${i},${category},${eans[i]}`);
    expect(parseProductCsv(`${HEADER}\n${every.join('\n')}\n`).problems).toEqual([]);
  });

  it('an EAN that is not a valid GTIN, and one that repeats an earlier line', () => {
    const { problems } = parseProductCsv(
      `${HEADER}\nPan,bakery,4006381333932\nPan,bakery,${EAN}\nLeche,dairy,${EAN2}\nOtro pan,bakery,${EAN}\n`,
    );
    expect(problems).toEqual([
      {
        path: 'csv',
        message: 'line 2: ean "4006381333932" is not a valid EAN/GTIN',
        code: 'invalid_gtin',
        params: { line: 2, field: 'ean', value: '4006381333932' },
      },
      {
        path: 'csv',
        message: `line 5: ean ${EAN} repeats line 3`,
        code: 'repeated',
        params: { line: 5, field: 'ean', value: EAN, first_line: 3 },
      },
    ]);
    // A third time repeats the latest line it was on.
    expect(messages(`${HEADER}\nA,bakery,${EAN}\nB,bakery,${EAN}\nC,bakery,${EAN}\n`)).toEqual([
      `line 3: ean ${EAN} repeats line 2`,
      `line 4: ean ${EAN} repeats line 3`,
    ]);
  });

  it('a POS reference that repeats an earlier line; empty ones are no reference and repeat nothing', () => {
    const csv = `${HEADER},pos_ref\nA,bakery,${EAN},SKU-1\nB,bakery,${EAN2},\nC,bakery,${EAN3},\nD,bakery,10012345678902,SKU-1\n`;
    const { products, problems } = parseProductCsv(csv);
    expect(problems).toEqual([
      {
        path: 'csv',
        message: 'line 5: pos_ref SKU-1 repeats line 2',
        code: 'repeated',
        params: { line: 5, field: 'pos_ref', value: 'SKU-1', first_line: 2 },
      },
    ]);
    expect(products.map((p) => p.pos_ref)).toEqual(['SKU-1', null, null, 'SKU-1']);
    expect(messages(`${HEADER},pos_ref\nA,bakery,${EAN},R\nB,bakery,${EAN2},R\nC,bakery,${EAN3},R\n`)).toEqual([
      'line 3: pos_ref R repeats line 2',
      'line 4: pos_ref R repeats line 3',
    ]);
  });

  it('a unit weight that is not a weight in kg: not a number, 0 or less, above 1000', () => {
    for (const weight of ['abc', '0', '-1', '1000,5', '1e9', 'Infinity', '1.000,5']) {
      expect(parseProductCsv(withColumn('unit_weight_kg', weight)).problems, weight).toEqual([
        {
          path: 'csv',
          message: `line 2: unit_weight_kg "${weight}" is not a weight in kg`,
          code: 'not_a_number',
          params: { line: 2, field: 'unit_weight_kg', value: weight },
        },
      ]);
    }
    // What is not a number is no weight in the line read (its problem keeps the import from writing it).
    expect(parseProductCsv(withColumn('unit_weight_kg', 'abc')).products[0]?.unit_weight_kg).toBeNull();
    for (const [weight, kg] of [
      ['1000', 1000],
      ['0,001', 0.001],
      ['2.5', 2.5],
      ['', null],
    ] as const) {
      const { products, problems } = parseProductCsv(withColumn('unit_weight_kg', weight));
      expect(problems, weight).toEqual([]);
      expect(products[0]?.unit_weight_kg, weight).toBe(kg);
    }
  });

  it('a density that is not kg per litre above 0 (at most 1000)', () => {
    for (const density of ['abc', '0', '-0,9', '1000,01', 'Infinity']) {
      expect(parseProductCsv(withColumn('density_kg_per_l', density)).problems, density).toEqual([
        {
          path: 'csv',
          message: `line 2: density_kg_per_l "${density}" is not a density in kg per litre (above 0)`,
          code: 'not_a_number',
          params: { line: 2, field: 'density_kg_per_l', value: density },
        },
      ]);
    }
    expect(parseProductCsv(withColumn('density_kg_per_l', 'abc')).products[0]?.density_kg_per_l).toBeNull();
    for (const [density, kg] of [
      ['1000', 1000],
      ['0,92', 0.92],
      ['0.00005', 0.0001],
      ['', null],
    ] as const) {
      const { products, problems } = parseProductCsv(withColumn('density_kg_per_l', density));
      expect(problems, density).toEqual([]);
      expect(products[0]?.density_kg_per_l, density).toBe(kg);
    }
  });

  it('a price, cost or salvage value that is not an amount in euros (0 or more, under 100 million)', () => {
    for (const column of ['price', 'unit_cost', 'salvage_value'] as const) {
      for (const amount of ['abc', '-0,01', '100000000', 'Infinity', '1.000,50']) {
        expect(parseProductCsv(withColumn(column, amount)).problems, `${column} ${amount}`).toEqual([
          {
            path: 'csv',
            message: `line 2: ${column} "${amount}" is not an amount in euros (0 or more)`,
            code: 'not_a_number',
            params: { line: 2, field: column, value: amount },
          },
        ]);
      }
      for (const [amount, euros] of [
        ['0', 0],
        ['99999999,99', 99_999_999.99],
        ['', null],
      ] as const) {
        const { products, problems } = parseProductCsv(withColumn(column, amount));
        expect(problems, `${column} ${amount}`).toEqual([]);
        expect(products[0]?.[column], `${column} ${amount}`).toBe(euros);
      }
    }
  });

  it('prices that contradict each other, each naming the price it contradicts', () => {
    const { problems } = parseProductCsv(`${HEADER},price,unit_cost,salvage_value\nPan,bakery,${EAN},1,2,3\nPan,bakery,${EAN2},2,1,1\n`);
    expect(problems).toEqual([
      {
        path: 'csv',
        message: 'line 2: unit_cost 2 is above price 1 (every sale would lose money)',
        code: 'above',
        params: { line: 2, field: 'unit_cost', other: 'price' },
      },
      {
        path: 'csv',
        message: 'line 2: salvage_value 3 is above unit_cost 2 (a leftover would be worth more than making it)',
        code: 'above',
        params: { line: 2, field: 'salvage_value', other: 'unit_cost' },
      },
    ]);
  });

  it('every problem of every line, in line order, each line still read', () => {
    const { products, problems } = parseProductCsv(`${HEADER},price\n,Bakery,123,x\nPan,bakery,${EAN},1\n`);
    expect(problems.map((p) => p.message)).toEqual([
      'line 2: name is empty',
      `line 2: food_category "Bakery" is not one of ${CATEGORIES}`,
      'line 2: ean "123" is not a valid EAN/GTIN',
      'line 2: price "x" is not an amount in euros (0 or more)',
    ]);
    expect(products.map((p) => p.line)).toEqual([2, 3]);
    expect(products[0]?.price).toBeNull();
  });
});

describe('toProduct', () => {
  const row = {
    id: '0b4f6a2e-8c1d-4e3f-9a5b-7c6d5e4f3a2b',
    name: 'Leche',
    food_category: 'dairy',
    ean: EAN,
    pos_ref: 'SKU-1',
    unit_weight_kg: '1.030',
    density_kg_per_l: '1.0300',
    price: '1.2500',
    unit_cost: 0.8,
    salvage_value: '0',
    deactivated_at: null,
  };

  it('answers decimals (strings from the database) as numbers, and an active product', () => {
    expect(toProduct(row)).toEqual({
      id: row.id,
      name: 'Leche',
      food_category: 'dairy',
      ean: EAN,
      pos_ref: 'SKU-1',
      unit_weight_kg: 1.03,
      density_kg_per_l: 1.03,
      price: 1.25,
      unit_cost: 0.8,
      salvage_value: 0,
      active: true,
    });
  });

  it('keeps absent values null (not 0), and a deactivated product inactive', () => {
    const product = toProduct({
      ...row,
      pos_ref: null,
      unit_weight_kg: null,
      density_kg_per_l: undefined,
      price: null,
      unit_cost: null,
      salvage_value: undefined,
      deactivated_at: new Date('2026-11-01T00:00:00.000Z'),
    });
    expect(product).toMatchObject({
      pos_ref: null,
      unit_weight_kg: null,
      density_kg_per_l: null,
      price: null,
      unit_cost: null,
      salvage_value: null,
      active: false,
    });
  });
});
